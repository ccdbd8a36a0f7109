-- tests/kernel/ctf.lua: writes a small CTF 1.8 trace laid out as LTTng
-- lays out its kernel traces (a stream file per CPU, whose packet context
-- says its cpu_id; events named and shaped as lttng-modules names them,
-- comm fields as 16-byte UTF-8 arrays named with a leading underscore),
-- for the tests of the CTF reader: this machine has babeltrace2 but no
-- LTTng to record one.
local ctf = {}

local metadata = [[
/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := utf8_t;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
	};
};

env {
	domain = "kernel";
	tracer_name = "lttng-modules";
};

clock {
	name = "monotonic";
	freq = 1000000000;
	offset_s = 100;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clock_t;

stream {
	id = 0;
	packet.context := struct {
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t cpu_id;
	};
	event.header := struct {
		uint32_t id;
		clock_t timestamp;
	};
};

event { name = "sched_switch"; id = 0; stream_id = 0; fields := struct {
	utf8_t _prev_comm[16]; int32_t _prev_tid; int32_t _prev_prio; int64_t _prev_state;
	utf8_t _next_comm[16]; int32_t _next_tid; int32_t _next_prio; }; };
event { name = "sched_waking"; id = 1; stream_id = 0; fields := struct {
	utf8_t _comm[16]; int32_t _tid; int32_t _prio; int32_t _target_cpu; }; };
event { name = "lttng_statedump_process_state"; id = 2; stream_id = 0; fields := struct {
	int32_t _tid; int32_t _vtid; int32_t _pid; int32_t _vpid; int32_t _ppid; int32_t _vppid;
	utf8_t _name[16]; int32_t _type; int32_t _mode; int32_t _submode; int32_t _status; uint32_t _cpu; }; };
event { name = "irq_handler_entry"; id = 3; stream_id = 0; fields := struct {
	int32_t _irq; string _name; }; };
event { name = "irq_handler_exit"; id = 4; stream_id = 0; fields := struct {
	int32_t _irq; int32_t _ret; }; };
]]

local shapes = {
	sched_switch = { 0, "c16 i4 i4 i8 c16 i4 i4",
		{ "prev_comm", "prev_tid", "prev_prio", "prev_state", "next_comm", "next_tid", "next_prio" } },
	sched_waking = { 1, "c16 i4 i4 i4", { "comm", "tid", "prio", "target_cpu" } },
	lttng_statedump_process_state = { 2, "i4 i4 i4 i4 i4 i4 c16 i4 i4 i4 i4 I4",
		{ "tid", "tid", "pid", "pid", "ppid", "ppid", "name", "type", "mode", "submode", "status", "cpu" } },
	irq_handler_entry = { 3, "i4 z", { "irq", "name" } },
	irq_handler_exit = { 4, "i4 i4", { "irq", "ret" } },
}

--- Writes the trace into dir (made if absent): events is a list of
--- {time = ns since the clock's origin, cpu =, name =, f = {field =
--- value}} in time order (fields not given are 0 or empty); each CPU's events go to a stream file of its own.
function ctf.write(dir, events)
	os.execute("mkdir -p '" .. dir .. "'")
	local f = assert(io.open(dir .. "/metadata", "wb"))
	f:write(metadata)
	f:close()
	local by_cpu = {}
	for _, e in ipairs(events) do
		local shape = assert(shapes[e.name], e.name)
		local payload = {}
		local fmt = {}
		for w in shape[2]:gmatch("%S+") do fmt[#fmt + 1] = w end
		for i, w in ipairs(fmt) do
			local v = e.f[shape[3][i]]
			if v == nil then v = (w == "c16" or w == "z") and "" or 0 end
			payload[#payload + 1] = string.pack("<" .. w, v)
		end
		local list = by_cpu[e.cpu] or {}
		by_cpu[e.cpu] = list
		list[#list + 1] = string.pack("<I4I8", shape[1], e.time) .. table.concat(payload)
	end
	for cpu, list in pairs(by_cpu) do
		local body = table.concat(list)
		local size = (4 + 4 + 8 + 8 + 4 + #body) * 8
		local s = assert(io.open(dir .. "/channel0_" .. cpu, "wb"))
		s:write(string.pack("<I4I4I8I8I4", 0xC1FC1FC1, 0, size, size, cpu), body)
		s:close()
	end
end

return ctf
