/*
 * lua_options.c: the readers of option tables, and every error about an
 * option's value or an option a function does not take.
 */
#include "lua/lua_options.h"

#include <string.h>

#include "lua/lua_args.h"

void
lua_options_init(lua_options *o, lua_State *L, int idx, const char *fname,
    const lua_option *keys)
{
	o->L = L;
	o->idx = 0;
	o->fname = fname;
	o->keys = keys;
	o->keep = 0;
	if (!lua_isnoneornil(L, idx)) {
		luaL_checktype(L, idx, LUA_TTABLE);
		o->idx = lua_absindex(L, idx);
	}
}

void
lua_options_keep(lua_options *o)
{
	lua_newtable(o->L);
	o->keep = lua_gettop(o->L);
}

/*
 * The declaration of key; asking for one the function did not declare
 * is a mistake of the binding's.  The key is most often the very string
 * of the declaration (one literal in one file): that is looked for
 * first, for the bulk queries' sake.
 */
static const lua_option *
declared(const lua_options *o, const char *key, lua_option_kind kind)
{
	const lua_option *k;

	for (k = o->keys; k->key != NULL && k->key != key; k++)
		continue;
	if (k->key == NULL) {
		for (k = o->keys; k->key != NULL; k++) {
			if (strcmp(k->key, key) == 0)
				break;
		}
	}
	if (k->key == NULL || k->kind != kind)
		luaL_error(o->L, "%s: option %s is read but not declared as "
		    "such", o->fname, key);
	return (k);
}

/* ---- errors ---- */

/* Pushes what key takes, as its errors say it. */
static void
push_wanted(lua_State *L, const lua_option *k)
{
	luaL_Buffer b;
	size_t i;

	switch (k->kind) {
	case LUA_OPTION_BOOLEAN:
		lua_pushliteral(L, "true or false");
		break;
	case LUA_OPTION_INTEGER:
		lua_pushfstring(L, "an integer from %I to %I", k->min, k->max);
		break;
	case LUA_OPTION_STRING:
		lua_pushliteral(L, "a string");
		break;
	case LUA_OPTION_PATH:
		lua_pushliteral(L, "a file name");
		break;
	case LUA_OPTION_TIME:
		lua_pushliteral(L, "a time: ns as a non-negative integer, or "
		    "a string like \"1.5s\"");
		break;
	case LUA_OPTION_CHOICE:
		luaL_buffinit(L, &b);
		for (i = 0; k->names[i] != NULL; i++) {
			if (i > 0)
				luaL_addstring(&b, k->names[i + 1] != NULL ?
				    ", " : " or ");
			luaL_addchar(&b, '"');
			luaL_addstring(&b, k->names[i]);
			luaL_addchar(&b, '"');
		}
		luaL_pushresult(&b);
		break;
	case LUA_OPTION_COLOR:
		lua_pushliteral(L, "a colour (#rrggbb, #rgb or a CSS name)");
		break;
	default:
		lua_pushstring(L, k->what);
		break;
	}
}

/* Pushes the value at idx as errors show it: a string quoted, a number
 * or a boolean as Lua writes it, else its type ("a table"). */
static void
push_shown(lua_State *L, int idx)
{
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		lua_pushfstring(L, "\"%s\"", lua_tostring(L, idx));
		break;
	case LUA_TNUMBER:
	case LUA_TBOOLEAN:
		luaL_tolstring(L, idx, NULL);
		break;
	default:
		lua_pushfstring(L, "a %s", luaL_typename(L, idx));
		break;
	}
}

/* "render: width must be an integer from 1 to 32767, not 0" */
static int
refuse(const lua_options *o, const lua_option *k, int idx)
{
	lua_State *L = o->L;

	idx = lua_absindex(L, idx);
	push_wanted(L, k);
	push_shown(L, idx);
	return (luaL_error(L, "%s: %s must be %s, not %s", o->fname, k->key,
	    lua_tostring(L, -2), lua_tostring(L, -1)));
}

int
lua_options_refuse(const lua_options *o, const char *key, int idx)
{
	return (refuse(o, declared(o, key, LUA_OPTION_OTHER), idx));
}

void
lua_options_check_keys(const lua_options *o)
{
	lua_State *L = o->L;
	const lua_option *k;
	luaL_Buffer b;

	if (o->idx == 0)
		return;
	lua_pushnil(L);
	while (lua_next(L, o->idx) != 0) {
		const char *key;

		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			continue;
		key = lua_tostring(L, -1);
		for (k = o->keys; k->key != NULL; k++) {
			if (strcmp(key, k->key) == 0)
				break;
		}
		if (k->key != NULL)
			continue;
		luaL_buffinit(L, &b);
		for (k = o->keys; k->key != NULL; k++) {
			if (k != o->keys)
				luaL_addstring(&b, ", ");
			luaL_addstring(&b, k->key);
		}
		luaL_pushresult(&b);
		luaL_error(L, "%s: unknown option \"%s\" (options are %s)",
		    o->fname, key, lua_tostring(L, -1));
	}
}

/* ---- readers ---- */

