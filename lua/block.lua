--- block: the block devices analysis of kernel traces written in Lua,
--- over statemap.events and statemap.new: a state provider to copy and
--- change.
--
--   local block = require "statemap.block"
--   local t = block.load("trace.dat")               -- a trace, as statemap.load gives
--
-- It follows the rules of the C analysis (statemap.load(path, {analysis =
-- "block"}); src/ingest/kernel_block.h) and gives the same entities,
-- states, tags, values and times (tests/lua/test_kernel.lua checks); the
-- C one is the fast path. Its metadata start is 0 (its times are the
-- same: ns since the trace's first event). Per device "block MAJ:MIN":
-- "block MAJ:MIN/in flight", the number of requests issued and not yet
-- complete, and one entity per outstanding-request slot, "block
-- MAJ:MIN/slot N": a request takes the lowest free slot, read, write or
-- other by its rwbs, tagged with the task that issued it, and the slot
-- is idle again when the request completes.
local sm = require "statemap"

local block = {}

local MAX_SLOTS = 1024		-- a device's; requests beyond are left out
local RWBS_WRITE, RWBS_READ = 0x1, 0x4	-- LTTng's rwbs is bits

--- The states, in the C analysis's order and colours.
block.states = {
	idle = { value = 0, color = "#ffffff" },
	read = { value = 1, color = "#1f77b4" },
	write = { value = 2, color = "#ff7f0e" },
	other = { value = 3, color = "#8c564b" },
}

-- What a request does, by its rwbs: text in ftrace, bits in LTTng.
local function kind(rwbs)
	if type(rwbs) == "string" then
		if rwbs:find("R", 1, true) then return "read" end
		if rwbs:find("W", 1, true) then return "write" end
		return "other"
	end
	if math.type(rwbs) == "integer" then
		if rwbs & RWBS_READ ~= 0 then return "read" end
		if rwbs & RWBS_WRITE ~= 0 then return "write" end
	end
	return "other"
end

--- Reads the kernel trace at path (options: from=, to= as for
--- statemap.events) and returns the trace the block analysis makes.
function block.load(path, options)
	sm.check_options("block.load", options, { "from", "to" })
	local b = sm.new{ title = "block", states = block.states }
	local devices, seq, last = {}, 0, 0
	local events = { events = { "block_rq_issue", "block_rq_complete" } }
	for k, v in pairs(options or {}) do events[k] = v end

	sm.events(path, events, function(ev)
		last = ev.time
		local f = ev.fields
		local dev, sector = f.dev, f.sector
		if math.type(dev) ~= "integer" or math.type(sector) ~= "integer" then return end
		local d = devices[dev]
		if ev.name == "block_rq_issue" then
			if not d then
				d = { name = string.format("block %d:%d", (dev >> 20) & 0xffffffff, dev & 0xfffff),
					slots = {}, busy = 0 }
				devices[dev] = d
			end
			local i = 1
			while d.slots[i] and d.slots[i].busy do i = i + 1 end
			if i > MAX_SLOTS then return end
			local s = d.slots[i]
			if not s then
				s = { entity = d.name .. "/slot " .. (i - 1) }
				d.slots[i] = s
			end
			s.busy, s.sector, s.seq = true, sector, seq
			seq = seq + 1
			d.busy = d.busy + 1
			local comm = type(f.comm) == "string" and f.comm or nil
			-- the count first: a device's in-flight entity comes before
			-- its slots, as in the C analysis
			b:value(ev.time, d.name .. "/in flight", d.busy)
			b:set(ev.time, s.entity, kind(f.rwbs), comm)
		elseif d then
			-- the earliest request still out at that sector
			local best
			for _, s in ipairs(d.slots) do
				if s.busy and s.sector == sector and (not best or s.seq < best.seq) then best = s end
			end
			if not best then return end
			best.busy = false
			d.busy = d.busy - 1
			b:set(ev.time, best.entity, "idle")
			b:value(ev.time, d.name .. "/in flight", d.busy)
		end
	end)
	return b:finish(last)
end

return block
