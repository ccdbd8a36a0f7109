-- pg-statemap.lua: a live sampler of a PostgreSQL server's backends
-- (pg_stat_activity), written as a statemap. Run with statemap-lua; see
-- --help and contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/pg-statemap.lua [OPTIONS]

Samples pg_stat_activity of a PostgreSQL server every INTERVAL, through
psql (one psql for the whole run, repeating the query with \watch), and
writes a statemap with one entity per backend, named APPLICATION/PID
(the backend type where there is no application name: checkpointer/61)
and described by its type, user and database. Runs until the duration
has passed or Ctrl-C (the samples so far are written). Needs a role that
may see other sessions' activity (a superuser, or pg_read_all_stats).

  -c CONNINFO   what psql connects to: a connection string or URI
                ("host=/run/postgresql dbname=app user=me"); default
                psql's (the PG* environment variables)
  -i INTERVAL   time between samples (default 20ms; 1ms at the least)
  -d DURATION   stop after this long (5s, 500ms); Ctrl-C stops too
  --clients     only client backends (not autovacuum, the checkpointer,
                the WAL writer ...)
  --words N     the tag: the first N words of the backend's query
                (default 3)
  --psql PATH   the psql to run (default: psql)
  -o FILE       write FILE (replaced at the end) rather than standard output
  --title T     the statemap's title

States: active (running, waiting for nothing), idle, idle in
transaction, idle in transaction (aborted), and while a backend waits,
the type of what it waits for: Lock (a heavyweight lock another session
holds), LWLock, IO, BufferPin, IPC, Client, Timeout, Extension,
Activity (a background process waiting for work); other (fastpath
function call, disabled); no data once a backend is gone. The tag is the
first words of the backend's query (for idle ones, the last it ran).
A sample is an instant: states shorter than INTERVAL are missed.
]]

local opts = smout.options(arg, {
	["-c"] = { "conn", true }, ["--conn"] = { "conn", true },
	["-i"] = { "interval", true }, ["-d"] = { "duration", true },
	["--clients"] = { "clients" }, ["--words"] = { "words", true },
	["--psql"] = { "psql", true }, ["--title"] = { "title", true } }, usage)
local function die(msg, status)
	smout.fail("pg-statemap: " .. msg, status or 2)
end
local function duration(name, text)
	local ok, ns = pcall(statemap.duration, text)
	if not ok or math.type(ns) ~= "integer" then die(name .. " wants a duration such as 20ms, not '" .. text .. "'") end
	return ns
end
local interval = duration("-i", opts.interval or "20ms")
if interval < 1000000 then die("the interval must be at least 1ms") end
local limit = opts.duration and duration("-d", opts.duration)
if limit and limit <= 0 then die("-d must be above 0") end
local words = tonumber(opts.words or "3")
if not words or math.type(words) ~= "integer" or words < 1 then die("--words wants a whole number above 0") end
local psql = opts.psql or "psql"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- ---- The query ---------------------------------------------------------

