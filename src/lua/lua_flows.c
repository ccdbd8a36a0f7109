/*
 * lua_flows.c: the messages of a trace for scripts: t:flows{...} (an
 * iterator over matched messages and the ones that matched nothing) and
 * t:align{...} (latencies and clock offsets between nodes).  The work is
 * in flows.c; here are the arguments and the tables.
 */
#include "lua/lua_flows.h"

#include <math.h>
#include <string.h>

#include <lauxlib.h>

#include "lua/lua_json.h"
#include "lua/lua_object.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "trace/flows.h"

/* ---- nodes ---- */

/*
 * The nodes named by a function opts.node of an entity's name (nil: the
 * default rule), for flows_match: fills the arrays (scratch on the
 * stack) and leaves on the stack a table holding the names, so that
 * the pointers stay valid; or leaves nil and sets the arrays to NULL.
 */
static void
push_nodes(lua_State *L, const trace *d, const lua_options *opts,
    const char ***ent, size_t **ent_len, const char ***ev, size_t **ev_len)
{
	const catalog *cat = d->cat;
	uint32_t nent = catalog_nentities(cat);
	uint32_t nev = intern_count(cat->event_entities), k;
	int fn, names;

	*ent = *ev = NULL;
	*ent_len = *ev_len = NULL;
	if (!lua_options_function(opts, "node")) {
		lua_pushnil(L);
		return;
	}
	fn = lua_gettop(L);
	lua_newtable(L);
	names = lua_gettop(L);
	*ent = lua_object_scratch(L, nent, sizeof (char *));
	lua_rawseti(L, names, -1);
	*ent_len = lua_object_scratch(L, nent, sizeof (size_t));
	lua_rawseti(L, names, -2);
	*ev = lua_object_scratch(L, nev, sizeof (char *));
	lua_rawseti(L, names, -3);
	*ev_len = lua_object_scratch(L, nev, sizeof (size_t));
	lua_rawseti(L, names, -4);
	for (k = 0; k < nent + nev; k++) {
		size_t len;
		const char *name = k < nent ? catalog_entity_name(cat, k, &len) :
		    intern_name(cat->event_entities, k - nent, &len);
		const char **slot = k < nent ? &(*ent)[k] : &(*ev)[k - nent];
		size_t *slot_len = k < nent ? &(*ent_len)[k] :
		    &(*ev_len)[k - nent];

		lua_pushlstring(L, name, len);
		if (lua_rawget(L, names) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_pushvalue(L, fn);
			lua_pushlstring(L, name, len);
			lua_call(L, 1, 1);
			if (!lua_isnil(L, -1) && lua_type(L, -1) !=
			    LUA_TSTRING)
				luaL_error(L, "%s: the node function returned a "
				    "%s for \"%s\"; it must return a string or "
				    "nil", opts->fname, luaL_typename(L, -1),
				    name);
			if (lua_isnil(L, -1)) {
				lua_pop(L, 1);
				lua_pushboolean(L, 0);
			}
			lua_pushlstring(L, name, len);
			lua_pushvalue(L, -2);
			lua_rawset(L, names);
		}
		if (lua_type(L, -1) == LUA_TSTRING)
			*slot = lua_tolstring(L, -1, slot_len);
		lua_pop(L, 1);	/* the string stays in names */
	}
	lua_remove(L, fn);
}

/* The flows of d with the options at opts; the names table is pushed. */
static flows *
match(lua_State *L, const trace *d, const lua_options *opts)
{
	const char **ent, **ev;
	size_t *ent_len, *ev_len;
	const char *why = NULL;
	flows *f;

	push_nodes(L, d, opts, &ent, &ent_len, &ev, &ev_len);
	f = flows_match(d->cat, ent, ent_len, ev, ev_len, &why);
	if (f == NULL)
		luaL_error(L, "%s", why);
	return (f);
}

/* ---- t:flows ---- */

