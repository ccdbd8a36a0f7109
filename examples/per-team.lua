-- per-team.lua: a custom layout.  Threads are put in teams by what their
-- description says they do, each team in its own panel sorted by its own
-- measure, with a colour-blind-safe palette, and a summary panel with one
-- row per team (busy when any of its threads is); written as a PDF.
--
--   statemap-lua examples/per-team.lua THREADS-TRACE OUT.pdf
local sm = require "statemap"
local palette = require "statemap.palette"
local report = require "statemap.report"

local path, out = arg[1], arg[2]
if not path or not out then
	io.stderr:write("usage: statemap-lua per-team.lua THREADS-TRACE OUT.pdf\n")
	os.exit(2)
end

-- Which team a thread is on, from its description.
local function team(e)
	local d = e.description or ""
	if d:find("client backend", 1, true) then return "clients" end
	if d:find("parallel worker", 1, true) then return "parallel workers" end
	return "background"
end
-- Each team is sorted by what matters for it.
local sort_by = { clients = "on-cpu", ["parallel workers"] = "on-cpu", background = "off-cpu-io" }

local t = palette.apply(sm.load(path), "okabe_ito")
local teams = t:group(team, { "on-cpu", "off-cpu-io", "off-cpu-blocked", "off-cpu-futex",
    "off-cpu-waiting", "off-cpu-dead" })

local panels, rows = {}, {}
for _, name in ipairs({ "clients", "parallel workers", "background" }) do
	local members = t:keep(function(e) return team(e) == name end)
	local on = teams:entity(name):time_in()["on-cpu"]
	rows[#rows + 1] = { name, #members:entities(), on, on / (t.finish - t.begin) }
	panels[#panels + 1] = { trace = members, title = name .. " (by " .. sort_by[name] .. ")",
	    entities = members:sorted(sort_by[name]), row_height = 12 }
end
panels[#panels + 1] = { trace = teams, title = "teams: busy when any thread is", row_height = 16,
    events = false }
print(report.table(rows, { { "team" }, { "threads", "number" }, { "any on-cpu", "duration" },
    { "of trace", "percent" } }))
sm.render{ output = out, title = "PostgreSQL threads by team", width = 1400,
    font = "sans-serif", font_size = 10, panels = panels }
print("wrote " .. out)
