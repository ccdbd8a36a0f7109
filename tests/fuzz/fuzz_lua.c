/*
 * libFuzzer harness for the Lua API: each input becomes a Lua program,
 * the prelude (fuzz_lua_prelude.lua: pools of awkward values, three
 * traces loaded) and then a line per operation, each a call of a
 * function or method statemap-lua-api(3) documents with arguments from the
 * pools, run under pcall:
 *
 *   C(function() return T_(3):sorted(S(17), TM(4), TM(200)) end)
 *
 * Errors are what many of them should give; crashes, sanitizer reports,
 * leaks and hangs are what the harness is for.  The program runs in a
 * fresh Lua state made as script mode makes it (script_state: the
 * standard libraries, statemap, a memory limit of 64 MB), with an
 * instruction budget instead of a timeout, so that it is the same every
 * run.
 *
 * Debian's liblua5.4 is not instrumented: ASan sees our code read
 * memory Lua freed (Lua allocates through script.c, which is), but
 * not what liblua itself does wrong when a binding misuses it (a stack
 * index out of range, a value used after its slot was popped).  For that
 * the same programs run under valgrind with the normal build: the
 * generator alone, compiled with -DFUZZ_LUA_MAIN (make fuzz-valgrind
 * builds it), writes the program of each input to a file, and
 * tests/fuzz/lua-valgrind.sh runs them with statemap-lua.
 *
 * The traces and pictures are in a directory of our own under $TMPDIR,
 * removed at exit, as is the cache statemap.load writes
 * (XDG_CACHE_HOME), emptied before every input.  script_state takes
 * SIGINT for Ctrl-C in scripts: stop a long run with SIGUSR1 (libFuzzer
 * then ends as after -max_total_time, with its final statistics).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "fuzz_lua_prelude.h"

/* ---- the traces ---- */

static const char base_trace[] =
    "{\"start\": [1, 500000000], \"title\": \"fuzz \\u2028 trace\", "
    "\"host\": \"h1\", \"entityKind\": \"Thread\", \"states\": {"
    "\"on-cpu\": {\"value\": 0, \"color\": \"#DAF7A6\"}, "
    "\"off-cpu\": {\"value\": 1}, \"1.5\": {\"value\": 2, \"color\": "
    "\"red\"}, \"wait\\u0000io\": {\"value\": 3}, \"3\": {\"value\": 4}}}\n"
    "{\"entity\": \"a\", \"description\": \"first \\u0007 thread\"}\n"
    "{\"time\": \"0\", \"entity\": \"a\", \"state\": 0}\n"
    "{\"time\": \"10\", \"entity\": \"b\", \"state\": 1, \"tag\": \"t1\"}\n"
    "{\"state\": 1, \"tag\": \"t1\", \"pid\": 4, \"deep\": {\"x\": [1, "
    "{\"y\": null}]}}\n"
    "{\"time\": \"20\", \"entity\": \"a\", \"state\": 2, \"tag\": \"t2\"}\n"
    "{\"time\": \"25\", \"entity\": \"c\\u00e9\", \"state\": 3}\n"
    "{\"time\": \"30\", \"entity\": \"b\", \"state\": 4}\n"
    "{\"time\": \"30\", \"entity\": \"b\", \"state\": 2}\n"
    "{\"time\": \"35\", \"entity\": \"a\", \"event\": \"wakeup\", "
    "\"target\": \"b\"}\n"
    "{\"time\": \"40\", \"entity\": \"d\", \"state\": 1, \"tag\": \"t1\"}\n"
    "{\"time\": \"50\", \"entity\": \"a\", \"state\": 0}\n"
    "{\"time\": \"1000\", \"entity\": \"e]]>\", \"state\": 4}\n"
    "{\"time\": \"1500000000\", \"entity\": \"a\", \"state\": 1, "
    "\"tag\": \"\\ufffe\"}\n"
    "{\"time\": \"1500000000\", \"entity\": \"d\", \"event\": \"exit\"}\n"
    "{\"time\": \"2000000000\", \"entity\": \"b\", \"state\": 0}\n"
    "{\"entity\": \"zz\", \"description\": \"no data\"}\n";

