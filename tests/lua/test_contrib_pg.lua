-- Tests for contrib/pg-statemap.lua against a real PostgreSQL server that
-- the test starts: initdb in a private directory, pg_ctl start listening
-- on a Unix socket in that directory only (no TCP), as the user nobody
-- when the test runs as root (initdb refuses root). The workload:
--   * "holder" (psql) begins a transaction, updates row 1 of a table,
--     and stays idle in that transaction until the test releases it;
--   * "waiter" (psql) updates the same row: it waits on a Lock (the
--     holder's transaction id) it cannot get until then;
--   * pgbench runs 4 clients of its TPC-B-like script (its one branch
--     row makes them wait on each other's locks, and each commit waits
--     for its WAL to reach the disk: IO).
-- Once pg_stat_activity shows all of that, the sampler runs for 1 s, and
-- the trace must have the holder idle in transaction and the waiter in
-- Lock for the whole of it, each tagged with its query's first words,
-- pgbench's four clients, the server's background processes, and not
-- the sampler's own backend. The states pgbench's clients went through
-- (IO, LWLock, Lock ...) vary from run to run: they are printed, not
-- checked.
--
-- Without the server's programs (Debian's postgresql package:
-- /usr/lib/postgresql/VERSION/bin, or $SM_PG_BINDIR) the server checks
-- are a counted skip, and a failure with REQUIRE_POSTGRES=1 (set by CI,
-- which installs the package). The checks of the command line run
-- everywhere.
local sm = require "statemap"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local C = require "contrib"
local check, check_eq = unit.check, unit.check_eq
local q = C.quote
-- A check that says whether it passed (unit.check does not).
local function holds(name, cond, detail)
	check(name, cond, detail)
	return cond
end

-- ---- The command line, without a server ---------------------------------

local function fails(name, args, status, pattern)
	local o, st, e = C.run("pg-statemap.lua", table.unpack(args))
	check_eq("pg: " .. name, { st, select(2, e:gsub("\n", "")), e:match(pattern) ~= nil, C.slurp(o) },
		{ status, 1, true, "" })
	os.remove(o)
end
fails("a bad interval", { "-i", "soon" }, 2, "^pg%-statemap: %-i wants a duration such as 20ms, not 'soon'\n$")
fails("an interval under 1ms", { "-i", "500us" }, 2, "at least 1ms")
fails("a bad duration", { "-d", "0" }, 2, "%-d must be above 0")
fails("--words 0", { "--words", "0" }, 2, "%-%-words wants a whole number above 0")
fails("an unknown option", { "--frobnicate" }, 2, "unknown option %-%-frobnicate")
C.check_all_or_nothing("pg: a psql that is not there", "pg-statemap.lua",
	{ "--psql", "/nonexistent/psql", "-d", "1s" }, 1, "^pg%-statemap: psql: .*/nonexistent/psql.*$")
local out, status = C.run("pg-statemap.lua", "--help")
check("pg: --help", status == 0 and (C.slurp(out) or ""):find("usage:", 1, true) ~= nil)
os.remove(out)

-- ---- A real server ---------------------------------------------------------

local required = (os.getenv("REQUIRE_POSTGRES") or "") ~= ""
local function unavailable(why)
	if required then
		check("pg: a PostgreSQL server to test against (REQUIRE_POSTGRES is set)", false, why)
	else
		unit.skip("pg: sampling a real PostgreSQL server", why)
	end
end

local function sh(cmd)
	local p = io.popen(cmd)
	local text = p:read("a")
	p:close()
	return text
end

local bindir = os.getenv("SM_PG_BINDIR")
if not bindir or bindir == "" then
	bindir = sh("ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1"):match("^(%S+)")
end
local root = sh("id -u"):match("^0") ~= nil
local missing
for _, prog in ipairs { "initdb", "pg_ctl", "postgres", "psql", "pgbench" } do
	if not bindir or not os.execute("test -x " .. q(bindir .. "/" .. prog)) then
		missing = (missing or "") .. " " .. prog
	end
end
if missing then
	unavailable("no PostgreSQL server programs (" .. missing:sub(2) .. ") in " .. tostring(bindir or
		"/usr/lib/postgresql/*/bin") .. ": apt-get install postgresql")
	return
end
if root and not os.execute("command -v runuser > /dev/null") then
	unavailable("running as root without runuser, and initdb refuses root")
	return
end

