/*
 * repl.c: the REPL's reading side.  Lines come from GNU readline on a
 * terminal (prompts, history, Tab completion, Ctrl-C to drop a line) or
 * from a plain stream; everything about what a line means (incomplete
 * statements, printing results, completion candidates) is in the Lua
 * module statemap.repl (lua/repl.lua), so it is written once for both.
 */
#include "cli/repl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include <lauxlib.h>

#include "lua/lua_object.h"
#include "lua/lua_serve.h"

#define HISTORY_LINES	1000

/* readline's callbacks take no context: the one REPL of the process. */
static lua_State *repl_L;
static int repl_module;		/* registry reference to statemap.repl */
static int at_eof;
static int completions;		/* registry reference to the candidates */
static int completion_next;

/* ---- calling the Lua side ---- */

/* Pushes statemap.repl[name]. */
static void
push_function(lua_State *L, const char *name)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, repl_module);
	lua_getfield(L, -1, name);
	lua_remove(L, -2);
}

/* Runs an error or an interrupt that escaped the Lua side's own checks
 * (such as Ctrl-C while it prints) into a message; the session goes on. */
static int
call(lua_State *L, int nargs, int nresults)
{
	int status = script_pcall(L, nargs, nresults);

	if (status != LUA_OK) {
		fflush(stdout);
		fprintf(stderr, "statemap-lua: %s\n", script_error(L));
		lua_pop(L, 1);
	}
	return (status);
}

/*
 * Gives one line to the Lua side.  Returns 1 when it completed a
 * statement, leaving that statement on the stack (for the history), or 0
 * when more lines are needed (nothing left on the stack).
 */
static int
feed(lua_State *L, const char *line)
{
	push_function(L, "feed");
	lua_pushstring(L, line);
	if (call(L, 1, 2) != LUA_OK) {
		push_function(L, "reset");
		call(L, 0, 0);
		lua_pushliteral(L, "");
		return (1);
	}
	if (!lua_toboolean(L, -2)) {
		lua_pop(L, 2);
		return (0);
	}
	lua_remove(L, -2);
	return (1);
}

/* ---- plain lines (standard input is not a terminal) ---- */

static void
plain_loop(lua_State *L)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (;;) {
		errno = 0;
		if ((n = getline(&line, &cap, stdin)) < 0) {
			if (errno != EINTR)
				break;
			/* Ctrl-C while waiting: drop the statement so far. */
			clearerr(stdin);
			script_clear_interrupt(L);
			push_function(L, "reset");
			call(L, 0, 0);
			continue;
		}
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (feed(L, line))
			lua_pop(L, 1);
	}
	free(line);
}

/* ---- readline (standard input is a terminal) ---- */

/* Fills the registry's candidate list for the word before the cursor. */
static char *
next_completion(const char *text, int state)
{
	lua_State *L = repl_L;
	char *match = NULL;

	(void) text;
	if (state == 0)
		completion_next = 1;
	lua_rawgeti(L, LUA_REGISTRYINDEX, completions);
	if (lua_rawgeti(L, -1, completion_next++) == LUA_TSTRING)
		match = strdup(lua_tostring(L, -1));
	lua_pop(L, 2);
	return (match);
}

static char **
complete(const char *text, int start, int end)
{
	lua_State *L = repl_L;
	const char *append;

	(void) start;
	rl_attempted_completion_over = 1;	/* never file names */
	push_function(L, "complete");
	lua_pushlstring(L, rl_line_buffer, (size_t)end);
	lua_pushstring(L, text);
	if (script_pcall(L, 2, 2) != LUA_OK || !lua_istable(L, -2)) {
		lua_settop(L, 0);
		return (NULL);
	}
	append = lua_tostring(L, -1);
	rl_completion_append_character = append != NULL ? append[0] : '\0';
	lua_pop(L, 1);
	lua_rawseti(L, LUA_REGISTRYINDEX, completions);
	return (rl_completion_matches(text, next_completion));
}

