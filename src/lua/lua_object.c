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

/*
 * The head of the value at idx if it is a full userdata with room for
 * one, else NULL: only then may its tag be read, and it is only compared,
 * never followed (a userdata another library made holds anything there).
 */
static lua_object_head *
head_at(lua_State *L, int idx)
{
	lua_object_head *o = lua_touserdata(L, idx);

	/* A light userdata's length is 0. */
	if (o == NULL || lua_rawlen(L, idx) < sizeof (lua_object_head))
		return (NULL);
	return (o);
}

/*
 * The object at idx if it was made as type `name` and still has its
 * metatable (as luaL_checkudata asks, compared with the one it was made
 * with rather than looked up by name: the registry is the debug
 * library's to change too, and the lookup would cost more than the rest).
 */
static lua_object_head *
object_at(lua_State *L, int idx, const char *name)
{
	lua_object_head *o = head_at(L, idx);
	int same;

	if (o == NULL || o->type != name || !lua_getmetatable(L, idx))
		return (NULL);
	same = lua_topointer(L, -1) == o->mt;
	lua_pop(L, 1);
	return (same ? o : NULL);
}

/*
 * Pushes "statemap.trace expected, got statemap.series" for the value at
 * idx, and returns it.  What it got is what it was made as, if it is one
 * of the module's objects (lua_object_class keeps each type's metatable
 * under its tag), and then the type whose metatable it was given, if that
 * is another; a userdata the module did not make that wears one of its
 * metatables is called a userdata.
 */
static const char *
push_mismatch(lua_State *L, int idx, const char *name)
{
	lua_object_head *o = head_at(L, idx);
	const char *looks = NULL, *made = NULL;

	idx = lua_absindex(L, idx);
	if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL)
		looks = lua_tostring(L, -1);
	if (o != NULL && lua_rawgetp(L, LUA_REGISTRYINDEX, o->type) ==
	    LUA_TTABLE && lua_getfield(L, -1, "__name") == LUA_TSTRING)
		made = lua_tostring(L, -1);
	else if (looks != NULL && strncmp(looks, "statemap.", 9) == 0)
		made = "userdata";
	if (made == NULL)
		return (lua_pushfstring(L, "%s expected, got %s", name,
		    looks != NULL ? looks : luaL_typename(L, idx)));
	if (looks != NULL && strcmp(looks, made) != 0)
		return (lua_pushfstring(L, "%s expected, got %s with the "
		    "metatable of %s", name, made, looks));
	return (lua_pushfstring(L, "%s expected, got %s", name, made));
}

/*
 * A method is found whatever the object (it checks the object itself);
 * a field's getter is called only with an object of this type, so that
 * the error about one of another type names the field.
 */
static int
object_index(lua_State *L)
{
	const char *name = lua_touserdata(L, lua_upvalueindex(3));
	lua_object_head *o;

	lua_settop(L, 2);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return (1);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TFUNCTION)
		return (0);
	if ((o = head_at(L, 1)) == NULL || o->type != name)
		return (luaL_error(L, "bad object for field '%s' (%s)",
		    lua_tostring(L, 2), push_mismatch(L, 1, name)));
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
	/* Under its tag too, for what lua_object_finalizing and errors
	 * need to know of an object's own type. */
	lua_pushvalue(L, -1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, name);
	luaL_setfuncs(L, metamethods, 0);
	lua_newtable(L);
	for (i = 0; methods[i] != NULL; i++)
		luaL_setfuncs(L, methods[i], 0);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, "methods");
	lua_newtable(L);
	for (i = 0; fields[i] != NULL; i++)
		luaL_setfuncs(L, fields[i], 0);
	lua_pushlightuserdata(L, (void *)name);
	lua_pushcclosure(L, object_index, 3);
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
	lua_object_head *o = lua_newuserdatauv(L, size, nuvalue);

	memset(o, 0, size);
	o->type = name;
	luaL_getmetatable(L, name);
	o->mt = lua_topointer(L, -1);
	lua_setmetatable(L, -2);
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
	lua_object_head *o = object_at(L, idx, name);
	lua_Debug ar;

	if (o != NULL)
		return (alive(L, o, name));
	/*
	 * A metamethod that C calls (__tostring, by tostring) has no name of
	 * its own: the error names the function that called it.
	 */
	if (idx > 0 && lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) &&
	    ar.name == NULL && lua_getstack(L, 1, &ar) &&
	    lua_getinfo(L, "n", &ar) && ar.name != NULL)
		luaL_error(L, "bad argument #%d to '%s' (%s)", idx, ar.name,
		    push_mismatch(L, idx, name));
	if (idx > 0)
		luaL_argerror(L, idx, push_mismatch(L, idx, name));
	/* An object kept by the function (an iterator's upvalue) or by
	 * another object (a user value): it is no argument. */
	push_mismatch(L, idx, name);
	luaL_error(L, "bad object kept by '%s' (%s)", lua_getstack(L, 0, &ar) &&
	    lua_getinfo(L, "n", &ar) && ar.name != NULL ? ar.name : "?",
	    lua_tostring(L, -1));
	return (NULL);
}

void *
lua_object_test(lua_State *L, int idx, const char *name)
{
	return (alive(L, object_at(L, idx, name), name));
}

/*
 * The collector calls the __gc of the metatable an object has when it
 * goes, which need not be its own type's.  Its own type's is called
 * directly, not through lua_call, so that it too runs as the collector's
 * call (see lua_trace.c, which refuses to finalize a trace by hand).
 */
void *
lua_object_finalizing(lua_State *L, const char *name)
{
	lua_object_head *o = head_at(L, 1);
	lua_CFunction gc;

	if (o == NULL || o->finalized)
		return (NULL);
	if (o->type == name)
		return (o);
	if (lua_gettop(L) != 1)
		return (NULL);
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, o->type) == LUA_TTABLE &&
	    lua_getfield(L, -1, "__gc") != LUA_TNIL &&
	    (gc = lua_tocfunction(L, -1)) != NULL) {
		/* Two values: a finalizer that finds another type's object
		 * here does not pass it on (nor round in a circle). */
		lua_settop(L, 2);
		gc(L);
	}
	return (NULL);
}

int
lua_object_called_by(lua_State *L, lua_CFunction caller)
{
	lua_Debug ar;
	lua_CFunction f;

	if (!lua_getstack(L, 1, &ar))
		return (caller == NULL);
	if (caller == NULL || !lua_getinfo(L, "f", &ar))
		return (0);
	f = lua_tocfunction(L, -1);
	lua_pop(L, 1);
	return (f == caller);
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