-- As root, the server runs as nobody, who must reach its directory: in
-- /tmp itself, whatever TMPDIR says.
local dir = root and sh("mktemp -d /tmp/sm-pg.XXXXXX"):match("^(%S+)") or C.tmpdir()
local as_server = ""	-- how the server's programs run: as nobody when we are root
if root then
	os.execute("chown nobody " .. q(dir))
	as_server = "runuser -u nobody -- "
end
local bin = function(prog) return q(bindir .. "/" .. prog) end
local conn = "host=" .. dir .. " user=postgres dbname=postgres"
local client = "PGHOST=" .. q(dir) .. " PGUSER=postgres PGDATABASE=postgres "

-- psql's answer to one query (unaligned, tuples only), or nil.
local function ask(sql)
	local text = sh(client .. bin("psql") .. " -X -q -A -t -c " .. q(sql) .. " 2> /dev/null")
	return text:match("^(.-)\n?$")
end

-- Polls until f() is true, every 50 ms, for at most `tries` polls (a
-- guard: the test fails rather than hangs if it never comes).
local function wait_for(f, tries)
	for _ = 1, tries or 400 do
		if f() then return true end
		os.execute("sleep 0.05")
	end
	return false
end

local started = false
local function stop_server()
	if started then
		os.execute(as_server .. bin("pg_ctl") .. " -D " .. q(dir .. "/data") .. " -m fast -w -t 60 stop > /dev/null 2>&1")
		started = false
	end
end