static const char other_trace[] =
    "{\"start\": [2, 0], \"states\": {\"on-cpu\": {\"value\": 0}, "
    "\"idle\": {\"value\": 1}, \"0\": {\"value\": 2}}}\n"
    "{\"time\": \"5\", \"entity\": \"a\", \"state\": 0}\n"
    "{\"time\": \"7\", \"entity\": \"x\", \"state\": 1}\n"
    "{\"time\": \"9\", \"entity\": \"b\", \"state\": 2}\n"
    "{\"time\": \"100\", \"entity\": \"a\", \"state\": 1}\n"
    "{\"time\": \"150\", \"entity\": \"x\", \"event\": \"ping\", "
    "\"target\": \"a\"}\n"
    "{\"time\": \"300\", \"entity\": \"b\", \"state\": 0}\n";

static const char meta_trace[] =
    "{\"start\": [0, 0], \"states\": {\"only\": {\"value\": 0}}}\n";

static const char bad_trace[] =
    "{\"start\": [0, 0], \"states\": {\"s\": {\"value\": 0}}}\n"
    "{\"time\": \"1\", \"entity\": \"a\", \"state\": 0}\n"
    "{\"time\": \"2\", \"entity\": \"a\", \"state\": 7}\n";

static int
write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof (path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return (-1);
	fputs(text, f);
	return (fclose(f));
}

/* The traces the prelude's paths name (P in fuzz_lua_prelude.lua). */
static int
write_traces(const char *dir)
{
	char path[4096];
	gzFile gz;

	snprintf(path, sizeof (path), "%s/base.out.gz", dir);
	if ((gz = gzopen(path, "wb")) == NULL ||
	    gzputs(gz, base_trace) < 0 || gzclose(gz) != Z_OK)
		return (-1);
	return (write_file(dir, "base.out", base_trace) != 0 ||
	    write_file(dir, "other.out", other_trace) != 0 ||
	    write_file(dir, "meta.out", meta_trace) != 0 ||
	    write_file(dir, "bad.out", bad_trace) != 0 ||
	    write_file(dir, "empty.out", "") != 0 ? -1 : 0);
}

/* ---- the generator ---- */

#define MAX_OPS		64	/* operations in one program */
#define MAX_RENDERS	4	/* of them pictures (the slowest) */
#define MAX_DEPTH	4	/* tables in tables */

typedef struct gen {
	const unsigned char *data;
	size_t size, pos;
	FILE *out;
	int depth;
	int renders;
} gen;

static unsigned
next(gen *g)
{
	return (g->pos < g->size ? g->data[g->pos++] : 0);
}

static void expand(gen *g, const char *tmpl);

/* Any value at all, from any pool. */
static void
any(gen *g)
{
	static const char *const pools[] = { "V_", "V_", "V_", "V_", "V_",
	    "V_", "V_", "V_", "T_", "T_", "E_", "E_", "R_", "R_", "R_",
	    "S", "N", "TM", "F_", "I_" };
	unsigned k = next(g);

	fprintf(g->out, "%s(%u)", pools[k % 20], next(g));
}

/* One time in eight, any value instead of the kind asked for. */
static int
odd(gen *g)
{
	if (next(g) % 8 != 0)
		return (0);
	any(g);
	return (1);
}

/* A list of 0 to 3 things of one kind (a template), or any value. */
static void
list(gen *g, const char *item)
{
	unsigned n, i;

	if (odd(g))
		return;
	n = next(g) % 4;
	fputc('{', g->out);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", g->out);
		expand(g, item);
	}
	fputc('}', g->out);
}

/*
 * A table with some of the given fields (each key with its value's
 * template), chosen by the bits of the next bytes; or any value.  One
 * time in eight the table is read through a proxy (PROXY in the prelude,
 * which runs the collector on every read).
 */
typedef struct field {
	const char *key, *value;
} field;

static void
table(gen *g, const field *fields, size_t n)
{
	unsigned bits = 0;
	size_t i;
	int first = 1, proxy;

	if (odd(g))
		return;
	if ((proxy = next(g) % 8 == 0))
		fputs("PROXY(", g->out);
	fputc('{', g->out);
	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			bits = next(g);
		if (!(bits & (1u << (i % 8))))
			continue;
		fprintf(g->out, "%s%s = ", first ? "" : ", ", fields[i].key);
		first = 0;
		expand(g, fields[i].value);
	}
	fputs(proxy ? "})" : "}", g->out);
}

