/*
 * lua_json.c: statemap.json.
 *
 * decode turns objects into tables with string keys, arrays into
 * sequences, integers that fit into Lua integers (others into floats) and
 * null into json.null, a unique value (nil cannot be stored in a table).
 * encode writes a table as an array when its keys are exactly 1..n, else
 * as an object with its keys sorted, so the same value always gives the
 * same text; an empty table is an object.
 */
#include "lua/lua_json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "base/json.h"
#include "base/util.h"
#include "lua/lua_args.h"
#include "lua/lua_object.h"

static const char null_sentinel;	/* its address is json.null */

#define NULL_VALUE	((void *)&null_sentinel)

/* ---- decode ---- */

static void
push_value(lua_State *L, const json_value *v)
{
	const json_value *m;
	lua_Integer i;

	luaL_checkstack(L, 3, "JSON nested too deeply");
	switch (v->type) {
	case JSON_NULL:
		lua_pushlightuserdata(L, NULL_VALUE);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		lua_pushboolean(L, v->type == JSON_TRUE);
		break;
	case JSON_STRING:
		lua_pushlstring(L, v->str, v->len);
		break;
	case JSON_NUMBER: {
		char text[64];
		char *end;
		long long n;

		/* Integers that fit stay integers; the rest are floats. */
		if (v->len < sizeof (text) && memchr(v->str, '.', v->len) ==
		    NULL && memchr(v->str, 'e', v->len) == NULL &&
		    memchr(v->str, 'E', v->len) == NULL) {
			memcpy(text, v->str, v->len);
			text[v->len] = '\0';
			errno = 0;
			n = strtoll(text, &end, 10);
			if (errno == 0 && *end == '\0') {
				lua_pushinteger(L, (lua_Integer)n);
				break;
			}
		}
		lua_pushnumber(L, (lua_Number)json_number_double(v));
		break;
	}
	case JSON_ARRAY:
		lua_createtable(L, (int)v->len, 0);
		for (m = v->child, i = 1; m != NULL; m = m->next, i++) {
			push_value(L, m);
			lua_rawseti(L, -2, i);
		}
		break;
	case JSON_OBJECT:
		lua_createtable(L, 0, (int)v->len);
		for (m = v->child; m != NULL; m = m->next) {
			lua_pushlstring(L, m->key, m->key_len);
			push_value(L, m);
			lua_rawset(L, -3);
		}
		break;
	}
}

/* json.decode(text [, name]) -> value; errors say name:line:column */
static int
f_decode(lua_State *L)
{
	size_t len;
	const char *text = luaL_checklstring(L, 1, &len);
	const char *name = lua_isnoneornil(L, 2) ? "json" :
	    lua_args_check_path(L, 2, "json.decode", "the name");
	json_arena *arena = json_arena_new();
	json_error err;
	json_value *v = json_parse_document(arena, text, len, &err);

	if (v == NULL) {
		uint64_t line, col;

		json_arena_free(arena);
		json_line_column(text, err.offset, &line, &col);
		return (luaL_error(L, "%s:%d:%d: %s", name, (int)line,
		    (int)col, err.message));
	}
	/* A Lua error inside push_value would leak the arena: none can
	 * happen but running out of stack, which luaL_checkstack reports
	 * before the depth limit of the parser could be reached. */
	push_value(L, v);
	json_arena_free(arena);
	return (1);
}

void
lua_json_push_members(lua_State *L, const char *members)
{
	json_arena *arena = json_arena_new();
	json_error err;
	size_t len = members != NULL ? strlen(members) : 0;
	char *text = malloc(len + 3);
	json_value *v = NULL;

	if (text != NULL) {
		text[0] = '{';
		if (len > 0)
			memcpy(text + 1, members, len);
		text[len + 1] = '}';
		text[len + 2] = '\0';
		v = json_parse_document(arena, text, len + 2, &err);
	}
	if (v != NULL)
		push_value(L, v);
	else
		lua_newtable(L);
	free(text);
	json_arena_free(arena);
}

