-- Tests for lua/report.lua (embedded as statemap.report).
local report = require "statemap.report"
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq, check_error = unit.check, unit.check_eq, unit.check_error

check_eq("percent", report.percent(0.125), "12.5%")
check_eq("percent of nothing", report.percent(0 / 0), "-")
check_eq("table aligns text left and numbers right", report.table({
	{ "cpu0", 1500000, 0.25 },
	{ "cpu10", 20, 0.5 },
}, { { "entity" }, { "on-cpu", "duration" }, { "share", "percent" } }),
table.concat({
	"entity   on-cpu  share",
	"------  -------  -----",
	"cpu0    1.500ms  25.0%",
	"cpu10      20ns  50.0%",
}, "\n"))
check_eq("table counts UTF-8 characters, not bytes", report.table(
    { { "é", 1 } }, { { "n" }, { "v", "number" } }),
    "n  v\n-  -\né  1")
local ok, err = pcall(report.table, {}, { { "x", "bogus" } })
check("table rejects an unknown format", not ok and
    err:find("unknown column format \"bogus\"", 1, true) ~= nil, err)
check("modules load from the embedded copy",
    debug.getinfo(report.table, "S").source == "@lua/report.lua",
    debug.getinfo(report.table, "S").source)
