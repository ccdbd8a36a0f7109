#include "cli/palette_load.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <string.h>

#include "base/util.h"
#include "lua/lua_statemap.h"

/*
 * (name, extra) -> the palette's colours then extra automatic ones, or
 * nil and the names of the palettes there are.
 */
static const char palette_chunk[] =
    "local name, extra = ...\n"
    "local p = require 'statemap.palette'\n"
    "if type(p[name]) ~= 'table' then\n"
    "  local names = {}\n"
    "  for k, v in pairs(p) do\n"
    "    if type(v) == 'table' then names[#names + 1] = k end\n"
    "  end\n"
    "  table.sort(names)\n"
    "  return nil, table.concat(names, ', ')\n"
    "end\n"
    "local out = {}\n"
    "for _, c in ipairs(p[name]) do out[#out + 1] = c end\n"
    "local named = #out\n"
    "for _, c in ipairs(p.auto(extra)) do out[#out + 1] = c end\n"
    "return out, named\n";

int
palette_option_load(const char *name, palette_option *p, sm_error *err)
{
	lua_State *L = luaL_newstate();
	size_t i, n;
	int rv = -1;

	memset(p, 0, sizeof (*p));
	if (L == NULL) {
		error_set(err, "--palette: cannot create a Lua state");
		return (-1);
	}
	luaL_openlibs(L);
	luaL_requiref(L, "statemap", luaopen_statemap, 1);
	lua_pop(L, 1);
	if (luaL_loadbufferx(L, palette_chunk, sizeof (palette_chunk) - 1,
	    "=palette", "t") != LUA_OK) {
		error_set(err, "--palette: %s", lua_tostring(L, -1));
		goto out;
	}
	lua_pushstring(L, name);
	lua_pushinteger(L, PALETTE_OPTION_EXTRA);
	if (lua_pcall(L, 2, 2, 0) != LUA_OK) {
		error_set(err, "--palette: %s", lua_tostring(L, -1));
		goto out;
	}
	if (lua_isnil(L, -2)) {
		error_set(err, "--palette: no palette \"%s\" (there are %s)",
		    name, lua_tostring(L, -1));
		goto out;
	}
	n = (size_t)luaL_len(L, -2);
	p->colors = xcalloc(n + 1, sizeof (color));
	p->named = (size_t)lua_tointeger(L, -1);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *s;

		lua_rawgeti(L, -2, (lua_Integer)i + 1);
		s = lua_tolstring(L, -1, &len);
		if (s == NULL || !color_parse(s, len, &p->colors[i])) {
			error_set(err, "--palette: palette \"%s\" has a colour "
			    "that is not one", name);
			palette_option_free(p);
			goto out;
		}
		lua_pop(L, 1);
	}
	p->n = n;
	rv = 0;
out:
	lua_close(L);
	return (rv);
}