local function run_server_tests()
	local ok = os.execute(as_server .. bin("initdb") .. " -D " .. q(dir .. "/data")
		.. " -A trust -U postgres --no-sync -E UTF8 --locale=C > " .. q(dir .. "/initdb.log") .. " 2>&1")
	if not holds("pg: initdb in a private directory", ok, C.slurp(dir .. "/initdb.log")) then return end
	ok = os.execute(as_server .. bin("pg_ctl") .. " -D " .. q(dir .. "/data") .. " -w -t 60 -l "
		.. q(dir .. "/server.log") .. " -o " .. q("-k " .. dir .. " -c listen_addresses=''")
		.. " start > /dev/null 2>&1")
	started = ok == true
	if not holds("pg: the server starts on a private socket", ok, C.slurp(dir .. "/server.log")) then return end

	check_eq("pg: a table to lock, and pgbench's tables",
		{ ask("CREATE TABLE lockme (id int PRIMARY KEY, v int); INSERT INTO lockme VALUES (1, 0); SELECT 'ok'"),
		  (os.execute(client .. bin("pgbench") .. " -i -q -s 1 > " .. q(dir .. "/pgbench-init.log") .. " 2>&1")) },
		{ "ok", true })

	-- The holder: idle in its transaction until the file "release" exists
	-- (at most 60 s).
	os.execute("((printf 'BEGIN;\\nUPDATE lockme SET v = 1 WHERE id = 1;\\n'; i=0; while [ ! -e "
		.. q(dir .. "/release") .. " ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; "
		.. "printf 'COMMIT;\\n') | " .. client .. "PGAPPNAME=holder " .. bin("psql") .. " -X -q > "
		.. q(dir .. "/holder.log") .. " 2>&1; touch " .. q(dir .. "/holder.done") .. ") &")
	check("pg: the holder is idle in transaction", wait_for(function()
		return ask("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'holder'"
			.. " AND state = 'idle in transaction'") == "1" end))
	os.execute("(" .. client .. "PGAPPNAME=waiter " .. bin("psql") .. " -X -q -c "
		.. q("UPDATE lockme SET v = 2 WHERE id = 1") .. " > " .. q(dir .. "/waiter.log") .. " 2>&1; touch "
		.. q(dir .. "/waiter.done") .. ") &")
	check("pg: the waiter waits on a Lock", wait_for(function()
		return ask("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'waiter'"
			.. " AND wait_event_type = 'Lock'") == "1" end))
	os.execute("(" .. client .. bin("pgbench") .. " -n -c 4 -j 2 -T 5 > " .. q(dir .. "/pgbench.log")
		.. " 2>&1; touch " .. q(dir .. "/pgbench.done") .. ") &")
	check("pg: pgbench's four clients are connected", wait_for(function()
		return ask("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'") == "4" end))

	local trace = dir .. "/pg.out"
	local o, st, e = C.run("pg-statemap.lua", "-c", conn, "--psql", bindir .. "/psql", "-i", "10ms", "-d", "1s",
		"-o", trace)
	check_eq("pg: samples for 1 s", { st, e, C.slurp(o) }, { 0, "", "" })
	os.remove(o)
	local clients = dir .. "/clients.out"
	o, st, e = C.run("pg-statemap.lua", "-c", conn, "--psql", bindir .. "/psql", "-d", "100ms", "--clients",
		"-o", clients)
	check_eq("pg: --clients samples", { st, e }, { 0, "" })
	os.remove(o)
	-- Let everything go: the waiter gets its lock once the holder commits.
	os.execute("touch " .. q(dir .. "/release"))
	check("pg: the holder commits and the waiter completes", wait_for(function()
		return C.slurp(dir .. "/holder.done") and C.slurp(dir .. "/waiter.done") end, 1200),
		C.slurp(dir .. "/waiter.log"))
	check("pg: pgbench ends", wait_for(function() return C.slurp(dir .. "/pgbench.done") end, 1200))
	stop_server()

	local t = st == 0 and sm.load(trace, { cache = false })
	if not holds("pg: the trace loads", t) then return end
	local by_app = {}
	for _, ent in ipairs(t:entities()) do
		local app = ent.name:match("^(.*)/%d+$")
		by_app[app] = by_app[app] or {}
		table.insert(by_app[app], ent)
	end
	local whole = t.finish - t.begin
	-- How much of the second the samples cover depends on the machine's
	-- load (a wall time): only that they cover some.
	check("pg: the samples span some time", whole > 0, whole)
	local holder, waiter = (by_app.holder or {})[1], (by_app.waiter or {})[1]
	check_eq("pg: one holder, one waiter, four pgbench clients, not the sampler",
		{ by_app.holder and #by_app.holder, by_app.waiter and #by_app.waiter,
		  by_app.pgbench and #by_app.pgbench, by_app["pg-statemap"] },
		{ 1, 1, 4, nil })
	if holder then
		check_eq("pg: the holder is idle in transaction all along, tagged with its last query",
			{ holder:time_in()["idle in transaction"], holder.description, { holder:at(t.begin) } },
			{ whole, "client backend (postgres@postgres)",
			  { "idle in transaction", "UPDATE lockme SET", t.begin, t.finish } })
	end
	if waiter then
		check_eq("pg: the waiter waits on a Lock all along, tagged with its query",
			{ waiter:time_in().Lock, { waiter:at(t.begin) } },
			{ whole, { "Lock", "UPDATE lockme SET", t.begin, t.finish } })
	end
	local busy, seen = 0, {}
	for _, ent in ipairs(by_app.pgbench or {}) do
		for state, ns in pairs(ent:time_in()) do
			if ns > 0 then
				seen[state] = (seen[state] or 0) + ns
				if state ~= "idle" then busy = busy + ns end
			end
		end
	end
	check("pg: pgbench's clients were sampled at work", busy > 0)
	local list = {}
	for state, ns in pairs(seen) do list[#list + 1] = string.format("%s %s", state, sm.format_ns(ns)) end
	table.sort(list)
	print("pg: pgbench's four clients, time by state (varies): " .. table.concat(list, ", "))
	check("pg: the server's own processes are there, as the backend type",
		by_app.checkpointer and #by_app.checkpointer == 1)
	-- A backend that is gone has no data (no "exited" state).
	local names = {}
	for _, s in ipairs(t.states) do names[#names + 1] = s.name end
	check("pg: no exited state: a backend gone has no data", not table.concat(names, ","):find("exited"),
		table.concat(names, ","))
	local c = sm.load(clients, { cache = false })
	local others = {}
	for _, ent in ipairs(c:entities()) do
		if not ent.description:match("^client backend") then others[#others + 1] = ent.name end
	end
	check_eq("pg: --clients keeps client backends only", { #c:entities() > 0, others }, { true, {} })

	-- A server that is not there: psql's error, one line, nothing written.
	C.check_all_or_nothing("pg: no server on that socket", "pg-statemap.lua",
		{ "-c", "host=" .. dir .. "/nothing user=postgres", "--psql", bindir .. "/psql", "-d", "1s" }, 1,
		"^pg%-statemap: psql: .*connection to server.*failed.*$")
end

local ok, err = pcall(run_server_tests)
os.execute("touch " .. q(dir .. "/release"))
stop_server()
check("pg: the server tests ran to the end", ok, err)
C.rmdir(dir)
