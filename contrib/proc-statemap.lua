-- proc-statemap.lua: a live, unprivileged sampler of thread states from
-- /proc, written as a statemap. Run with statemap-lua; see --help and
-- contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/proc-statemap.lua [OPTIONS] -- COMMAND [ARGS...]
       statemap-lua contrib/proc-statemap.lua [OPTIONS] -p PID
       statemap-lua contrib/proc-statemap.lua [OPTIONS] -a

Samples the state of threads in /proc/PID/task/TID/stat every INTERVAL
and writes a statemap (one entity per thread, named COMM/TID by its
last command name and thread id, described as "process (pid P):
thread"), until the process exits, the duration has passed or Ctrl-C.
Needs no privileges.

  -- COMMAND   start COMMAND (its standard output goes to our standard
               error) and sample it and its descendants until it exits
  -p PID       sample the threads of process PID until it exits
  -a           sample every thread on the system (stop with -d or Ctrl-C)
  -c           with -p, also the descendants of PID
  -i INTERVAL  time between samples (default 10ms; 1ms at the least)
  -d DURATION  stop after this long (`5s`, `500ms`); Ctrl-C stops too
  -o FILE      write FILE (replaced at the end) rather than standard output
  --title T    the statemap's title

States, from the state letter of each sample: running and runnable (R:
see below), sleeping (S, and I for idle kernel threads), disk-wait (D),
stopped (T, t) and zombie (Z); a thread that is dead (X) or gone has no
data from then on ("state": null). /proc says
only "R" for a thread that is on a CPU or waiting for one. Where the
kernel has /proc/PID/task/TID/schedstat, a thread in R is "running" if it
spent at least as long on a CPU as waiting in the run queue since the
previous sample, else "runnable". Without schedstat, it is "running" if
its CPU time (utime + stime, in clock ticks) grew by at least half the
wall time over the last 100ms (or since it was first seen), else
"runnable". A sample is an instant: a state lasts until the sample that
sees another, so changes shorter than INTERVAL are missed or shifted.
]]

local opts, rest = smout.options(arg, {
	["-p"] = { "pid", true }, ["-a"] = { "all" }, ["-c"] = { "children" },
	["-i"] = { "interval", true }, ["-d"] = { "duration", true },
	["--title"] = { "title", true } }, usage)
local function die(msg)
	smout.fail("proc-statemap: " .. msg, 2)
