-- The statemap Lua module (statemap.so) as a LuaRocks rock, for Lua 5.4:
--   luarocks --lua-version 5.4 make --local statemap-0.1.0-1.rockspec
-- builds it with the Makefile (its C dependencies from Debian's -dev
-- packages through pkg-config, as README.md lists them) and installs it
-- where that Lua's require "statemap" finds it.  tests/golden/rockspec
-- runs exactly that.
rockspec_format = "3.0"
package = "statemap"
version = "0.1.0-1"
-- luarocks make builds from the checkout it runs in and fetches nothing:
-- the address is a placeholder until the project has a published one.
source = {
	url = "git+https://example.invalid/statemap-lua.git",
	tag = "v0.1.0",
}
description = {
	summary = "Load, query, derive and draw statemaps from Lua",
	detailed = [[
The statemap module of statemap-lua: load traces in the statemap
instrumentation format, query them (time in states, intervals, counts),
derive new traces, and draw them as PNG, SVG or PDF.]],
}
dependencies = {
	"lua >= 5.4, < 5.5",
}
build = {
	type = "make",
	-- statemap.so alone: the program and the man pages are make install's.
	build_target = "statemap.so",
	-- The Makefile's own CFLAGS (pkg-config) are kept: none passed.
	build_variables = {},
	install_target = "install-module",
	install_variables = {
		LUA_CMOD = "$(LIBDIR)",
	},
}
