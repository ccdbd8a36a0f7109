-- make uninstall removes what make install put (with PREFIX and
-- DESTDIR), and the rockspec builds and installs the statemap module
-- with LuaRocks (luarocks make --local in a temporary HOME), which plain
-- lua5.4 then requires. Without luarocks that part is a counted skip.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local unit = require "unit"
local check, check_eq = unit.check, unit.check_eq

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local top = io.popen("cd '" .. here .. "/../..' && pwd"):read("l")

local function run(cmd)
	local p = io.popen("(" .. cmd .. ") 2>&1")
	local out = p:read("a")
	local ok = p:close()
	return ok, out
end

local function lines(text)
	local t = {}
	for l in text:gmatch("[^\n]+") do t[#t + 1] = l end
	return t
end

local tmp = io.popen("mktemp -d"):read("l")

-- Installed, then uninstalled: no file of ours is left, a file of
-- someone else's in the same directories is.
for _, prefix in ipairs({ "/usr/local", "/opt/sm" }) do
	local stage = tmp .. "/stage" .. prefix:gsub("/", "-")
	local vars = ("DESTDIR='%s' PREFIX='%s'"):format(stage, prefix)
	local ok, out = run(("make -s -C '%s' install %s"):format(top, vars))
	check("make install " .. prefix, ok, out)
	local _, files = run(("cd '%s' && find . -type f | wc -l"):format(stage))
	check("... installs files", tonumber(files) > 10, files)
	run(("echo x > '%s%s/bin/other'"):format(stage, prefix))
	ok, out = run(("make -s -C '%s' uninstall %s"):format(top, vars))
	check("make uninstall " .. prefix, ok, out)
	local _, left = run(("cd '%s' && find . -type f | sort"):format(stage))
	check_eq("... leaves none of its files, and the others' (" .. prefix .. ")", lines(left),
	    { "." .. prefix .. "/bin/other" })
	local _, dirs = run(("cd '%s' && find . -name statemap-lua"):format(stage))
	check_eq("... nor share/statemap-lua", lines(dirs), {})
end

-- The rockspec, in a copy of the sources (with the objects built, so
-- that make finds statemap.so up to date), into a temporary HOME.
local rockspec = "statemap-0.1.0-1.rockspec"
if not run("command -v luarocks") then
	unit.skip("rockspec: luarocks make", "luarocks is not installed")
else
	local src, home = tmp .. "/src", tmp .. "/home"
	local ok, out = run(("mkdir -p '%s/build' '%s' && cd '%s' && cp -a Makefile src lua %s '%s/' && "
	    .. "{ [ ! -d build/pic ] || cp -a build/pic build/lua_modules.c build/viewer_assets.c '%s/build/'; } && "
	    .. "{ [ ! -f statemap.so ] || cp -a statemap.so '%s/'; }")
	    :format(src, home, top, rockspec, src, src, src))
	check("rockspec: a copy of the sources", ok, out)
	ok, out = run(("cd '%s' && HOME='%s' luarocks --lua-version 5.4 make --local %s"):format(src, home, rockspec))
	check("rockspec: luarocks make --local", ok and out:find("is now installed", 1, true), out)
	ok, out = run(("cd '%s' && eval \"$(HOME='%s' luarocks --lua-version 5.4 path)\" && lua5.4 -e '"
	    .. "local sm = require \"statemap\"; "
	    .. "print(package.searchpath(\"statemap\", package.cpath):find(\"%s\", 1, true) == 1, "
	    .. "sm.format_ns(sm.duration(\"1.5ms\")), type(sm.load))'"):format(tmp, home, home))
	check_eq("rockspec: lua5.4 requires the installed module", out, "true\t1.500ms\tfunction\n")
	ok, out = run(("cd '%s' && HOME='%s' luarocks --lua-version 5.4 remove --local statemap"):format(src, home))
	check("rockspec: luarocks remove", ok, out)
end

run("rm -rf '" .. tmp .. "'")
