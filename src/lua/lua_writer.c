/*
 * lua_writer.c: t:write.
 */
#include "lua/lua_writer.h"

#include "lua/lua_args.h"
#include "lua/lua_options.h"
#include "lua/lua_trace.h"
#include "trace/chrome.h"
#include "trace/writer.h"

static const char *const formats[] = { "statemap", "chrome", NULL };

static const lua_option write_keys[] = {
	{ .key = "format", .kind = LUA_OPTION_CHOICE, .names = formats },
	{ .key = NULL }
};

/*
 * t:write(path [, {format = "statemap" | "chrome"}]) writes the trace as
 * a statemap file (or Chrome trace-event JSON: chrome.h), all or
 * nothing; "-" is standard output.
 */
static int
t_write(lua_State *L)
{
	trace *d = lua_trace_check(L, 1);
	const char *path = lua_args_check_path(L, 2, "t:write", "the path");
	lua_options opts;
	sm_error err;
	char msg[1024];
	int format = 0, rv;

	lua_options_init(&opts, L, 3, "t:write", write_keys);
	lua_options_check_keys(&opts);
	(void)lua_options_choice(&opts, "format", &format);
	rv = format == 1 ? chrome_save(d, path, &err) :
	    writer_save(d, path, &err);
	if (rv != 0) {
		error_format(&err, msg, sizeof (msg));
		return (luaL_error(L, "t:write: %s", msg));
	}
	return (0);
}

const luaL_Reg lua_writer_trace_methods[] = {
	{ "write", t_write },
	{ NULL, NULL }
};