static void
on_line(char *line)
{
	lua_State *L = repl_L;

	if (line == NULL) {
		at_eof = 1;
		rl_callback_handler_remove();
		putchar('\n');
		return;
	}
	if (feed(L, line)) {
		const char *stmt = lua_tostring(L, -1);
		HIST_ENTRY *last = history_get(history_base + history_length - 1);

		if (stmt[strspn(stmt, " \t")] != '\0' &&
		    (last == NULL || strcmp(last->line, stmt) != 0))
			add_history(stmt);
		lua_pop(L, 1);
		rl_set_prompt("> ");
	} else {
		rl_set_prompt(">> ");
	}
	free(line);
}

/*
 * $XDG_STATE_HOME/statemap-lua/history (the directory made if need be),
 * or else ~/.statemap_lua_history; NULL if neither can be used.  As the
 * XDG spec says, a relative XDG_STATE_HOME is ignored.
 */
static char *
history_path(void)
{
	const char *dir = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *path = NULL;

	if (dir != NULL && dir[0] == '/') {
		if (asprintf(&path, "%s/statemap-lua", dir) < 0)
			return (NULL);
		(void) mkdir(dir, 0700);	/* it may not exist yet */
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			fprintf(stderr, "statemap-lua: cannot make %s for the "
			    "history: %s\n", path, strerror(errno));
			free(path);
			return (NULL);
		}
		free(path);
		if (asprintf(&path, "%s/statemap-lua/history", dir) < 0)
			path = NULL;
	} else if (home != NULL && home[0] != '\0') {
		if (asprintf(&path, "%s/.statemap_lua_history", home) < 0)
			path = NULL;
	}
	return (path);
}

/* Ctrl-C at the prompt: forget the line and any statement so far. */
static void
drop_line(lua_State *L)
{
	script_clear_interrupt(L);
	push_function(L, "reset");
	call(L, 0, 0);
	rl_free_line_state();
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	rl_crlf();
	rl_set_prompt("> ");
	rl_on_new_line();
	rl_redisplay();
}

static void
readline_loop(lua_State *L)
{
	char *history = history_path();
	sigset_t sigint, unblocked;

	rl_readline_name = "statemap-lua";
	rl_catch_signals = 0;	/* our SIGINT handler interrupts Lua code */
	rl_attempted_completion_function = complete;
	/*
	 * A Tab that cannot extend the word lists the candidates at once,
	 * so t:ent Tab Tab shows t:entities and t:entity (by default the
	 * callback interface wanted a third Tab).  Set once readline has
	 * read its init file, which would otherwise set it back.
	 */
	/* Not . and :, so that t:ent and statemap.for complete as one word. */
	rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{}()[],+-*/%^~#";
	using_history();
	stifle_history(HISTORY_LINES);
	if (history != NULL)
		read_history(history);
	lua_newtable(L);
	completions = luaL_ref(L, LUA_REGISTRYINDEX);
	at_eof = 0;
	rl_callback_handler_install("> ", on_line);
	rl_variable_bind("show-all-if-unmodified", "on");
	/*
	 * SIGINT is let in only while waiting (atomically, by pselect) and
	 * while a line runs: a Ctrl-C that lands between the two, after the
	 * prompt is drawn but before the wait, is then seen here, rather than
	 * interrupting whatever Lua code runs next.
	 */
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	sigprocmask(SIG_BLOCK, &sigint, &unblocked);
	while (!at_eof) {
		fd_set in;

		if (script_interrupted()) {
			drop_line(L);
			continue;
		}
		FD_ZERO(&in);
		FD_SET(STDIN_FILENO, &in);
		if (pselect(STDIN_FILENO + 1, &in, NULL, NULL, NULL,
		    &unblocked) < 0) {
			if (errno != EINTR)
				break;
			continue;
		}
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		rl_callback_read_char();
		sigprocmask(SIG_BLOCK, &sigint, NULL);
	}
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	if (!at_eof)
		rl_callback_handler_remove();
	if (history != NULL && write_history(history) != 0)
		fprintf(stderr, "statemap-lua: cannot save the history in %s: "
		    "%s\n", history, strerror(errno));
	/* readline keeps the history and its line state until exit: give
	 * them back, so that leak checks see only real leaks. */
	clear_history();
	rl_free_line_state();
	free(history);
	luaL_unref(L, LUA_REGISTRYINDEX, completions);
}

/* ---- the session ---- */