static const field load_fields[] = {
	{ "begin", "%t" }, { "[\"end\"]", "%t" }, { "duration", "%t" },
	{ "ignore_tags", "%A" }, { "filter", "%r" }, { "cache", "%A" },
};
static const field events_fields[] = {
	{ "from", "%t" }, { "to", "%t" }, { "entities", "%l" },
	{ "events", "{%A, \"wakeup\", \"ping\"}" },
};
static const field intervals_fields[] = {
	{ "from", "%t" }, { "to", "%t" }, { "entities", "%l" },
	{ "states", "%L" },
};
static const field panel_fields[] = {
	{ "trace", "%T" }, { "entities", "%l" }, { "title", "%A" },
	{ "row_height", "%h" }, { "events", "%A" },
};
static const field render_fields[] = {
	{ "output", "%o" }, { "trace", "%T" }, { "entities", "%l" },
	{ "width", "%w" }, { "row_height", "%h" }, { "from", "%t" },
	{ "to", "%t" }, { "interactive", "%A" },
	{ "panels", "{%{panel}, %{panel}}" }, { "margin", "%h" },
	{ "title", "%A" }, { "font", "%A" }, { "font_size", "%h" },
	{ "background", "%C" }, { "foreground", "%C" }, { "empty", "%C" },
	{ "legend", "%A" }, { "coalesce", "%i" }, { "events", "%A" },
	{ "labels", "%A" },
};
static const field layout_fields[] = {
	{ "sort", "%s" }, { "sort", "%f" }, { "width", "%w" },
	{ "max_height", "%i" }, { "row_height", "%h" }, { "title", "%A" },
	{ "from", "%t" }, { "to", "%t" }, { "interactive", "%A" },
};

/* Fields of a table named in a template as %{name}. */
static void
named_table(gen *g, const char *name, size_t len)
{
#define	TABLE(n, f) if (len == sizeof (n) - 1 && memcmp(name, n, len) == 0) \
	{ table(g, f, sizeof (f) / sizeof (f[0])); return; }
	TABLE("load", load_fields);
	TABLE("ev", events_fields);
	TABLE("iv", intervals_fields);
	TABLE("panel", panel_fields);
	TABLE("render", render_fields);
	TABLE("layout", layout_fields);
#undef TABLE
#define	LIST(n, item) if (len == sizeof (n) - 1 && memcmp(name, n, len) == 0) \
	{ list(g, item); return; }
	LIST("rename", "[%n] = %A");
	LIST("group", "[%n] = %A");
	LIST("colours", "[%s] = %C");
	LIST("rows", "{%A, %A, %A}");
	LIST("cols", "{%A, %A}");
#undef LIST
	if (len == 3 && memcmp(name, "pal", 3) == 0) {
		static const char *const names[] = { "\"okabe_ito\"",
		    "\"tableau10\"", "\"greys\"", "\"auto\"", "\"nope\"" };
		unsigned k = next(g);

		if (k % 3 == 0)
			list(g, "%C");
		else
			fputs(names[k % 5], g->out);
		return;
	}
	abort();	/* a template names a table that is not here */
}

/*
 * A receiver and method, "%T:name(": usually T_(k):name(, one time in
 * eight T_(k).name(V, with something else as self.  Returns the
 * template just past '('.
 */
static const char *
method(gen *g, const char *pool, const char *t)
{
	const char *paren = strchr(t, '(');
	int wrong = next(g) % 8 == 0;

	if (paren == NULL)
		abort();
	fprintf(g->out, "%s(%u)%c%.*s(", pool, next(g), wrong ? '.' : ':',
	    (int)(paren - t - 1), t + 1);
	if (wrong) {
		any(g);
		if (paren[1] != ')')
			fputs(", ", g->out);
	}
	return (paren + 1);
}