const char lua_flows_type[] = "statemap.flows";

typedef struct lflows {
	lua_object_head head;
	flows *f;
	flows_alignment *al;	/* t:align's, while it makes its tables */
} lflows;

/* Upvalues of the iterator. */
enum { FL_FLOWS = 1, FL_NEXT, FL_FROM, FL_TO, FL_STATUS };

static void
push_event_name(lua_State *L, const catalog *cat, uint32_t id)
{
	size_t len;
	const char *s = intern_name(cat->event_entities, id, &len);

	lua_pushlstring(L, s, len);
}

static void
push_node(lua_State *L, const flows *f, uint32_t node)
{
	size_t len;
	const char *s;

	if (node == FLOWS_NO_NODE) {
		lua_pushnil(L);
		return;
	}
	s = intern_name(f->nodes, node, &len);
	lua_pushlstring(L, s, len);
}

static void
push_flow(lua_State *L, const catalog *cat, const flows *f, const flow *fl)
{
	const catalog_event *send = fl->send != FLOWS_NONE ?
	    &cat->events[fl->send] : NULL;
	const catalog_event *recv = fl->receive != FLOWS_NONE ?
	    &cat->events[fl->receive] : NULL;
	const catalog_event *first = send != NULL ? send : recv;
	const char *s;
	size_t len;

	lua_createtable(L, 0, 12);
	if ((s = catalog_event_id(cat, first, &len)) != NULL) {
		lua_pushlstring(L, s, len);
		lua_setfield(L, -2, "id");
	}
	lua_pushstring(L, flows_status_name(fl->status));
	lua_setfield(L, -2, "status");
	{
		const char *kind = intern_name(cat->event_kinds, first->kind,
		    &len);

		lua_pushlstring(L, kind, len);
		lua_setfield(L, -2, "event");
	}
	if (send != NULL) {
		push_event_name(L, cat, send->entity);
		lua_setfield(L, -2, "from");
		lua_pushinteger(L, (lua_Integer)fl->sent);
		lua_setfield(L, -2, "sent");
		if (send->target != CATALOG_NO_ENTITY) {
			push_event_name(L, cat, send->target);
			lua_setfield(L, -2, "target");
		}
		if ((s = catalog_event_members(cat, send, &len)) != NULL) {
			lua_json_push_members_len(L, s, len);
			lua_setfield(L, -2, "fields");
		}
	}
	if (recv != NULL) {
		if (recv == send) {
			if (send->target != CATALOG_NO_ENTITY) {
				push_event_name(L, cat, send->target);
				lua_setfield(L, -2, "to");
			}
		} else {
			push_event_name(L, cat, recv->entity);
			lua_setfield(L, -2, "to");
			if ((s = catalog_event_members(cat, recv, &len)) !=
			    NULL) {
				lua_json_push_members_len(L, s, len);
				lua_setfield(L, -2, send != NULL ?
				    "receive_fields" : "fields");
			}
		}
		lua_pushinteger(L, (lua_Integer)fl->received);
		lua_setfield(L, -2, "received");
	} else if (send->target != CATALOG_NO_ENTITY) {
		push_event_name(L, cat, send->target);
		lua_setfield(L, -2, "to");
	}
	push_node(L, f, fl->from);
	lua_setfield(L, -2, "from_node");
	push_node(L, f, fl->to);
	lua_setfield(L, -2, "to_node");
}

static lflows *
check_flows(lua_State *L, int idx)
{
	return (lua_object_check(L, idx, LUA_FLOWS_TYPE));
}

