--- cpus: the CPUs analysis of kernel traces written in Lua, over
--- statemap.events and statemap.new: a state provider to copy and change.
--
--   local cpus = require "statemap.cpus"
--   local t = cpus.load("trace.dat")                -- a trace, as statemap.load gives
--
-- It follows the rules of the C analysis (statemap.load(path, {analysis =
-- "cpus"}); src/ingest/kernel_cpus.h) and gives the same entities, states,
-- tags, stacks and times (tests/lua/test_kernel.lua checks); the C one is
-- the fast path. Its metadata start is 0 (its times are the same: ns since
-- the trace's first event), and it always has the irq and softirq states.
local sm = require "statemap"

local cpus = {}

local MAX_DEPTH = 16
local COMM_MAX = 32

--- The states, in the C analysis's colours.
cpus.states = {
	running = { value = 0, color = "#2ca02c" },
	idle = { value = 1, color = "#ffffff" },
	irq = { value = 2, color = "#9467bd" },
	softirq = { value = 3, color = "#e377c2" },
}

local softirq_names = { [0] = "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU" }

local kinds = {
	irq_handler_entry = "irq entry", irq_handler_exit = "irq exit",
	softirq_entry = "softirq entry", softirq_exit = "softirq exit",
	irq_softirq_entry = "softirq entry", irq_softirq_exit = "softirq exit",	-- LTTng's names
}

--- Reads the kernel trace at path (options: from=, to= as for
--- statemap.events) and returns the trace the CPUs analysis makes.
function cpus.load(path, options)
	sm.check_options("cpus.load", options, { "from", "to" })
	local b = sm.new{ title = "cpus", states = cpus.states }
	local tab, last = {}, 0

	-- The CPU becomes idle or runs a task, whatever it was doing.
	local function base(c, n, time, pid, comm)
		c.entity = c.entity or ("cpu" .. n)
		c.stack, c.over = {}, 0
		if pid == 0 then
			b:set(time, c.entity, "idle")
		else
			b:set(time, c.entity, "running", comm:sub(1, COMM_MAX) .. "[" .. pid .. "]")
		end
	end

	local function push(c, time, state, tag)
		if #c.stack == MAX_DEPTH then
			c.over = c.over + 1
			return
		end
		c.stack[#c.stack + 1] = state
		b:push(time, c.entity, state, tag)
	end

	local function pop(c, time, state)
		if c.over > 0 then
			c.over = c.over - 1
			return
		end
		if c.stack[#c.stack] ~= state then return end
		c.stack[#c.stack] = nil
		b:pop(time, c.entity, state)
	end

	sm.events(path, options, function(ev)
		last = ev.time
		local c = tab[ev.cpu]
		if not c then
			c = {}
			tab[ev.cpu] = c
		end
		local f = ev.fields
		if ev.name == "sched_switch" then
			local pid = f.next_tid or f.next_pid
			if type(pid) ~= "number" or pid < 0 then return end
			return base(c, ev.cpu, ev.time, pid, f.next_comm or "<...>")
		end
		if not c.entity then base(c, ev.cpu, ev.time, ev.pid < 0 and 0 or ev.pid, ev.comm) end
		local kind = kinds[ev.name]
		if kind == "irq entry" then
			local irq = math.type(f.irq) == "integer" and f.irq or -1
			local tag = irq .. ":"
			if type(f.name) == "string" then tag = tag .. f.name:sub(1, 48) end
			push(c, ev.time, "irq", tag)
		elseif kind == "irq exit" then
			pop(c, ev.time, "irq")
		elseif kind == "softirq entry" then
			local vec = f.vec
			local tag = math.type(vec) == "integer" and softirq_names[vec] or ("vec " .. tostring(vec or -1))
			push(c, ev.time, "softirq", tag)
		elseif kind == "softirq exit" then
			pop(c, ev.time, "softirq")
		end
	end)
	return b:finish(last)
end

return cpus