/* Pushes the value of key; 0 (and nothing pushed) if it is absent. */
static int
field(const lua_options *o, const char *key)
{
	if (o->idx == 0)
		return (0);
	if (lua_getfield(o->L, o->idx, key) != LUA_TNIL)
		return (1);
	lua_pop(o->L, 1);
	return (0);
}

int
lua_options_boolean(const lua_options *o, const char *key, int *v)
{
	declared(o, key, LUA_OPTION_BOOLEAN);
	if (!field(o, key))
		return (0);
	*v = lua_toboolean(o->L, -1);
	lua_pop(o->L, 1);
	return (1);
}

/* An integer, or a float with an integral value (1e9), within range. */
int
lua_options_integer(const lua_options *o, const char *key, lua_Integer *v)
{
	const lua_option *k = declared(o, key, LUA_OPTION_INTEGER);
	lua_Integer n = 0;
	int exact = 0;

	if (!field(o, key))
		return (0);
	if (lua_type(o->L, -1) == LUA_TNUMBER)
		n = lua_tointegerx(o->L, -1, &exact);
	if (!exact || n < k->min || n > k->max)
		refuse(o, k, -1);
	*v = n;
	lua_pop(o->L, 1);
	return (1);
}

int
lua_options_string(const lua_options *o, const char *key, const char **v,
    size_t *len)
{
	const lua_option *k = declared(o, key, LUA_OPTION_STRING);

	if (!field(o, key))
		return (0);
	if (lua_type(o->L, -1) != LUA_TSTRING)
		refuse(o, k, -1);
	if (o->keep != 0) {
		lua_pushvalue(o->L, -1);
		lua_rawseti(o->L, o->keep, (lua_Integer)lua_rawlen(o->L,
		    o->keep) + 1);
	}
	*v = lua_tolstring(o->L, -1, len);
	lua_pop(o->L, 1);
	return (1);
}

/* As a string, and then as lua_args_check_path reads a path. */
int
lua_options_path(const lua_options *o, const char *key, const char **v)
{
	const lua_option *k = declared(o, key, LUA_OPTION_PATH);

	if (!field(o, key))
		return (0);
	if (lua_type(o->L, -1) != LUA_TSTRING)
		refuse(o, k, -1);
	lua_args_check_path(o->L, -1, o->fname, key);
	if (o->keep != 0) {
		lua_pushvalue(o->L, -1);
		lua_rawseti(o->L, o->keep, (lua_Integer)lua_rawlen(o->L,
		    o->keep) + 1);
	}
	*v = lua_tostring(o->L, -1);
	lua_pop(o->L, 1);
	return (1);
}

int
lua_options_time(const lua_options *o, const char *key, uint64_t *v)
{
	const lua_option *k = declared(o, key, LUA_OPTION_TIME);
	const char *why;

	if (!field(o, key))
		return (0);
	if (lua_args_time(o->L, -1, v, &why) != 0) {
		if (why == NULL)
			refuse(o, k, -1);
		luaL_error(o->L, "%s: %s: bad time \"%s\": %s", o->fname, key,
		    lua_tostring(o->L, -1), why);
	}
	lua_pop(o->L, 1);
	return (1);
}

int
lua_options_color(const lua_options *o, const char *key, color *v)
{
	const lua_option *k = declared(o, key, LUA_OPTION_COLOR);
	const char *s;
	size_t len;

	if (!field(o, key))
		return (0);
	if (lua_type(o->L, -1) != LUA_TSTRING)
		refuse(o, k, -1);
	s = lua_tolstring(o->L, -1, &len);
	if (!color_parse(s, len, v))
		refuse(o, k, -1);
	lua_pop(o->L, 1);
	return (1);
}

int
lua_options_choice(const lua_options *o, const char *key, int *v)
{
	const lua_option *k = declared(o, key, LUA_OPTION_CHOICE);
	int i;

	if (!field(o, key))
		return (0);
	for (i = 0; lua_type(o->L, -1) == LUA_TSTRING &&
	    k->names[i] != NULL; i++) {
		if (strcmp(lua_tostring(o->L, -1), k->names[i]) == 0) {
			*v = i;
			lua_pop(o->L, 1);
			return (1);
		}
	}
	return (refuse(o, k, -1));
}

int
lua_options_table(const lua_options *o, const char *key)
{
	const lua_option *k = declared(o, key, LUA_OPTION_TABLE);

	if (!field(o, key))
		return (0);
	if (!lua_istable(o->L, -1))
		refuse(o, k, -1);
	return (1);
}

int
lua_options_function(const lua_options *o, const char *key)
{
	const lua_option *k = declared(o, key, LUA_OPTION_FUNCTION);

	if (!field(o, key))
		return (0);
	if (!lua_isfunction(o->L, -1))
		refuse(o, k, -1);
	return (1);
}

int
lua_options_get(const lua_options *o, const char *key)
{
	declared(o, key, LUA_OPTION_OTHER);
	if (!field(o, key)) {
		lua_pushnil(o->L);
		return (LUA_TNIL);
	}
	return (lua_type(o->L, -1));
}
