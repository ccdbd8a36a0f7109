-- strace2statemap.lua: `strace -f -ttt -T` output to a statemap of threads.
-- Run with statemap-lua; see --help and contrib/README.md.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/lib/?.lua;" .. package.path
local smout = require "smout"

local usage = [[
usage: statemap-lua contrib/strace2statemap.lua [-o OUT] [--lenient] [--title T] [FILE]

Reads the output of `strace -f -ttt -T -o FILE command` (FILE or standard
input; `[pid N]` prefixes, as strace writes to a terminal, work too) and
writes a statemap: one entity per thread (named COMM/TID by its last
command name, described by the program it runs), in state "user"
between system calls and, during one, in the state of its family:
file-io, network, wait (futex, poll, wait4 ...), sleep (nanosleep) or
other; no data after it ends ("state": null). The system call is the tag. Reads and
writes on sockets count as network. SIGCHLD and clone become events
from one thread to another.

  -o OUT      write OUT (replaced only once the whole input is converted)
              rather than standard output
  --lenient   skip malformed lines (reported on stderr) instead of stopping
  --title T   the statemap's title (default "strace")
]]

local opts, files = smout.options(arg, {
	["--lenient"] = { "lenient" }, ["--title"] = { "title", true } }, usage)
local input, name = smout.open(files[1])
local report = smout.reporter(name, opts.lenient)

local states = {
	{ "user", "#9bd18b" }, { "file-io", "#e8a33d" }, { "network", "#4e8fd9" },
	{ "wait", "#d9d9d9" }, { "sleep", "#f2f2f2" }, { "other", "#c27ad1" },
}
local w <close> = smout.writer({ title = opts.title or "strace", entityKind = "Thread" }, states, opts.output)

-- System call families; read/write-style calls depend on the descriptor.
local family = {}
local function fam(f, list) for n in list:gmatch("%S+") do family[n] = f end end
fam("file-io", [[open openat openat2 creat close close_range stat fstat lstat newfstatat
	statx fstatfs statfs lseek llseek fsync fdatasync sync syncfs sync_file_range
	getdents getdents64 mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2
	link linkat symlink symlinkat readlink readlinkat truncate ftruncate fallocate
	access faccessat faccessat2 chmod fchmod fchmodat chown fchown fchownat lchown
	utimensat copy_file_range sendfile splice tee io_submit io_getevents io_uring_enter
	flock fadvise64 readahead mmap2 getxattr fgetxattr lgetxattr setxattr fsetxattr]])
fam("network", [[socket socketpair connect accept accept4 bind listen shutdown send
	sendto sendmsg sendmmsg recv recvfrom recvmsg recvmmsg getsockopt setsockopt
	getsockname getpeername]])
fam("wait", [[futex futex_waitv wait4 waitid waitpid poll ppoll select pselect6
	_newselect epoll_wait epoll_pwait epoll_pwait2 pause rt_sigsuspend sigsuspend
	rt_sigtimedwait msgrcv semop semtimedop mq_timedreceive]])
fam("sleep", "nanosleep clock_nanosleep")
local fdcalls = {}
for n in ("read write pread64 pwrite64 readv writev preadv pwritev preadv2 pwritev2"):gmatch("%S+") do
	fdcalls[n] = true
end

-- Per thread: its descriptor table (shared between threads made with
-- CLONE_FILES), program (from execve: its description), command name
-- (the program's, or set by prctl PR_SET_NAME: its entity's name), and
-- the call it is in.
local threads = {}
local function thread(tid)
	local t = threads[tid]
	if not t then
		t = { fds = {}, name = nil, pending = nil }
		threads[tid] = t
	end
	return t
end

local function state_of(tid, sc, args)
	if fdcalls[sc] then
		local fd = tonumber(args:match("^(%d+)"))
		if fd and thread(tid).fds[fd] == "net" then return "network" end
		return "file-io"
	end
	return family[sc] or "other"
end

local origin
local pending = smout.heap()	-- ends of calls not yet due: {tid, gen}
local gen = {}			-- tid -> generation of its latest entry
local exited = {}

local function rel(ns)
	if not origin then
		origin = ns
		w:start(ns)
	end
	return ns - origin
end

-- Writes every pending call end due at or before `now`.
local function flush(now)
	while pending.size() > 0 do
		local t, item = pending.peek()
		if now and t > now then break end
		pending.pop()
		if gen[item[1]] == item[2] and not exited[item[1]] then
			w:datum(t, item[1], "user")
		end
	end
end

local function enter(now, tid, sc, args)
	gen[tid] = (gen[tid] or 0) + 1	-- an end still pending is stale now
	local st = state_of(tid, sc, args)
	w:datum(now, tid, st, sc)
	return st
end

