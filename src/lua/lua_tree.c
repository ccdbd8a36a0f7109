/*
 * lua_tree.c: t:entities([pattern]) and t:children([path]): each one
 * walk of the catalog's entities or one look into its tree.
 */
#include "lua/lua_tree.h"

#include "lua/lua_entity.h"
#include "lua/lua_object.h"
#include "lua/lua_trace.h"
#include "store/tree.h"

int
lua_tree_match(lua_State *L, const trace *d, int idx, uint32_t e)
{
	size_t plen, nlen;
	const char *pattern, *name;

	if (lua_isnoneornil(L, idx))
		return (1);
	pattern = lua_tolstring(L, idx, &plen);
	name = catalog_entity_name(d->cat, e, &nlen);
	return (tree_glob_match(pattern, plen, name, nlen));
}

const uint8_t *
lua_tree_selection(lua_State *L, const trace *d, int idx, const char *fname)
{
	size_t plen;
	const char *pattern, *why;
	uint8_t *marks;

	if (lua_isnoneornil(L, idx))
		return (NULL);
	pattern = lua_tolstring(L, idx, &plen);
	if (!tree_pattern_has_parent(pattern, plen))
		return (NULL);
	marks = lua_object_scratch(L, catalog_nentities(d->cat), 1);
	if (tree_select(catalog_tree(d->cat), pattern, plen, marks,
	    &why) != 0)
		luaL_error(L, "%s: bad pattern \"%s\": %s", fname, pattern,
		    why);
	return (marks);
}

/*
 * t:entities([pattern]) -> every entity in order of first appearance, or
 * those whose names match the glob pattern
 */
static int
t_entities(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	uint32_t e, n = catalog_nentities(d->cat);
	lua_Integer k = 0;
	const uint8_t *sel;

	if (!lua_isnoneornil(L, 2))
		luaL_checkstring(L, 2);
	lua_settop(L, 2);
	sel = lua_tree_selection(L, d, 2, "t:entities");
	lua_createtable(L, lua_isnil(L, 2) ? (int)n : 0, 0);
	for (e = 0; e < n; e++) {
		if (sel != NULL ? !sel[e] : !lua_tree_match(L, d, 2, e))
			continue;
		lua_entity_push(L, 1, e);
		lua_rawseti(L, -2, ++k);
	}
	return (1);
}

/* t:children([path]) -> the paths of path's children, in natural order */
static int
t_children(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const tree *tr = catalog_tree(d->cat);
	uint32_t node = TREE_ROOT, i, n;
	const uint32_t *kids;

	if (!lua_isnoneornil(L, 2)) {
		size_t len;
		const char *path = luaL_checklstring(L, 2, &len);

		if ((node = tree_resolve(tr, path, len)) == TREE_NONE)
			return (luaL_error(L, "t:children: no path \"%s\" in "
			    "trace %s", path, d->cat->name));
	}
	n = tree_nchildren(tr, node);
	kids = tree_children(tr, node);
	lua_createtable(L, (int)n, 0);
	for (i = 0; i < n; i++) {
		size_t len;
		const char *p = tree_path(tr, kids[i], &len);

		lua_pushlstring(L, p, len);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return (1);
}

const luaL_Reg lua_tree_trace_methods[] = {
	{ "entities", t_entities },
	{ "children", t_children },
	{ NULL, NULL }
};