/*
 * Writes a template with its placeholders filled from the input:
 *   %A any value    %T trace   %E entity   %I iterator   %R result
 *   %t time         %s state name          %n entity or its name
 *   %f function     %L list of states      %l list of entities
 *   %p trace path   %o output path         %r regex    %C colour
 *   %w width        %h row height          %k field name
 *   %b a byte       %i a small integer     %{name} a table (above)
 * "%T:m(" and "%E:m(" are method calls (see method()).
 */
static void
expand(gen *g, const char *t)
{
	if (++g->depth > MAX_DEPTH) {
		/* Deep enough: a plain value stands for the rest. */
		fprintf(g->out, "V_(%u)", next(g));
		g->depth--;
		return;
	}
	while (*t != '\0') {
		char c;

		if (*t != '%') {
			fputc(*t++, g->out);
			continue;
		}
		c = t[1];
		t += 2;
		switch (c) {
		case 'A':
			any(g);
			break;
		case 'T':
		case 'E':
			if (*t == ':') {
				t = method(g, c == 'T' ? "T_" : "E_", t);
				break;
			}
			if (!odd(g))
				fprintf(g->out, "%s(%u)", c == 'T' ? "T_" :
				    "E_", next(g));
			break;
		case 'I':
		case 'R':
			fprintf(g->out, "%s_(%u)", c == 'I' ? "I" : "R",
			    next(g));
			break;
		case 't':
			if (!odd(g))
				fprintf(g->out, "TM(%u)", next(g));
			break;
		case 's':
			if (!odd(g))
				fprintf(g->out, "S(%u)", next(g));
			break;
		case 'n': {
			unsigned k = next(g);

			if (k % 4 < 2)
				fprintf(g->out, "N(%u)", next(g));
			else if (k % 4 == 2)
				fprintf(g->out, "E_(%u)", next(g));
			else
				any(g);
			break;
		}
		case 'f':
			if (!odd(g))
				fprintf(g->out, "F_(%u)", next(g));
			break;
		case 'L':
			list(g, "%s");
			break;
		case 'l':
			list(g, "%n");
			break;
		case 'p':
		case 'o':
		case 'r':
		case 'C':
		case 'w':
		case 'h':
		case 'k': {
			const char *fn = c == 'p' ? "P" : c == 'o' ? "O" :
			    c == 'r' ? "RE" : c == 'C' ? "CO" : c == 'w' ? "W" :
			    c == 'h' ? "H" : "K";

			fprintf(g->out, "%s(%u)", fn, next(g));
			break;
		}
		case 'b':
			fprintf(g->out, "%u", next(g));
			break;
		case 'i':
			if (!odd(g))
				fprintf(g->out, "%u", next(g) % 40);
			break;
		case '{': {
			const char *end = strchr(t, '}');

			if (end == NULL)
				abort();
			named_table(g, t, (size_t)(end - t));
			t = end + 1;
			break;
		}
		default:
			abort();	/* a template with a bad placeholder */
		}
	}
	g->depth--;
}

/* The operations: calls of what statemap-lua-api(3) documents, and a few ways
 * of treating objects badly.  The renders come last (see RENDERS). */
