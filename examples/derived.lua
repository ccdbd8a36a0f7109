-- derived.lua: new states from old ones.  Every off-CPU state of a thread
-- trace merges into "off-cpu" (I/O kept apart: it is what we look for),
-- and a counting entity shows how many threads are on a CPU at once.
--
--   statemap-lua examples/derived.lua THREADS-TRACE OUT.png|OUT.pdf|OUT.svg
local sm = require "statemap"
local report = require "statemap.report"

local path, out = arg[1], arg[2]
if not path or not out then
	io.stderr:write("usage: statemap-lua derived.lua THREADS-TRACE OUT.png|OUT.pdf|OUT.svg\n")
	os.exit(2)
end

local t = sm.load(path)
local simple = t:map(function(state)
	if state == "off-cpu-io" then return "io" end
	if state:match("^off%-cpu") then return "off-cpu" end
end):recolor{ ["off-cpu"] = "#eeeeee", io = "#ffc300" }

local busy = t:count({ "on-cpu" }, "threads on CPU")
local stats = busy:entity("threads on CPU"):stats()
print(("threads on CPU: min %d, max %d, mean %.2f"):format(
    tonumber(stats.min), tonumber(stats.max), stats.mean))

local times, rows = simple:time_in(), {}
for _, s in ipairs(simple.states) do rows[#rows + 1] = { s.name, times[s.name] } end
print(report.table(rows, { { "merged state" }, { "time", "duration" } }))

-- When were the most threads on a CPU?
local peak
for _, p in ipairs(t:count_series({ "on-cpu" })) do
	if not peak or p.count > peak.count then peak = p end
end
print(("first peak: %d threads at %s"):format(peak.count, sm.format_ns(peak.time)))

sm.render{ output = out, title = (t.title or path) .. ": merged states",
    panels = {
	{ trace = simple, entities = simple:sorted("on-cpu"), title = "threads, off-CPU states merged" },
	{ trace = busy, title = "threads on CPU (darker: more)", row_height = 24 },
    } }