end
local interval = statemap.duration(opts.interval or "10ms")
if interval < 1000000 then die("the interval must be at least 1ms") end
local limit = opts.duration and statemap.duration(opts.duration)
local modes = (opts.pid and 1 or 0) + (opts.all and 1 or 0) + (#rest > 0 and 1 or 0)
if modes ~= 1 then die("give one of -p PID, -a or -- COMMAND (see --help)") end
if opts.pid and not opts.pid:match("^%d+$") then die("-p wants a process id") end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- One helper shell ticks and lists tasks: after each sleep it prints the
-- wall clock and the task directories (globbing is built into bash, so a
-- tick costs one fork, for sleep). With a command, it starts it first and
-- prints its pid; or, if bash finds no such command, prints nothing (a
-- command that cannot start would otherwise be sampled or not as the
-- first sample and the child's failed exec happen to fall).
local secs = string.format("%d.%09d", interval // 1000000000, interval % 1000000000)
local glob = (opts.all or opts.children or #rest > 0) and "/proc/[0-9]*/task/[0-9]*"
	or ("/proc/" .. opts.pid .. "/task/[0-9]*")
local script = "export LC_ALL=C; "
if #rest > 0 then
	local words = {}
	for i, a in ipairs(rest) do words[i] = quote(a) end
	script = script .. "type -P -- " .. quote(rest[1]) .. " > /dev/null || exit; "
		.. table.concat(words, " ") .. " >&2 & echo $! || exit; "
end
script = script .. "while :; do echo $EPOCHREALTIME " .. glob .. " || exit; sleep " .. secs .. " || exit; done"
local ticker = io.popen("exec bash -c " .. quote(script), "r")
local root = opts.pid
if #rest > 0 then root = ticker:read("l") end
if not root and #rest > 0 then
	smout.fail("proc-statemap: cannot run " .. rest[1] .. ": not found, or not executable", 1)
end
if not root and not opts.all then die("could not start the command") end

local function slurp(path)
	local f = io.open(path, "r")
	if not f then return nil end
	local s = f:read("a")
	f:close()
	return s
end

local tick_ns = 10000000
do
	local p = io.popen("getconf CLK_TCK 2>/dev/null")
	local hz = tonumber(p:read("l") or "")
	p:close()
	if hz and hz > 0 then tick_ns = 1000000000 // hz end
end

-- comm, state letter, ppid, utime + stime of a task's stat line.
local function parse_stat(text)
	local comm, after = text:match("^%d+ %((.*)%) (.*)$")
	if not comm then return nil end
	local f = {}
	for x in after:gmatch("%S+") do f[#f + 1] = x end
	return comm, f[1], f[2], (tonumber(f[12]) or 0) + (tonumber(f[13]) or 0)
end

local host = slurp("/proc/sys/kernel/hostname")
local w <close> = smout.writer({ title = opts.title or ("threads of " .. (#rest > 0 and rest[1] or opts.pid or "the system")),
	host = host and host:gsub("\n$", ""), entityKind = "Thread" }, {
	{ "running", "#2ca02c" }, { "runnable", "#d62728" }, { "sleeping", "#e8e8e8" },
	{ "disk-wait", "#ff7f0e" }, { "stopped", "#9467bd" }, { "zombie", "#8c564b" },
}, opts.output)
local letter = { S = "sleeping", I = "sleeping", D = "disk-wait", T = "stopped", t = "stopped",
	Z = "zombie", X = "dead" }

local threads = {}	-- tid -> {state, history of {wall, ticks}, run, wait}
local origin
local window = math.max(100000000, interval)

local function running_or_not(th, path, now, ticks)
	local ss = slurp(path .. "/schedstat")
	local run, wait
	if ss then run, wait = ss:match("^(%d+) (%d+)") end
	if run then
		run, wait = tonumber(run), tonumber(wait)
		local was_run, was_wait = th.run, th.wait
		th.run, th.wait = run, wait
		if was_run then
			return (run - was_run) >= (wait - was_wait) and "running" or "runnable"
		end
		return "running"
	end
	local h = th.history
	h[#h + 1] = { now, ticks }
	while #h > 2 and now - h[2][1] >= window do table.remove(h, 1) end
	local dt = now - h[1][1]
	if dt <= 0 then return "running" end
	return (h[#h][2] - h[1][2]) * tick_ns * 2 >= dt and "running" or "runnable"
end

local lineno = 0
local finished = false
local sampled_any = false
local function sample()
	while not finished do
		local line = ticker:read("l")
		if not line then break end
		lineno = lineno + 1
		local stamp, list = line:match("^(%S+)%s*(.*)$")
		local wall = stamp and smout.seconds_ns(stamp)
		if not wall then smout.fail("proc-statemap: bad tick from the helper shell: " .. line) end
		if not origin then
			origin = wall
			w:start(wall)
		end
		local now = wall - origin
		if limit and now >= limit then
			now = limit
			finished = true
		end
		-- Which processes to look at: all, one, or a tree found through ppid.
		local wanted
		if opts.children or #rest > 0 then
			local parent, kids = {}, {}
			for p in list:gmatch("/proc/(%d+)/task/%d+") do
				if not parent[p] then
					local s = slurp("/proc/" .. p .. "/stat")
					local ppid
					if s then ppid = select(3, parse_stat(s)) end
					parent[p] = ppid or "?"
					kids[ppid or "?"] = kids[ppid or "?"] or {}
					table.insert(kids[ppid or "?"], p)
				end
			end
			wanted = { [root] = true }
			local queue = { root }
			while #queue > 0 do
				local p = table.remove(queue)
				for _, k in ipairs(kids[p] or {}) do
					if not wanted[k] then wanted[k] = true; queue[#queue + 1] = k end
				end
			end
		end
		local seen = {}
		local root_alive = opts.all
		for p, tid in list:gmatch("/proc/(%d+)/task/(%d+)") do
			if not wanted or wanted[p] then
				local path = "/proc/" .. p .. "/task/" .. tid
				local s = slurp(path .. "/stat")
				local comm, st, ticks
				if s then comm, st, _, ticks = parse_stat(s) end
				if comm then
					local th = threads[tid]
					if not th then
						th = { history = {} }
						threads[tid] = th
					end
					local pcomm = comm
					if p ~= tid then
						local ps = slurp("/proc/" .. p .. "/comm")
						pcomm = ps and ps:gsub("\n$", "") or "?"
					end
					w:describe(tid, p == tid and string.format("%s (pid %s)", comm, p)
						or string.format("%s (pid %s): %s", pcomm, p, comm))
					w:label(tid, smout.thread_name(comm, tid))
					local state = st == "R" and running_or_not(th, path, wall, ticks) or letter[st] or "sleeping"
					if state ~= "running" and state ~= "runnable" then
						running_or_not(th, path, wall, ticks)	-- keep the history going
					end
					if th.state ~= state or finished then
						th.state = state
						if state == "dead" then
							w:stop(now, tid)	-- no data (X)
						else
							w:datum(now, tid, state)
						end
					end
					seen[tid] = true
					sampled_any = true
					if p == root and tid == root and st ~= "Z" and st ~= "X" then root_alive = true end
				end
			end
		end
		for tid, th in pairs(threads) do
			if not seen[tid] then
				-- Gone: no data from then on.
				if th.state ~= "dead" then w:stop(now, tid) end
				threads[tid] = nil
			end
		end
		w:flush()
		if not root_alive then finished = true end
	end
end
-- Ctrl-C (SIGINT: statemap-lua raises "interrupted" in the running code)
-- stops the sampling like -d does, and the output is written.
local ok, err = pcall(sample)
if not ok and not tostring(err):match("interrupted$") then error(err, 0) end
ticker:close()
if not next(threads) and not sampled_any then
	smout.fail("proc-statemap: no thread was sampled (the process ended, or never started, before the first sample)")
end
w:finish()