-- Each sample: a row T with the server's time, then a row B per backend
-- (the sampler's own left out). Fields are text, without control
-- characters (they separate fields and rows here).
local SEP = "\31"
local function clean(expr)
	return "regexp_replace(coalesce((" .. expr .. ")::text, ''), '[[:cntrl:]]+', ' ', 'g')"
end
local fields = { "pid", "backend_type", "application_name", "usename", "datname", "state",
	"wait_event_type", "wait_event" }
local cols = {}
for i, f in ipairs(fields) do cols[i] = clean(f) end
local blank = {}
for i = 1, #fields + 1 do blank[i] = "''" end
local query = "SELECT 'T', extract(epoch from now())::text, " .. table.concat(blank, ", ", 2)
	.. " UNION ALL SELECT 'B', " .. table.concat(cols, ", ") .. ", left(" .. clean("query") .. ", 400)"
	.. " FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
	.. (opts.clients and " AND backend_type = 'client backend'" or "")
	.. " ORDER BY 1 DESC"
local secs = string.format("%d.%06d", interval // 1000000000, interval % 1000000000 // 1000)

local tmp = io.popen("mktemp -d 2> /dev/null")
local dir = tmp and tmp:read("l")
if tmp then tmp:close() end
if not dir or dir == "" then die("cannot make a temporary directory (TMPDIR)", 1) end
local function cleanup() os.execute("rm -rf " .. quote(dir)) end
local qf = io.open(dir .. "/query.sql", "w")
qf:write(query, " \\watch ", secs, "\n")
qf:close()

-- One psql, in the background of a shell that says its pid first (so
-- that we can stop it); its errors go to a file, for our error line.
local cmd = { "PGAPPNAME=pg-statemap", "exec", quote(psql), "-X", "-q", "-A", "-t", "-F", quote(SEP),
	"-v", "ON_ERROR_STOP=1", "-f", quote(dir .. "/query.sql") }
if opts.conn then cmd[#cmd + 1] = "-d"; cmd[#cmd + 1] = quote(opts.conn) end
local script = "(" .. table.concat(cmd, " ") .. ") 2> " .. quote(dir .. "/err") .. " < /dev/null & echo $!; wait"
local sampler = io.popen("exec sh -c " .. quote(script), "r")
local psql_pid = sampler:read("l")

local function psql_error()
	local f = io.open(dir .. "/err")
	local text = f and f:read("a") or ""
	if f then f:close() end
	local line = text:match("^%s*([^\n]*%S)") or "exited without a word"
	return line
end

local function stop_psql()
	if psql_pid and psql_pid:match("^%d+$") then os.execute("kill " .. psql_pid .. " 2> /dev/null") end
	sampler:close()
end

-- ---- The statemap ----------------------------------------------------------

local states = {
	{ "active", "#2ca02c" }, { "idle", "#e8e8e8" }, { "idle in transaction", "#f2b134" },
	{ "idle in transaction (aborted)", "#c44e52" }, { "Lock", "#d62728" }, { "LWLock", "#9467bd" },
	{ "IO", "#ffc300" }, { "BufferPin", "#8c564b" }, { "IPC", "#1f77b4" }, { "Client", "#aec7e8" },
	{ "Timeout", "#c7c7c7" }, { "Extension", "#17becf" }, { "Activity", "#f4f4f4" },
	{ "other", "#7f7f7f" },
}
local wait_types = {}
for i = 5, 13 do wait_types[states[i][1]] = true end

local w <close> = smout.writer({ title = opts.title or "PostgreSQL backends", entityKind = "Backend" },
	states, opts.output)

local function state_of(st, wt)
	if st == "idle" or st == "idle in transaction" or st == "idle in transaction (aborted)" then return st end
	if wt ~= "" then return wait_types[wt] and wt or "other" end
	if st == "active" or st == "" then return "active" end
	return "other"
end

local function first_words(q)
	local out = {}
	for word in q:gmatch("%S+") do
		out[#out + 1] = word
		if #out == words then break end
	end
	local s = table.concat(out, " ")
	if #s > 60 then s = s:sub(1, 57):gsub("[\128-\191]*$", ""):gsub("[\192-\255]$", "") .. "..." end
	return s ~= "" and s or nil
end

local backends = {}	-- pid -> {state =, tag =}
local started, started_at, samples, last = false, nil, 0, nil

-- A complete sample: each backend's state and tag; those gone have no
-- data from then on.
local function commit(time, rows, final)
	if not started then
		w:start(time)
		started = true
	end
	local rel = time - started_at
	local seen = {}
	for _, r in ipairs(rows) do
		local pid, btype, app, user, db, st, wt, _, q = table.unpack(r)
		local b = backends[pid]
		if not b then
			b = {}
			backends[pid] = b
		end
		local who = user .. (db ~= "" and ("@" .. db) or "")
		w:describe(pid, btype .. (who ~= "" and (" (" .. who .. ")") or ""))
		w:label(pid, smout.thread_name(app ~= "" and app or btype, pid))
		local state, tag = state_of(st, wt), first_words(q)
		if state ~= b.state or tag ~= b.tag or final then
			b.state, b.tag = state, tag
			w:datum(rel, pid, state, tag)
		end
		seen[pid] = true
	end
	local gone = {}
	for pid in pairs(backends) do
		if not seen[pid] then gone[#gone + 1] = pid end
	end
	table.sort(gone)
	for _, pid in ipairs(gone) do
		w:stop(rel, pid)
		backends[pid] = nil
	end
	samples = samples + 1
	last = { time, rows }
	w:flush()
end

local ended	-- why psql stopped, if it did by itself
local function sample()
	local time, rows
	while true do
		local line = sampler:read("l")
		if not line then
			ended = psql_error()
			return
		end
		local f = {}
		for x in (line .. SEP):gmatch("(.-)" .. SEP) do f[#f + 1] = x end
		if f[1] == "T" then
			local t = smout.seconds_ns(f[2] or "")
			if not t then
				ended = "psql gave a time that is not one: " .. tostring(f[2])
				return
			end
			if time then
				if not started_at then started_at = time end
				commit(time, rows)
			end
			if limit and started_at and t - started_at >= limit then return end
			time, rows = t, {}
		elseif f[1] == "B" and time and #f == #fields + 2 then
			table.remove(f, 1)
			rows[#rows + 1] = f
		elseif time then
			ended = "psql wrote a line that is not a sample: " .. line:sub(1, 80)
			return
		end
	end
end

-- Ctrl-C (SIGINT: statemap-lua raises "interrupted" in the running code)
-- stops the sampling like -d does, and the output is written.
local ok, err = pcall(sample)
stop_psql()
if not ok and not tostring(err):match("interrupted$") then
	cleanup()
	error(err, 0)
end
cleanup()
if samples == 0 then
	smout.fail("pg-statemap: " .. (ended and ("psql: " .. ended:gsub("^psql: ", "")) or "no sample was taken"), 1)
end
if ended then io.stderr:write("pg-statemap: psql stopped after ", samples, " samples: ", ended, "\n") end
-- The last sample again, so that every state lasts to the trace's end.
commit(last[1], last[2], true)
w:finish()