void
lua_json_push_members_len(lua_State *L, const char *text, size_t len)
{
	json_arena *arena = json_arena_new();
	json_error err;
	json_value *v;
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	luaL_addchar(&b, '{');
	luaL_addlstring(&b, text, len);
	luaL_addchar(&b, '}');
	luaL_pushresult(&b);
	v = json_parse_document(arena, lua_tostring(L, -1),
	    lua_rawlen(L, -1), &err);
	if (v != NULL && v->type == JSON_OBJECT)
		push_value(L, v);
	else
		lua_newtable(L);
	json_arena_free(arena);
	lua_remove(L, -2);
}

/* ---- encode ---- */

/*
 * Tables met while encoding: JSON has no sharing, so a table reached
 * twice is written twice, and a value that shares tables level after
 * level ({t, t} of {t, t} of ...) would have text exponentially longer
 * than itself.  Writing repeats is fine up to a budget in proportion to
 * the distinct tables met (ENCODE_REPEATS each, and ENCODE_FREE_REPEATS
 * in all); past it the encoding stops with an error, as does a table
 * that contains itself (a cycle), found by the tables on the path.
 */
#define ENCODE_REPEATS		64
#define ENCODE_FREE_REPEATS	100000

typedef struct encoder {
	FILE *out;
	int depth;
	int seen;		/* stack index: table -> 1 on the path, 2 after */
	uint64_t distinct;	/* tables met */
	uint64_t repeats;	/* tables written again */
} encoder;

static int encode_value(lua_State *L, encoder *en, int idx);

/* The keys of the table at idx, sorted, as a new sequence on the stack. */
static int
sorted_keys(lua_State *L, int idx)
{
	lua_Integer n = 0;

	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			return (luaL_error(L, "cannot encode a table with a "
			    "%s key as JSON (object keys are strings)",
			    luaL_typename(L, -1)));
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, ++n);
	}
	lua_getglobal(L, "table");
	lua_getfield(L, -1, "sort");
	lua_remove(L, -2);
	lua_pushvalue(L, -2);
	lua_call(L, 1, 0);
	return ((int)n);
}

/* Whether the table's keys are exactly 1..n with n > 0. */
static int
is_array(lua_State *L, int idx, lua_Integer *n)
{
	lua_Integer count = 0;

	*n = (lua_Integer)lua_rawlen(L, idx);
	if (*n == 0)
		return (0);
	lua_pushnil(L);
	while (lua_next(L, idx) != 0) {
		lua_pop(L, 1);
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
		    lua_tointeger(L, -1) > *n) {
			lua_pop(L, 1);
			return (0);
		}
		count++;
	}
	return (count == *n);
}

