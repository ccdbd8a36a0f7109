/*
 * lua_object.h: the shape every object type of the statemap module has
 * (trace, entity, interval iterator).
 *
 * A userdata with a metatable named like "statemap.trace": __index finds
 * a method in a plain table, or else computes a field with a getter (two
 * table lookups, whatever the key); the method table is also the
 * metatable's "methods" field (the REPL completes and documents from it);
 * and __metatable is the name, so Lua code can tell an object's type but
 * never reach its metamethods (__gc called by hand would free what the
 * object still holds).
 */
#ifndef SM_LUA_OBJECT_H
#define SM_LUA_OBJECT_H

#include <lauxlib.h>

/*
 * Registers the metatable `name`: methods from each luaL_Reg of the
 * NULL-terminated list, getters of fields (each called with the object,
 * returning the field's value), and metamethods (__gc, __tostring...).
 */
void lua_object_class(lua_State *L, const char *name,
    const luaL_Reg *const *methods, const luaL_Reg *fields,
    const luaL_Reg *metamethods);

/*
 * The same for an object that is also a sequence (s[i]): no fields, and
 * its __index is index, a C function called with the object and the key
 * whose one upvalue is the methods table (for keys that are not numbers).
 */
void lua_object_sequence_class(lua_State *L, const char *name,
    const luaL_Reg *methods, lua_CFunction index,
    const luaL_Reg *metamethods);

#endif