static int
flows_next(lua_State *L)
{
	lflows *lf = check_flows(L, lua_upvalueindex(FL_FLOWS));
	lua_Integer i = lua_tointeger(L, lua_upvalueindex(FL_NEXT));
	uint64_t from = (uint64_t)lua_tointeger(L, lua_upvalueindex(FL_FROM));
	uint64_t to = (uint64_t)lua_tointeger(L, lua_upvalueindex(FL_TO));
	lua_Integer mask = lua_tointeger(L, lua_upvalueindex(FL_STATUS));
	trace *d;

	lua_getiuservalue(L, lua_upvalueindex(FL_FLOWS), 1);
	d = lua_trace_check(L, -1);
	for (; (size_t)i < lf->f->n; i++) {
		const flow *fl = &lf->f->items[i];
		uint64_t t = fl->send != FLOWS_NONE ? fl->sent : fl->received;

		if (t < from || t >= to || !(mask & (1 << fl->status)))
			continue;
		lua_pushinteger(L, i + 1);
		lua_replace(L, lua_upvalueindex(FL_NEXT));
		push_flow(L, d->cat, lf->f, fl);
		return (1);
	}
	lua_pushinteger(L, i);
	lua_replace(L, lua_upvalueindex(FL_NEXT));
	return (0);
}

static int
flows_gc(lua_State *L)
{
	lflows *lf = lua_object_finalizing(L, LUA_FLOWS_TYPE);

	if (lf == NULL)
		return (0);
	flows_free(lf->f);
	flows_alignment_free(lf->al);
	lf->f = NULL;
	lf->al = NULL;
	lf->head.finalized = 1;
	return (0);
}

const luaL_Reg lua_flows_metamethods[] = {
	{ "__gc", flows_gc },
	{ NULL, NULL }
};

/* The status option: a name or a list of names, as bits; all if nil. */
static lua_Integer
status_mask(lua_State *L, const lua_options *opts)
{
	lua_Integer mask = 0;
	size_t i, n;

	if (lua_options_get(opts, "status") == LUA_TNIL) {
		lua_pop(L, 1);
		return (0xf);
	}
	if (lua_type(L, -1) == LUA_TSTRING) {
		lua_createtable(L, 1, 0);
		lua_insert(L, -2);
		lua_rawseti(L, -2, 1);
	}
	if (!lua_istable(L, -1))
		lua_options_refuse(opts, "status", -1);
	n = lua_rawlen(L, -1);
	for (i = 1; i <= n; i++) {
		const char *s;
		int k, found = 0;

		lua_rawgeti(L, -1, (lua_Integer)i);
		s = lua_tostring(L, -1);
		for (k = 0; s != NULL && k < 4; k++) {
			if (strcmp(s, flows_status_name((flow_status)k)) == 0) {
				mask |= 1 << k;
				found = 1;
			}
		}
		if (!found)
			luaL_error(L, "flows: unknown status %s: use matched, "
			    "lost, duplicate or unsent", s != NULL ? s :
			    luaL_typename(L, -1));
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return (mask);
}

static const lua_option flows_keys[] = {
	{ .key = "from", .kind = LUA_OPTION_TIME },
	{ .key = "to", .kind = LUA_OPTION_TIME },
	{ .key = "status", .kind = LUA_OPTION_OTHER,
	    .what = "a name or a list of names" },
	{ .key = "node", .kind = LUA_OPTION_FUNCTION,
	    .what = "a function of an entity's name" },
	{ .key = NULL }
};

/*
 * t:flows{from=, to=, status=, node=} -> an iterator over the trace's
 * messages: {id=, status=, event=, from=, to=, target=, sent=,
 * received=, fields=, receive_fields=, from_node=, to_node=}.
 */
static int
t_flows(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	lflows *lf;
	uint64_t from = d->begin, to = d->end;
	lua_options opts;
	lua_Integer mask;

	lua_settop(L, 2);
	lua_options_init(&opts, L, 2, "flows", flows_keys);
	lua_options_time(&opts, "from", &from);
	lua_options_time(&opts, "to", &to);
	mask = status_mask(L, &opts);
	lf = lua_object_new(L, LUA_FLOWS_TYPE, sizeof (lflows), 1);	/* 3 */
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, 3, 1);
	lf->f = match(L, d, &opts);
	lua_pop(L, 1);	/* the node names */
	lua_pushinteger(L, 0);
	lua_pushinteger(L, (lua_Integer)from);
	lua_pushinteger(L, (lua_Integer)to);
	lua_pushinteger(L, mask);
	lua_pushcclosure(L, flows_next, 5);
	return (1);
}