static int
encode_table(lua_State *L, encoder *en, int idx)
{
	lua_Integer n, i;

	if (++en->depth > JSON_MAX_DEPTH)
		return (luaL_error(L, "json.encode: tables nested more than "
		    "%d deep", JSON_MAX_DEPTH));
	luaL_checkstack(L, 6, "JSON nested too deeply");
	lua_pushvalue(L, idx);
	switch (lua_rawget(L, en->seen) == LUA_TNIL ? 0 :
	    (int)lua_tointeger(L, -1)) {
	case 1:
		return (luaL_error(L, "json.encode: a table contains itself "
		    "(a cycle), which JSON cannot write"));
	case 2:
		if (++en->repeats > ENCODE_FREE_REPEATS &&
		    en->repeats > ENCODE_REPEATS * en->distinct)
			return (luaL_error(L, "json.encode: %I tables are "
			    "written %I times over, as they are shared; "
			    "the text would grow out of proportion to the "
			    "value (encode a copy that shares less)",
			    (lua_Integer)en->distinct,
			    (lua_Integer)en->repeats));
		break;
	default:
		en->distinct++;
	}
	lua_pop(L, 1);
	lua_pushvalue(L, idx);
	lua_pushinteger(L, 1);
	lua_rawset(L, en->seen);
	if (is_array(L, idx, &n)) {
		fputc('[', en->out);
		for (i = 1; i <= n; i++) {
			if (i > 1)
				fputc(',', en->out);
			lua_rawgeti(L, idx, i);
			encode_value(L, en, lua_gettop(L));
			lua_pop(L, 1);
		}
		fputc(']', en->out);
	} else {
		int keys, nkeys = sorted_keys(L, idx);

		keys = lua_gettop(L);
		fputc('{', en->out);
		for (i = 1; i <= nkeys; i++) {
			size_t len;
			const char *k;

			lua_rawgeti(L, keys, i);
			k = lua_tolstring(L, -1, &len);
			if (i > 1)
				fputc(',', en->out);
			json_write_string(en->out, k, len);
			fputc(':', en->out);
			lua_rawget(L, idx);
			encode_value(L, en, lua_gettop(L));
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
		fputc('}', en->out);
	}
	lua_pushvalue(L, idx);
	lua_pushinteger(L, 2);
	lua_rawset(L, en->seen);
	en->depth--;
	return (0);
}

static int
encode_value(lua_State *L, encoder *en, int idx)
{
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
		fputs("null", en->out);
		return (0);
	case LUA_TLIGHTUSERDATA:
		if (lua_touserdata(L, idx) == NULL_VALUE) {
			fputs("null", en->out);
			return (0);
		}
		break;
	case LUA_TBOOLEAN:
		fputs(lua_toboolean(L, idx) ? "true" : "false", en->out);
		return (0);
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			fprintf(en->out, "%lld",
			    (long long)lua_tointeger(L, idx));
		} else {
			double d = (double)lua_tonumber(L, idx);

			if (!isfinite(d))
				return (luaL_error(L, "cannot encode %f as "
				    "JSON", (lua_Number)d));
			fprintf(en->out, "%.17g", d);
		}
		return (0);
	case LUA_TSTRING: {
		size_t len;
		const char *s = lua_tolstring(L, idx, &len);

		json_write_string(en->out, s, len);
		return (0);
	}
	case LUA_TTABLE:
		return (encode_table(L, en, idx));
	}
	return (luaL_error(L, "cannot encode a %s as JSON",
	    luaL_typename(L, idx)));
}

static int f_encode(lua_State *L);

/*
 * Runs the encoding protected, so the memory stream is always freed;
 * called by f_encode alone, which hands it its encoder.
 */
static int
encode_protected(lua_State *L)
{
	encoder *en = lua_touserdata(L, 2);

	if (!lua_object_called_by(L, f_encode))
		return (luaL_error(L, "json.encode's own function is not a "
		    "script's to call"));
	lua_newtable(L);
	en->seen = lua_gettop(L);
	return (encode_value(L, en, 1));
}

/* json.encode(value) -> text */
static int
f_encode(lua_State *L)
{
	char *buf = NULL;
	size_t size = 0;
	encoder en;
	int status;

	luaL_checkany(L, 1);
	lua_settop(L, 1);
	if ((en.out = open_memstream(&buf, &size)) == NULL)
		return (luaL_error(L, "out of memory"));
	en.depth = 0;
	en.distinct = en.repeats = 0;
	lua_pushcfunction(L, encode_protected);
	lua_pushvalue(L, 1);
	lua_pushlightuserdata(L, &en);
	status = lua_pcall(L, 2, 0, 0);
	fclose(en.out);
	if (status != LUA_OK) {
		free(buf);
		return (lua_error(L));
	}
	lua_pushlstring(L, buf, size);
	free(buf);
	return (1);
}

char *
lua_json_encode(lua_State *L, int idx, size_t *len)
{
	const char *s;
	char *text;

	idx = lua_absindex(L, idx);
	lua_pushcfunction(L, f_encode);
	lua_pushvalue(L, idx);
	lua_call(L, 1, 1);
	s = lua_tolstring(L, -1, len);
	text = xstrndup(s, *len);
	lua_pop(L, 1);
	return (text);
}

const luaL_Reg lua_json_functions[] = {
	{ "decode", f_decode },
	{ "encode", f_encode },
	{ NULL, NULL }
};

void
lua_json_push_null(lua_State *L)
{
	lua_pushlightuserdata(L, NULL_VALUE);
}
