/*
 * lua_object.h: what every object type of the statemap module shares
 * (trace, entity, interval iterator, series, array, flows, builder), and
 * C memory under Lua's collector.
 *
 * An object is a userdata with a metatable named like "statemap.trace":
 * __index finds a method in a plain table, or else computes a field with
 * a getter (two table lookups, whatever the key); the method table is
 * also the metatable's "methods" field (the REPL completes and documents
 * from it); and __metatable is the name, so Lua code can tell an
 * object's type but never reach its metamethods (__gc called by hand
 * would free what the object still holds).
 *
 * Its userdata begins with a lua_object_head, which says which type it
 * was made as: the debug library can give an object another type's
 * metatable (debug.setmetatable), never another type, so a series that
 * looks like a trace is refused as one (lua_object_check), and is freed
 * as a series whichever type's __gc the collector calls
 * (lua_object_finalizing).  A type is named by one array of its own
 * (the LUA_X_TYPE of its header), and its objects are tagged with that
 * array's address: comparing the tag reads nothing it points to, so a
 * userdata the module did not make is refused as safely.
 *
 * Once its __gc has run, Lua code can still reach an object (through an
 * object another finalizer resurrected): every use of it is then an
 * error, never a dangling pointer.
 */
#ifndef SM_LUA_OBJECT_H
#define SM_LUA_OBJECT_H

#include <stddef.h>

#include <lauxlib.h>

/* The first member of every object's userdata. */
typedef struct lua_object_head {
	const char *type;	/* the name of the type it was made as */
	const void *mt;		/* that type's metatable (lua_topointer):
				 * the one it must still have */
	int finalized;		/* set by its __gc: it holds nothing */
} lua_object_head;

/*
 * In what follows, name is a type's one name array (LUA_TRACE_TYPE, never
 * an equal string elsewhere): its address is the type's tag.
 *
 * Registers the metatable `name`: methods from each luaL_Reg of the
 * NULL-terminated list, getters of fields from each of theirs (each
 * called with the object, returning the field's value), and metamethods
 * (__gc, __tostring...).
 */
void lua_object_class(lua_State *L, const char *name,
    const luaL_Reg *const *methods, const luaL_Reg *const *fields,
    const luaL_Reg *metamethods);

/*
 * The same for an object that is also a sequence (s[i]): no fields, and
 * its __index is index, a C function called with the object and the key
 * whose one upvalue is the methods table (for keys that are not numbers).
 */
void lua_object_sequence_class(lua_State *L, const char *name,
    const luaL_Reg *methods, lua_CFunction index,
    const luaL_Reg *metamethods);

/*
 * For a sequence object of n elements: the 0-based place of the 1-based
 * index at idx, or SIZE_MAX if it is out of range; an index that is not
 * an integer is an error naming what it indexes ("step number").
 */
size_t lua_object_index(lua_State *L, int idx, size_t n, const char *what);

/*
 * Pushes a new object of the registered type `name`: size bytes, zeroed,
 * that begin with a lua_object_head, and nuvalue user values.
 */
void *lua_object_new(lua_State *L, const char *name, size_t size,
    int nuvalue);

/*
 * The object of type `name` at idx, made as one and with its metatable:
 * an argument error if it is something else ("statemap.trace expected,
 * got statemap.series") (check) or NULL (test), and an error naming its
 * type if it was finalized (both).
 */
void *lua_object_check(lua_State *L, int idx, const char *name);
void *lua_object_test(lua_State *L, int idx, const char *name);

/*
 * For the __gc of type `name`: the object it is called with if that was
 * made as one and is not yet finalized, else NULL, and the finalizer then
 * does nothing.  An object of another of the module's types, given this
 * type's metatable, is finalized here by its own type's __gc (once: what
 * that calls passes nothing on), so that it is freed as what it is.
 */
void *lua_object_finalizing(lua_State *L, const char *name);

/*
 * Whether the running C function was called by the C function caller,
 * or, caller NULL, by C below any Lua (lua_pcall at the stack's base).  A
 * function handed a pointer as a light userdata by the C that calls it
 * refuses any other caller: the debug library reaches every function on
 * the stack (debug.getinfo(level, "f").func) and could call it with
 * another light userdata, or none.
 */
int lua_object_called_by(lua_State *L, lua_CFunction caller);

/*
 * Tells the memory limit (runlimit.h) and the collector of bytes of C
 * memory a new object holds: the collector sees only the few bytes of
 * the userdata, so it is told of the rest as if Lua had allocated it.
 * An error if the limit is now passed.  The object credits it back
 * (runlimit_credit) when it is finalized.
 */
void lua_object_charge(lua_State *L, size_t bytes);

/*
 * Zeroed memory for n + 1 elements of size bytes that a binding needs
 * while it works: a userdata left on the stack, so that an error on the
 * way leaks nothing.
 */
void *lua_object_scratch(lua_State *L, size_t n, size_t size);

/* Pushes a name as an object's __tostring shows it: quoted, control
 * characters escaped. */
void lua_object_push_quoted(lua_State *L, const char *s, size_t len);

#endif