/* ---- t:align ---- */

static void
push_number_or_nil(lua_State *L, double v)
{
	if (isnan(v))
		lua_pushnil(L);
	else
		lua_pushnumber(L, v);
}

static const lua_option align_keys[] = {
	{ .key = "node", .kind = LUA_OPTION_FUNCTION,
	    .what = "a function of an entity's name" },
	{ .key = "reference", .kind = LUA_OPTION_STRING },
	{ .key = NULL }
};

/*
 * t:align{node=, reference=} -> {reference=, offsets = {node = ns},
 * pairs = { {a=, b=, latency=, offset=, messages_ab=, messages_ba=,
 * mean_ab=, mean_ba=} }}.
 */
static int
t_align(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	lflows *lf;
	flows_alignment *al;
	uint32_t reference = FLOWS_NO_NODE;
	lua_options opts;
	const char *s;
	size_t i, len;

	lua_settop(L, 2);
	lua_options_init(&opts, L, 2, "align", align_keys);
	/* The flows in a userdata, freed by the collector if we raise. */
	lf = lua_object_new(L, LUA_FLOWS_TYPE, sizeof (lflows), 1);	/* 3 */
	lf->f = match(L, d, &opts);
	lua_pop(L, 1);
	lua_options_keep(&opts);	/* 4: the reference's name */
	if (lua_options_string(&opts, "reference", &s, &len)) {
		reference = intern_find(lf->f->nodes, s, len);
		if (reference == INTERN_NONE)
			return (luaL_error(L, "align: no node \"%s\"", s));
	}
	/* Held by the userdata: an error making the tables frees it. */
	al = lf->al = flows_align(lf->f, reference);
	lua_createtable(L, 0, 3);
	push_node(L, lf->f, al->nnodes > 0 ? al->reference : FLOWS_NO_NODE);
	lua_setfield(L, -2, "reference");
	lua_createtable(L, 0, (int)al->nnodes);
	for (i = 0; i < al->nnodes; i++) {
		if (!al->has_offset[i])
			continue;
		push_node(L, lf->f, (uint32_t)i);
		lua_pushinteger(L, (lua_Integer)al->offsets[i]);
		lua_rawset(L, -3);
	}
	lua_setfield(L, -2, "offsets");
	lua_createtable(L, (int)al->npairs, 0);
	for (i = 0; i < al->npairs; i++) {
		const flows_pair *p = &al->pairs[i];

		lua_createtable(L, 0, 8);
		push_node(L, lf->f, p->a);
		lua_setfield(L, -2, "a");
		push_node(L, lf->f, p->b);
		lua_setfield(L, -2, "b");
		lua_pushinteger(L, (lua_Integer)p->n_ab);
		lua_setfield(L, -2, "messages_ab");
		lua_pushinteger(L, (lua_Integer)p->n_ba);
		lua_setfield(L, -2, "messages_ba");
		push_number_or_nil(L, p->mean_ab);
		lua_setfield(L, -2, "mean_ab");
		push_number_or_nil(L, p->mean_ba);
		lua_setfield(L, -2, "mean_ba");
		push_number_or_nil(L, p->latency);
		lua_setfield(L, -2, "latency");
		push_number_or_nil(L, p->offset);
		lua_setfield(L, -2, "offset");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "pairs");
	flows_alignment_free(al);
	lf->al = NULL;
	return (1);
}

const luaL_Reg lua_flows_trace_methods[] = {
	{ "flows", t_flows },
	{ "align", t_align },
	{ NULL, NULL }
};