static const char *const ops[] = {
	/* statemap */
	"sm.load(%p)",
	"sm.load(%p, %{load})",
	"sm.duration(%t)",
	"sm.format_ns(%t)",
	"sm[%A]",
	"sm.defaults, sm.version",
	/* statemap.json */
	"json.encode(%A)",
	"json.decode(%A, %A)",
	"json.decode(json.encode(%A))",
	"json.decode(%R)",
	/* traces */
	"%T:entities()",
	"%T:entity(%n)",
	"%T:at(%t)",
	"%T:time_in(%t, %t)",
	"%T:time_in()",
	"%T:count_at(%t)",
	"%T:sorted(%s, %t, %t)",
	"%T:sorted(%f)",
	"%T:sorted()",
	"%T:map(%f)",
	"%T:map_intervals(%f)",
	"%T:recolor(%{colours})",
	"%T:keep(%r)",
	"%T:drop(%r)",
	"%T:keep(%f)",
	"%T:drop(%f)",
	"%T:rename(%f)",
	"%T:rename(%{rename})",
	"%T:count(%L, %A)",
	"%T:count(%L)",
	"%T:group(%f, %L)",
	"%T:group(%{group}, %L)",
	"%T:count_series(%L, %t, %t)",
	"%T:events(%{ev})",
	"%T:slice(%t, %t)",
	"%T:intervals(%{iv})",
	"%T[%k]",
	"%T[%A]",
	"tostring(%T)",
	/* entities */
	"%E:at(%t)",
	"%E:time_in(%t, %t)",
	"%E:stats(%t, %t)",
	"%E:stats()",
	"%E[%k]",
	"tostring(%E)",
	"%E == %E",
	/* iterators and other results */
	"ITER(%I, %b)",
	"%I()",
	"debug.getupvalue(%I, 1)",
	"tostring(%R)",
	/* modules */
	"palette.auto(%i)",
	"palette.apply(%T, %{pal}, %L)",
	"layout.default(%T, %{layout})",
	"layout.panels_by(%T, %f, %{layout})",
	"report.table(%{rows}, %{cols})",
	"report.table(%A, %A)",
	"report.percent(%A)",
	/* shapes that make careless code quadratic (the prelude's) */
	"DEEP(%b, %b)",
	"WIDE(%b)",
	"LONGPATH(%b, %b)",
	"MANY(%b, %b)",
	"%T:entities(GLOB(%b, %b))",
	"%T:children(GLOB(%b, %b))",
	"%T:at(%t)",
	/* the collector, finalizers, metamethods */
	"GC(%b)",
	"DROP(%b)",
	"ZOMBIE(%T)",
	"METACALL(%R, %b, %A, %A)",
	"METACALL(%T, %b)",
	"METACALL(%E, %b, %A)",
	/* pictures */
	"sm.render(%{render})",
	"layout.render(%T, %o, %{layout})",
	"sm.render(WITH(layout.panels_by(%T, %f, %{layout}), \"output\", %o))",
	"sm.render{output = O(1), trace = %T, interactive = true}",
	"sm.render{output = O(0), trace = %T, nested_rows = true, width = 300}",
};
#define NOPS	(sizeof (ops) / sizeof (ops[0]))
#define RENDERS	5	/* the last five */

/* Writes the program for an input: the prelude, then its operations. */
static void
generate(const unsigned char *data, size_t size, FILE *out)
{
	gen g;
	int n;

	memset(&g, 0, sizeof (g));
	g.data = data;
	g.size = size;
	g.out = out;
	fwrite(fuzz_lua_prelude, 1, fuzz_lua_prelude_len, out);
	fputs("\n-- the operations\n", out);
	for (n = 0; n < MAX_OPS && g.pos < g.size; n++) {
		unsigned k = next(&g) % NOPS;

		if (k >= NOPS - RENDERS && g.renders++ >= MAX_RENDERS)
			k = next(&g) % (NOPS - RENDERS);
		fputs("C(function() return ", out);
		expand(&g, ops[k]);
		fputs(" end)\n", out);
	}
}

/* ---- the directory ---- */

static char dir[4096];

static int
remove_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void) sb;
	(void) flag;
	(void) f;
	return (remove(path));
}

static void
remove_tree(const char *path)
{
	(void) nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
remove_dir(void)
{
	if (dir[0] != '\0')
		remove_tree(dir);
}

#ifndef FUZZ_LUA_MAIN

#include <lauxlib.h>
#include <lua.h>

#include "base/work.h"
#include "cli/script.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#define MEMORY_LIMIT	(64u << 20)
#define BUDGET		5000000L	/* Lua instructions per program */
/*
 * And the C work it may cause (base/work.h): the instruction budget
 * lets a program build traces of a few hundred thousand transitions at
 * most, which anything in proportion queries, draws and serves within
 * these; a walk of a 20,000-deep stack at every transition, or a glob
 * that backtracks through every split of a 400-component name, does not.
 */
#define WORK_STEPS	(16 * (uint64_t)BUDGET)
#define WORK_BYTES	((uint64_t)768 << 20)
#define BUDGET_STEP	1000

static char cache[4200];
static long budget;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void) argc;
	(void) argv;
	snprintf(dir, sizeof (dir), "%s/sm-fuzz-lua-XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL || write_traces(dir) != 0) {
		perror("fuzz_lua: the directory of traces");
		exit(1);
	}
	atexit(remove_dir);
	snprintf(cache, sizeof (cache), "%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("STATEMAP_PROGRESS", "never", 1);
	return (0);
}