-- What a finished call teaches: new descriptors, clones, names.
local function learn(now, tid, sc, args, ret)
	local t = thread(tid)
	local r = tonumber(ret)
	if (sc == "socket" or sc == "accept" or sc == "accept4") and r and r >= 0 then
		t.fds[r] = "net"
	elseif (sc == "open" or sc == "openat" or sc == "creat") and r and r >= 0 then
		t.fds[r] = nil
	elseif sc == "close" then
		local fd = tonumber(args:match("^(%d+)"))
		if fd then t.fds[fd] = nil end
	elseif sc == "socketpair" and r == 0 then
		local a, b = args:match("%[(%d+), (%d+)%]")
		if a then t.fds[tonumber(a)], t.fds[tonumber(b)] = "net", "net" end
	elseif (sc == "dup" or sc == "dup2" or sc == "dup3" or sc == "fcntl") and r and r >= 0 then
		local fd = tonumber(args:match("^(%d+)"))
		if sc ~= "fcntl" or args:find("F_DUPFD") then t.fds[r] = fd and t.fds[fd] end
	elseif (sc == "clone" or sc == "clone3" or sc == "fork" or sc == "vfork") and r and r > 0 then
		local child = thread(tostring(r))
		if args:find("CLONE_FILES") or args:find("CLONE_THREAD") then
			child.fds = t.fds
		else
			for k, v in pairs(t.fds) do child.fds[k] = v end
		end
		if not child.name and t.name then
			child.name = t.name
			w:describe(tostring(r), t.name)
		end
		if not child.comm then child.comm = t.comm end
		w:event(now, tid, sc, tostring(r))
	elseif sc == "execve" and r == 0 then
		local path = args:match('^"([^"]*)"')
		if path then
			t.name = path:match("([^/]*)$")
			t.comm = t.name
			w:describe(tid, t.name)
		end
	elseif sc == "prctl" and r == 0 then
		local comm = args:match('^PR_SET_NAME, "([^"]*)"')
		if comm then t.comm = comm end
	end
end

-- Written to a terminal (no -o), strace prefixes nothing until the first
-- fork, then "[pid N]" on every line: the first prefixed line of the
-- process traced from the start is recognised and named "main" too.
local main_pid
local function who(tid, body)
	if main_pid or not threads.main or threads[tid] then
		return tid == main_pid and "main" or tid
	end
	local p = threads.main.pending
	local sc = body:match("^<%.%.%. ([%w_]+) resumed>")
	if (p and sc == p.sc) or not p then
		main_pid = tid
		return "main"
	end
	return tid
end

local lineno = 0
local carried	-- the start of a line that strace's own message cut short
for line in input:lines() do
	lineno = lineno + 1
	if carried then
		line = carried .. line
		carried = nil
	end
	local cut = line:match("^(.+)strace: Process %d+ attached$")
	if cut then
		carried = cut
		goto next
	end
	if line:match("^strace: ") or line:match("^%s*$") then goto next end
	do
		local tid, rest = line:match("^%[pid%s+(%d+)%]%s+(.*)$")
		if tid then
			tid = who(tid, rest:match("^%S+%s+(.*)$") or "")
		else
			tid, rest = line:match("^(%d+)%s+(%d+%..*)$")
		end
		if not tid then tid, rest = "main", line end
		local ts, body = rest:match("^(%d+%.%d+)%s+(.*)$")
		local ns = ts and smout.seconds_ns(ts)
		if not ns then
			report:bad(lineno, "expected [PID] SECONDS.FRACTION (strace -f -ttt)")
			goto next
		end
		local now = rel(ns)
		flush(now)
		local t = thread(tid)
		local dur = body:match("<(%d+%.%d+)>%s*$")
		if body:match("^%+%+%+ ") then
			exited[tid] = true
			w:stop(now, tid)	-- no data from its exit on
		elseif body:match("^%-%-%- ") then
			local sig, from = body:match("^%-%-%- (SIG%w+) .-si_pid=(%d+)")
			if sig and from ~= tid then w:event(now, from, sig, tid) end
		elseif body:match("^<%.%.%. ") then
			local sc, tail = body:match("^<%.%.%. ([%w_]+) resumed>(.*)$")
			if not sc then
				report:bad(lineno, "expected <... NAME resumed>")
				goto next
			end
			local p = t.pending
			t.pending = nil
			local args = (p and p.sc == sc) and p.args .. tail or tail
			local ret = tail:match("%)%s+=%s+(%-?%w+)")
			learn(now, tid, sc, args, ret)
			if not exited[tid] and gen[tid] then
				gen[tid] = gen[tid] + 1
				w:datum(now, tid, "user")
			end
		else
			local sc, args = body:match("^([%w_]+)%((.*)$")
			if not sc then
				report:bad(lineno, "expected a system call, <... resumed>, --- signal --- or +++ exit +++")
				goto next
			end
			if exited[tid] then exited[tid] = nil end -- a reused id
			enter(now, tid, sc, args)
			if args:match("<unfinished %.%.%.>%s*$") then
				t.pending = { sc = sc, args = args:gsub("%s*<unfinished %.%.%.>%s*$", "") }
			else
				local ret = args:match("%)%s+=%s+(%-?%w+)")
				if not ret and not args:match("%)%s+=%s+%?") then
					report:bad(lineno, "a system call without \"= RESULT\"")
					goto next
				end
				learn(now, tid, sc, args, ret)
				local d = dur and smout.seconds_ns(dur) or 0
				pending.push(now + d, { tid, gen[tid] })
			end
		end
	end
	::next::
end
flush(nil)
-- Entities are named COMM/PID by each thread's last command name (the
-- first process's pid may be unknown: "main").
for key, t in pairs(threads) do
	w:label(key, smout.thread_name(t.comm, key == "main" and (main_pid or "main") or key))
end
report:finish()
w:finish()
