-- generate.lua: writes the bundled example traces, deterministically.
--
--   lua5.4 examples/data/generate.lua examples/data
--
-- db-threads.out  threads of a PostgreSQL server over 2 s: a few busy
--                 client backends, background workers, I/O bursts tagged
--                 by device and operation, wakeup events, a thread exiting
-- cpu.out         16 CPUs of the same host over 2 s: idle, user, kernel and
--                 interrupt, user/kernel time tagged by process
--
-- The simulation is simple on purpose; what matters is that the traces
-- look like real ones and exercise every part of the input format.

local dir = arg[1] or "."
local START = { 1700000000, 250000000 }
local SPAN = 2000000000                 -- 2 s in ns

-- A small deterministic PRNG (xorshift32), so every Lua gives the same file.
local seed = 2463534242
local function rand()
	seed = seed ~ (seed << 13) & 0xffffffff
	seed = seed ~ (seed >> 17)
	seed = seed ~ (seed << 5) & 0xffffffff
	return seed / 4294967296
end
local function between(lo, hi) return lo + math.floor(rand() * (hi - lo + 1)) end
local function exp(mean) return math.max(1, math.floor(-mean * math.log(1 - rand()))) end
local function pick(t) return t[between(1, #t)] end

local function writer(path)
	local f = assert(io.open(path, "w"))
	return f, function(t) f:write(t, "\n") end
end

local function quote(s) return '"' .. s:gsub('[%c"\\]', function(c)
	return string.format("\\u%04x", c:byte()) end) .. '"' end

-- Emits records in time order: each event source schedules its next
-- transition; a list sorted by time stands in for a priority queue.
local function run(sources, emit)
	local queue = {}
	for _, s in ipairs(sources) do queue[#queue + 1] = s end
	while #queue > 0 do
		table.sort(queue, function(a, b)
			if a.t ~= b.t then return a.t > b.t end
			return a.name > b.name
		end)
		local s = table.remove(queue)
		if s.t > SPAN then goto continue end
		if s:step(emit) then queue[#queue + 1] = s end
		::continue::
	end
end

---------------------------------------------------------------------------
-- db-threads.out

do
	local f, emit = writer(dir .. "/db-threads.out")
	emit(string.format('{"start": [%d, %d], "title": "PostgreSQL", "host": "db1", ' ..
	    '"entityKind": "Thread", "states": {' ..
	    '"on-cpu": {"value": 0, "color": "#DAF7A6"}, ' ..
	    '"off-cpu-waiting": {"value": 1, "color": "#f9f9f9"}, ' ..
	    '"off-cpu-futex": {"value": 2, "color": "#f0f0f0"}, ' ..
	    '"off-cpu-io": {"value": 3, "color": "#FFC300"}, ' ..
	    '"off-cpu-blocked": {"value": 4, "color": "#C70039"}, ' ..
	    '"off-cpu-dead": {"value": 5, "color": "#581845"}}}', START[1], START[2]))

	local ON, WAIT, FUTEX, IO, BLOCKED, DEAD = 0, 1, 2, 3, 4, 5
	local devices = { "nvme0n1", "nvme1n1", "sda" }
	local ops = { "read", "write", "fsync" }
	local tags = {}
	local function io_tag()
		local dev, op = pick(devices), pick(ops)
		local tag = dev .. ":" .. op
		if not tags[tag] then
			tags[tag] = true
			emit(string.format('{"state": %d, "tag": %s, "device": %s, "op": %s}',
			    IO, quote(tag), quote(dev), quote(op)))
		end
		return tag
	end

	local kinds = {
		{ "postgres: checkpointer", 1, { on = 200e3, io = 900e3, wait = 30e6, p_io = 0.5 } },
		{ "postgres: background writer", 1, { on = 80e3, io = 400e3, wait = 8e6, p_io = 0.4 } },
		{ "postgres: walwriter", 1, { on = 40e3, io = 150e3, wait = 2e6, p_io = 0.7 } },
		{ "postgres: autovacuum launcher", 1, { on = 30e3, io = 100e3, wait = 60e6, p_io = 0.1 } },
		{ "postgres: stats collector", 1, { on = 20e3, io = 50e3, wait = 25e6, p_io = 0.05 } },
		{ "postgres: logical replication launcher", 1, { on = 10e3, io = 50e3, wait = 200e6, p_io = 0.0 } },
		{ "postgres: client backend 10.0.0.7", 6, { on = 900e3, io = 300e3, wait = 400e3, p_io = 0.25, p_futex = 0.2 } },
		{ "postgres: client backend 10.0.0.12", 4, { on = 250e3, io = 250e3, wait = 3e6, p_io = 0.2, p_futex = 0.1 } },
		{ "postgres: client backend 10.0.0.31", 12, { on = 60e3, io = 200e3, wait = 40e6, p_io = 0.15, p_futex = 0.05 } },
		{ "postgres: parallel worker", 4, { on = 2e6, io = 600e3, wait = 1e6, p_io = 0.3, p_futex = 0.3 } },
	}

	local sources, threads = {}, {}
	local tid = 4000
	for _, k in ipairs(kinds) do
		for _ = 1, k[2] do
			tid = tid + between(1, 40)
			local th = { name = tostring(tid), desc = k[1], p = k[3], t = between(0, 2e6),
			    state = nil, dies = (k[1] == "postgres: parallel worker" and rand() < 0.5) and between(6e8, 1.6e9) or nil }
			threads[#threads + 1] = th
			emit(string.format('{"entity": %s, "description": %s}', quote(th.name), quote(th.desc)))
			function th:step(out)
				local p = self.p
				local k = 2
				if self.dies and self.t >= self.dies then
					out(string.format('{"time": "%d", "entity": %s, "state": %d}', self.t, quote(self.name), DEAD))
					return false
				end
				local s, tag, dt
				if self.state == ON then
					local r = rand()
					if r < p.p_io then
						s, tag, dt = IO, io_tag(), exp(k * p.io)
					elseif r < p.p_io + (p.p_futex or 0) then
						s, dt = FUTEX, exp(k * p.on / 2)
					elseif r < p.p_io + (p.p_futex or 0) + 0.03 then
						s, dt = BLOCKED, exp(5e6)
					else
						s, dt = WAIT, exp(k * p.wait)
						-- A client backend woken by a peer: an event with a target.
						if rand() < 0.2 then
							local other = pick(threads)
							if other ~= self then
								out(string.format('{"time": "%d", "entity": %s, "event": "wakeup", "target": %s}',
								    self.t, quote(self.name), quote(other.name)))
							end
						end
					end
				else
					s, dt = ON, exp(k * p.on)
				end
				if tag then
					out(string.format('{"time": "%d", "entity": %s, "state": %d, "tag": %s}',
					    self.t, quote(self.name), s, quote(tag)))
				else
					out(string.format('{"time": "%d", "entity": %s, "state": %d}', self.t, quote(self.name), s))
				end
				self.state, self.t = s, self.t + dt
				return true
			end
			sources[#sources + 1] = th
		end
	end
	run(sources, emit)
	f:close()
end

---------------------------------------------------------------------------
-- cpu.out

do
	local f, emit = writer(dir .. "/cpu.out")
	-- "interrupt" has no colour: statemap-lua generates one.
	emit(string.format('{"start": [%d, %d], "title": "CPU", "host": "db1", ' ..
	    '"entityKind": "CPU", "states": {' ..
	    '"idle": {"value": 0, "color": "#e8e8e8"}, ' ..
	    '"user": {"value": 1, "color": "#2ca02c"}, ' ..
	    '"kernel": {"value": 2, "color": "#d62728"}, ' ..
	    '"interrupt": {"value": 3}}}', START[1], START[2]))

	local IDLE, USER, KERNEL, INTR = 0, 1, 2, 3
	local procs = {
		{ 4012, "postgres" }, { 4013, "postgres" }, { 4031, "postgres" },
		{ 1201, "nginx" }, { 1202, "nginx" }, { 877, "node" }, { 90, "kswapd0" },
		{ 3321, "java" }, { 5550, "backup.sh" }, { 612, "sshd" },
	}
	local defined = {}
	local function proc_tag(state)
		local p = pick(procs)
		local tag = tostring(p[1])
		local key = state .. "/" .. tag
		if not defined[key] then
			defined[key] = true
			emit(string.format('{"state": %d, "tag": %s, "pid": %d, "execname": %s}',
			    state, quote(tag), p[1], quote(p[2])))
		end
		return tag
	end

	local sources = {}
	for cpu = 0, 15 do
		-- Low CPUs are busier, as an unbalanced scheduler might leave them.
		local busy = 0.85 - cpu * 0.045
		local c = { name = tostring(cpu), t = 0, state = nil }
		function c:step(out)
			local s, tag, dt
			local r = rand()
			if self.state ~= IDLE and r < 1 - busy then
				s, dt = IDLE, exp(3e6)
			elseif r < 0.03 then
				s, dt = INTR, exp(40e3)
			elseif r < 0.35 then
				s, dt = KERNEL, exp(500e3)
				tag = proc_tag(KERNEL)
			else
				s, dt = USER, exp(2e6)
				tag = proc_tag(USER)
			end
			if tag then
				out(string.format('{"time": "%d", "entity": "%s", "state": %d, "tag": %s}',
				    self.t, self.name, s, quote(tag)))
			else
				out(string.format('{"time": "%d", "entity": "%s", "state": %d}', self.t, self.name, s))
			end
			self.state, self.t = s, self.t + dt
			return true
		end
		sources[#sources + 1] = c
	end
	run(sources, emit)
	f:close()
end