/* The instruction budget: once spent, every hook is an error. */
/* Work out of proportion: a crash to libFuzzer, which keeps the input. */
static _Noreturn void
over_budget(const char *what, uint64_t limit)
{
	fprintf(stderr, "fuzz_lua: over budget: more than %llu %s for one "
	    "program (work out of proportion to what it built)\n",
	    (unsigned long long)limit, what);
	abort();
}

static void
budget_hook(lua_State *L, lua_Debug *ar)
{
	(void) ar;
	budget -= BUDGET_STEP;
	if (budget < 0)
		luaL_error(L, "fuzz_lua: the program's instruction budget is "
		    "spent");
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	script_limits limits = { 0, MEMORY_LIMIT };
	char *src = NULL;
	size_t len = 0;
	FILE *out;
	lua_State *L;

	if ((out = open_memstream(&src, &len)) == NULL)
		abort();
	generate(data, size, out);
	fclose(out);
	remove_tree(cache);	/* each program starts without a cache */

	if ((L = script_state(&limits)) == NULL)
		abort();
	lua_createtable(L, 1, 1);
	lua_pushstring(L, "fuzz.lua");
	lua_rawseti(L, -2, 0);
	lua_pushstring(L, dir);
	lua_rawseti(L, -2, 1);
	lua_setglobal(L, "arg");
	budget = BUDGET;
	lua_sethook(L, budget_hook, LUA_MASKCOUNT, BUDGET_STEP);
	work_reset(WORK_STEPS, WORK_BYTES, over_budget);
	if (luaL_loadbufferx(L, src, len, "=fuzz.lua", "t") != LUA_OK) {
		/* The generator wrote something Lua cannot read. */
		fprintf(stderr, "fuzz_lua: %s\n", lua_tostring(L, -1));
		abort();
	}
	/* Only running out of budget or memory between two operations
	 * gets here as an error: both are fine. */
	(void) lua_pcall(L, 0, 0, 0);
	script_close(L);
	free(src);
	if (getenv("FUZZ_LUA_WORK") != NULL)
		fprintf(stderr, "fuzz_lua: %llu steps, %llu bytes\n",
		    (unsigned long long)work_done(),
		    (unsigned long long)work_bytes_done());
	work_reset(0, 0, NULL);
	return (0);
}

#else	/* FUZZ_LUA_MAIN: the programs, for valgrind */

/*
 * fuzz_lua_gen DIR INPUT...: writes the traces into DIR, and for each
 * input file the program it stands for as DIR/NAME.lua (NAME its base
 * name); statemap-lua DIR/NAME.lua DIR runs it.
 */
int
main(int argc, char **argv)
{
	int i, rv = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_lua_gen DIR [INPUT...]\n");
		return (2);
	}
	if (write_traces(argv[1]) != 0) {
		fprintf(stderr, "fuzz_lua_gen: %s: %s\n", argv[1],
		    strerror(errno));
		return (1);
	}
	for (i = 2; i < argc; i++) {
		const char *slash = strrchr(argv[i], '/');
		char path[4096];
		unsigned char *data = NULL;
		size_t size = 0, got;
		FILE *in, *out;

		if ((in = fopen(argv[i], "rb")) == NULL) {
			fprintf(stderr, "fuzz_lua_gen: %s: %s\n", argv[i],
			    strerror(errno));
			rv = 1;
			continue;
		}
		do {
			if ((data = realloc(data, size + 65536)) == NULL)
				abort();
			got = fread(data + size, 1, 65536, in);
			size += got;
		} while (got > 0);
		fclose(in);
		snprintf(path, sizeof (path), "%s/%s.lua", argv[1],
		    slash != NULL ? slash + 1 : argv[i]);
		if ((out = fopen(path, "w")) == NULL) {
			fprintf(stderr, "fuzz_lua_gen: %s: %s\n", path,
			    strerror(errno));
			free(data);
			return (1);
		}
		generate(data, size, out);
		if (fclose(out) != 0)
			rv = 1;
		free(data);
	}
	(void) remove_dir;
	return (rv);
}

#endif
