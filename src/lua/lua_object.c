/*
 * lua_object.c: the object types' metatables, the one check of a live
 * object, and C memory held by userdata.
 */
#include "lua/lua_object.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "base/runlimit.h"

static int
object_index(lua_State *L)
{
	lua_settop(L, 2);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return (1);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TFUNCTION)
		return (0);
	lua_pushvalue(L, 1);
	lua_call(L, 1, 1);
	return (1);
}

void
lua_object_class(lua_State *L, const char *name,
    const luaL_Reg *const *methods, const luaL_Reg *const *fields,
    const luaL_Reg *metamethods)
{
	size_t i;

	luaL_newmetatable(L, name);
	luaL_setfuncs(L, metamethods, 0);
	lua_newtable(L);
	for (i = 0; methods[i] != NULL; i++)
		luaL_setfuncs(L, methods[i], 0);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, "methods");
	lua_newtable(L);
	for (i = 0; fields[i] != NULL; i++)
		luaL_setfuncs(L, fields[i], 0);
	lua_pushcclosure(L, object_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
}

void
lua_object_sequence_class(lua_State *L, const char *name,
    const luaL_Reg *methods, lua_CFunction index,
    const luaL_Reg *metamethods)
{
	static const luaL_Reg none[] = { { NULL, NULL } };
	const luaL_Reg *all[] = { methods, NULL };
	const luaL_Reg *no_fields[] = { none, NULL };

	lua_object_class(L, name, all, no_fields, metamethods);
	luaL_getmetatable(L, name);
	lua_getfield(L, -1, "methods");
	lua_pushcclosure(L, index, 1);
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
}

void *
lua_object_new(lua_State *L, const char *name, size_t size, int nuvalue)
{
	void *o = lua_newuserdatauv(L, size, nuvalue);

	memset(o, 0, size);
	luaL_setmetatable(L, name);
	return (o);
}

/*
 * "this trace object was finalized": the type as scripts know it, less
 * the module's prefix that every type's name has.
 */
static void *
alive(lua_State *L, lua_object_head *o, const char *name)
{
	if (o != NULL && o->finalized) {
		const char *type = strncmp(name, "statemap.", 9) == 0 ?
		    name + 9 : name;

		luaL_error(L, "this %s object was finalized (garbage "
		    "collected): it can no longer be used", type);
	}
	return (o);
}

void *
lua_object_check(lua_State *L, int idx, const char *name)
{
	return (alive(L, luaL_checkudata(L, idx, name), name));
}

void *
lua_object_test(lua_State *L, int idx, const char *name)
{
	return (alive(L, luaL_testudata(L, idx, name), name));
}

/*
 * A script that derives object after object and drops them gets them
 * collected at the pace their size calls for, not only when Lua's own
 * heap has grown; the memory also counts against --memory-limit for as
 * long as the object lives.
 */
void
lua_object_charge(lua_State *L, size_t bytes)
{
	size_t kb = bytes / 1024;
	const char *why;

	runlimit_charge(bytes);
	if (kb > 0)
		lua_gc(L, LUA_GCSTEP, kb > INT_MAX ? INT_MAX : (int)kb);
	if (runlimit_check(0, &why) != 0)
		luaL_error(L, "%s", why);
}

/*
 * Memory a binding needs while it works lives in userdata, so a Lua error
 * on the way (a bad argument, a script's callback raising) leaves nothing
 * behind: the collector takes it.
 */
void *
lua_object_scratch(lua_State *L, size_t n, size_t size)
{
	void *p = lua_newuserdatauv(L, (n + 1) * size, 0);

	memset(p, 0, (n + 1) * size);
	return (p);
}

/*
 * Quotes, backslashes and control characters (a terminal's escape
 * sequences among them) are escaped as Lua would write them, so that
 * printing a trace's names can never drive the terminal.
 */
void
lua_object_push_quoted(lua_State *L, const char *s, size_t len)
{
	luaL_Buffer b;
	size_t i;

	luaL_buffinit(L, &b);
	luaL_addchar(&b, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			luaL_addchar(&b, '\\');
			luaL_addchar(&b, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			char esc[8];

			snprintf(esc, sizeof (esc), "\\%03u", c);
			luaL_addstring(&b, esc);
		} else {
			luaL_addchar(&b, (char)c);
		}
	}
	luaL_addchar(&b, '"');
	luaL_pushresult(&b);
}

size_t
lua_object_index(lua_State *L, int idx, size_t n, const char *what)
{
	int exact;
	lua_Integer i = lua_tointegerx(L, idx, &exact);

	if (!exact)
		luaL_typeerror(L, idx, what);
	if (i < 1 || (lua_Unsigned)i > n)
		return (SIZE_MAX);
	return ((size_t)i - 1);
}