static void
push_strings(lua_State *L, char **s, int n)
{
	int i;

	lua_createtable(L, n, 0);
	for (i = 0; i < n; i++) {
		lua_pushstring(L, s[i]);
		lua_rawseti(L, -2, i + 1);
	}
}

/* Under lua_pcall: require the module and start it; returns the banner.
 * What it runs can reach it (debug.getinfo), but not call it: its
 * options are a pointer. */
static int
start(lua_State *L)
{
	const repl_options *o = lua_touserdata(L, 1);

	if (!lua_object_called_by(L, NULL))
		return (luaL_error(L, "the function that starts the REPL is "
		    "not a script's to call"));
	lua_getglobal(L, "require");
	lua_pushliteral(L, "statemap.repl");
	lua_call(L, 1, 1);
	lua_pushvalue(L, -1);
	repl_module = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_getfield(L, -1, "start");
	lua_createtable(L, 0, 5);
	push_strings(L, o->files, o->nfiles);
	lua_setfield(L, -2, "files");
	push_strings(L, o->chunks, o->nchunks);
	lua_setfield(L, -2, "chunks");
	if (o->script != NULL) {
		lua_pushstring(L, o->script);
		lua_setfield(L, -2, "script");
	}
	lua_pushliteral(L, "statemap-lua");
	lua_setfield(L, -2, "program");
	lua_pushboolean(L, o->ignore_tags);
	lua_setfield(L, -2, "ignore_tags");
	lua_pushstring(L, o->begin);
	lua_setfield(L, -2, "begin");
	lua_pushstring(L, o->end);
	lua_setfield(L, -2, "end");
	lua_pushstring(L, o->duration);
	lua_setfield(L, -2, "duration");
	lua_call(L, 1, 1);
	return (1);
}

/*
 * After Ctrl-C stopped what ran before the prompt: the banner of the
 * traces loaded, if loading was done, else of none.
 */
static void
push_banner(lua_State *L)
{
	push_function(L, "banner");
	if (lua_getglobal(L, "traces") != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
	}
	if (call(L, 1, 1) != LUA_OK)
		lua_pushliteral(L, "");
}

int
repl_run(const repl_options *o)
{
	lua_State *L = script_state(&o->limits);
	int rv = 0, tty = isatty(STDIN_FILENO), status, sigints;

	if (L == NULL)
		return (1);
	repl_L = L;
	/* At the prompt, statemap.serve serves in the background. */
	lua_serve_background(o->interactive);
	/*
	 * Ctrl-C stops the loads, chunks and script run before the prompt
	 * as it stops a script: C work (a load, t:write, a picture) at its
	 * next check, which removes the output it was writing, and Lua code
	 * at its next instruction, with an "interrupted" error.
	 */
	sigints = script_sigints();
	lua_pushcfunction(L, start);
	lua_pushlightuserdata(L, (void *)o);
	status = lua_pcall(L, 1, 1, 0);
	if (status != LUA_OK) {
		fprintf(stderr, "statemap-lua: %s\n", script_error(L));
		lua_pop(L, 1);
		rv = 1;
		/*
		 * The REPL goes on after a Ctrl-C, as after one at the
		 * prompt; from a pipe the run still fails (as a statement
		 * would), any other error ends it.
		 */
		if (o->interactive && script_sigints() != sigints) {
			script_clear_interrupt(L);
			rv = tty ? 0 : 1;
			push_banner(L);
			status = LUA_OK;
		}
	}
	if (status == LUA_OK && o->interactive) {
		if (tty)
			printf("%s\n", lua_tostring(L, -1));
		lua_pop(L, 1);
		if (tty)
			readline_loop(L);
		else
			plain_loop(L);
		push_function(L, "finish");
		call(L, 0, 0);
		/* Scripted through a pipe, a failed statement fails the run. */
		push_function(L, "failures");
		if (!tty && lua_tointeger(L, -1) > 0)
			rv = 1;
		lua_pop(L, 1);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "statemap-lua: error writing standard output: "
		    "%s\n", strerror(errno));
		rv = 1;
	}
	script_close(L);	/* stops serving, if it was */
	lua_serve_background(0);
	repl_L = NULL;
	return (rv);
}
