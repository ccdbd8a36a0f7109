/*
 * lua_tree.h: a trace's entities as an attribute tree (tree.h), for
 * scripts: t:children([path]), and t:entities([pattern]) with the tree's
 * glob patterns over entity names.
 */
#ifndef SM_LUA_TREE_H
#define SM_LUA_TREE_H

#include <stdint.h>

#include <lauxlib.h>

#include "trace/trace.h"

/* The trace methods entities and children. */
extern const luaL_Reg lua_tree_trace_methods[];

/* Whether entity e's name matches the glob pattern at idx (none or nil:
 * every name does). */
int lua_tree_match(lua_State *L, const trace *d, int idx, uint32_t e);

/*
 * The entities the pattern at idx selects when it has parent steps
 * (".." components, tree.h): a byte per entity, in scratch memory pushed
 * on the stack (lua_object_scratch); NULL (nothing pushed) when it has
 * none or there is no pattern, and lua_tree_match decides each entity.
 * An error naming fname for a pattern that starts with "..".
 */
const uint8_t *lua_tree_selection(lua_State *L, const trace *d, int idx,
    const char *fname);

#endif
