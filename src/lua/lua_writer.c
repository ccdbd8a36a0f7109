/*
 * lua_writer.c: t:write.
 */
#include "lua/lua_writer.h"

#include "lua/lua_args.h"
#include "lua/lua_trace.h"
#include "trace/writer.h"

/*
 * t:write(path) writes the trace as a statemap file, all or nothing; "-"
 * is standard output.
 */
static int
t_write(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const char *path = lua_args_check_path(L, 2, "t:write", "the path");
	sm_error err;
	char msg[1024];

	if (writer_save(d, path, &err) != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "t:write: %s", msg));
	}
	return (0);
}

const luaL_Reg lua_writer_trace_methods[] = {
	{ "write", t_write },
	{ NULL, NULL }
};
