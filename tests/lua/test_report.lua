-- Tests for lua/report.lua (embedded as statemap.report).
local report = require "statemap.report"

local function check(name, cond, detail)
	print((cond and "PASS " or "FAIL ") .. name ..
	    ((not cond and detail) and (": " .. detail) or ""))
end

local function check_eq(name, got, want)
	check(name, got == want, ("got\n%s\nwant\n%s"):format(tostring(got),
	    tostring(want)))
end

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
