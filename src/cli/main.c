/*
 * main.c: the command line.  Parses arguments and hands over to the
 * classic statemap command or to a Lua script; nothing else lives here.
 */
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/duration.h"
#include "base/fatal.h"
#include "base/version.h"
#include "base/work.h"
#include "cli/classic.h"
#include "cli/palette_load.h"
#include "cli/panels.h"
#include "cli/repl.h"
#include "cli/script.h"
#include "cli/serve_command.h"
#include "coalesce/coalesce.h"
#include "ingest/kernel.h"
#include "output/detail.h"
#include "output/svg.h"
#include "store/cache.h"

#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: statemap-lua [OPTIONS] FILE...        classic statemap of FILEs (SVG)\n"
"       statemap-lua --serve [--port N] [--bind ADDR] [OPTIONS] FILE...\n"
"                                              the same, zoomed live over HTTP\n"
"       statemap-lua [--timeout TIME] [--memory-limit SIZE] [--no-cache]\n"
"                    SCRIPT.lua [ARGS...]     run a Lua script\n"
"       statemap-lua --interactive [-E CODE]... [SCRIPT.lua] [FILE...]\n"
"                                              Lua REPL over FILEs\n"
"       statemap-lua -E CODE [-E CODE]... [SCRIPT.lua] [FILE...]\n"
"                                              run Lua code over FILEs\n"
"       statemap-lua --clear-cache             empty the cache of loaded traces\n"
"\n"
"Options (FILE - is standard input; TIME 1500, 1.5ms, 2s; SIZE 4M, 2G):\n"
"  -b, --begin TIME         start at this offset into the trace\n"
"  -e, --end TIME           end at this offset\n"
"  -d, --duration TIME      this long (from -b, up to -e, or from 0)\n"
"  -c, --coalesce N         at most about N rectangles (default 25000)\n"
"  -s, --sortby STATE       sort entities by time in STATE (default: by name)\n"
"  -S, --stacksortby STATE  sort stacked files by time in STATE\n"
"  -i, --ignore-tags        ignore tags (-i is --interactive on a terminal)\n"
"  -h, --state-height PX    strip height (default 10)\n"
"  -f, --filter REGEX       only entities whose names match REGEX\n"
"  -n, --dry-run            read and coalesce, write nothing\n"
"  -o, --output FILE        write FILE, not standard output\n"
"  -T, --format FORMAT      svg (default), json, or chrome (trace-event JSON)\n"
"      --labels WHAT        both (default), name or description\n"
"      --palette NAME       colour the states from a palette: okabe_ito,\n"
"                           tableau10 or greys (not the file's colours)\n"
"      --detail SIZE        finer data for zooming into the SVG (0: none)\n"
"      --analysis LIST      a kernel trace's panels: threads,cpus,block\n"
"      --no-cache           neither use nor write the cache of loaded traces\n"
"      --port N             the port --serve listens on (default: a free one)\n"
"      --bind ADDR          the address it listens on (default 127.0.0.1)\n"
"  -E, --eval CODE          run Lua code (several run in order)\n"
"      --interactive        a Lua prompt over the FILEs (help() lists the API)\n"
"      --timeout TIME       stop Lua code running longer\n"
"      --memory-limit SIZE  stop Lua code needing more\n"
"      --help, --version    this summary, or the version\n"
"\n"
"The whole reference: man statemap-lua (the Lua API: man statemap-lua-api;\n"
"the input format: man statemap-lua-format).\n";

static void
usage_error(const char *fmt, const char *arg)
{
	fputs("statemap-lua: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'statemap-lua --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static int64_t
parse_time_option(const char *name, const char *text)
{
	const char *why = NULL;
	int64_t v;
	char msg[256];

	if (!duration_parse(text, &v, &why)) {
		snprintf(msg, sizeof (msg), "invalid %s \"%%s\": %s",
		    name, why);
		usage_error(msg, text);
	}
	return (v);
}

static unsigned long long
parse_count(const char *name, const char *text, unsigned long long max)
{
	char *end;
	unsigned long long v;
	char msg[256];

	if (text[0] >= '0' && text[0] <= '9') {
		v = strtoull(text, &end, 10);
		if (*end == '\0' && v >= 1 && v <= max)
			return (v);
	}
	snprintf(msg, sizeof (msg), "invalid %s \"%%s\": expected an "
	    "integer from 1 to %llu", name, max);
	usage_error(msg, text);
	return (0);
}

/* -b, -e and -d: any two of the three, or one alone. */
static void
resolve_bounds(classic_options *o, const char *b, const char *e,
    const char *d)
{
	int64_t begin = 0, end = 0, duration;

	if (b != NULL)
		begin = parse_time_option("begin", b);
	if (e != NULL) {
		end = parse_time_option("end", e);
		if (end == 0)
			usage_error("invalid end \"%s\": must be after 0", e);
	}
	if (d != NULL) {
		duration = parse_time_option("duration", d);
		if (duration == 0)
			usage_error("invalid duration \"%s\": must be more "
			    "than 0", d);
		if (b != NULL && e != NULL)
			usage_error("%s", "cannot give all of --begin, --end "
			    "and --duration: give any two");
		if (e != NULL) {
			if (duration > end)
				usage_error("%s", "--duration cannot exceed "
				    "--end");
			begin = end - duration;
		} else {
			if (begin > INT64_MAX - duration)
				usage_error("%s", "--begin plus --duration is "
				    "too large");
			end = begin + duration;
		}
	}
	if (e != NULL && end <= begin)
		usage_error("%s", "--begin must be before --end");
	o->begin = begin;
	o->end = end;
}

/*
 * Whether arg names a Lua script: its name ends in .lua, or it is a
 * regular file whose first bytes are text (no control character but
 * white space) and are a "#!" line, or begin (after white space) with a
 * letter, '_' or a "--" comment, where a trace begins with '{' (a JSON
 * object) and a compressed one with its format's magic number.
 */
static int
is_script(const char *arg)
{
	size_t len = strlen(arg), n, i;
	unsigned char head[64];
	struct stat st;
	FILE *f;

	if (len > 4 && strcmp(arg + len - 4, ".lua") == 0)
		return (1);
	if (strcmp(arg, "-") == 0 || stat(arg, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (f = fopen(arg, "rb")) == NULL)
		return (0);
	n = fread(head, 1, sizeof (head), f);
	fclose(f);
	for (i = 0; i < n; i++) {
		if (head[i] < 0x20 && head[i] != '\t' && head[i] != '\n' &&
		    head[i] != '\r')
			return (0);
	}
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return (1);
	for (i = 0; i < n && (head[i] == ' ' || head[i] == '\t' ||
	    head[i] == '\n' || head[i] == '\r'); i++)
		continue;
	if (i == n)
		return (0);
	return ((head[i] >= 'a' && head[i] <= 'z') || (head[i] >= 'A' &&
	    head[i] <= 'Z') || head[i] == '_' || (i + 1 < n &&
	    head[i] == '-' && head[i + 1] == '-'));
}

/* A size with an optional K, M or G suffix (powers of 1024). */
static size_t
parse_size(const char *name, const char *text)
{
	char *end;
	unsigned long long v;
	int shift = 0;
	char msg[128];

	v = strtoull(text, &end, 10);
	if (end != text && text[0] != '-') {
		if (*end == 'K' || *end == 'k')
			shift = 10;
		else if (*end == 'M' || *end == 'm')
			shift = 20;
		else if (*end == 'G' || *end == 'g')
			shift = 30;
		if (shift != 0)
			end++;
		if (*end == '\0' && v > 0 && v < (1ULL << (62 - shift)))
			return ((size_t)(v << shift));
	}
	snprintf(msg, sizeof (msg), "invalid %s \"%%s\": expected a size "
	    "such as 512M or 2G", name);
	usage_error(msg, text);
	return (0);
}

/* --timeout TIME (a bare number is seconds) or --memory-limit SIZE. */
static void
limit_option(const char *name, const char *value, script_limits *limits)
{
	if (strcmp(name, "--timeout") == 0) {
		char *end;
		double secs = strtod(value, &end);

		if (end != value && *end == '\0' && secs > 0 && secs < 1e9 &&
		    value[0] != '-')
			limits->timeout_ns = (uint64_t)(secs * 1e9);
		else if ((limits->timeout_ns = (uint64_t)
		    parse_time_option("timeout", value)) == 0)
			usage_error("invalid timeout \"%s\": must be more "
			    "than 0", value);
	} else {
		limits->memory_bytes = parse_size("memory limit", value);
	}
}

static int
is_limit_option(const char *a)
{
	return (strcmp(a, "--timeout") == 0 ||
	    strcmp(a, "--memory-limit") == 0);
}

/*
 * Script mode: [--timeout TIME] [--memory-limit SIZE] [--no-cache]
 * SCRIPT.lua ARGS...
 * Returns the index of the script in argv, or 0 if this is not script
 * mode.
 */
static int
script_options(int argc, char **argv, script_limits *limits)
{
	int i = 1, limited = 0;

	memset(limits, 0, sizeof (*limits));
	for (;;) {
		if (i < argc && strcmp(argv[i], "--no-cache") == 0) {
			cache_disable();
			i++;
		} else if (i + 1 < argc && is_limit_option(argv[i])) {
			limit_option(argv[i], argv[i + 1], limits);
			limited = 1;
			i += 2;
		} else {
			break;
		}
	}
	if (i < argc && is_script(argv[i]))
		return (i);
	if (limited)
		usage_error("%s", "--timeout and --memory-limit go before a "
		    "script (SCRIPT.lua)");
	return (0);
}

/* The index of the first argument after the script-mode options. */
static int
first_operand(int argc, char **argv)
{
	int i = 1;

	for (;;) {
		if (i < argc && strcmp(argv[i], "--no-cache") == 0)
			i++;
		else if (i + 1 < argc && is_limit_option(argv[i]))
			i += 2;
		else
			return (i);
	}
}

static int
is_output_option(const char *a)
{
	return (strncmp(a, "-o", 2) == 0 || strcmp(a, "--output") == 0 ||
	    strncmp(a, "--output=", 9) == 0);
}

static int
is_eval_option(const char *a)
{
	return (strcmp(a, "-E") == 0 || strcmp(a, "--eval") == 0);
}

/* The option at argv[*i] that takes a value: returns the value and steps
 * over it, or exits with a usage error if there is none. */
static char *
option_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error("option %s needs a value", argv[*i]);
	return (argv[++*i]);
}

/*
 * Lua mode is --interactive; -i alone when standard output is a terminal
 * and there is no -o (the original tool's -i, --ignore-tags, always has
 * its SVG redirected or sent to -o, so both uses keep working); or -E
 * CODE.  An option means one thing whatever its value looks like: -e is
 * --end everywhere (in Lua mode, with -b and -d, the window the FILEs
 * are loaded with).  Returns 0 for the classic command, else fills r.
 */
static int
lua_mode(int argc, char **argv, repl_options *r)
{
	int i, repl = 0, short_i = 0, output = 0, code = 0, rest = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--interactive") == 0)
			repl = 1;
		else if (strcmp(argv[i], "-i") == 0)
			short_i = 1;
		else if (is_output_option(argv[i]) ||
		    strcmp(argv[i], "--serve") == 0)
			output = 1;	/* -i is then --ignore-tags */
		else if (is_eval_option(argv[i]))
			code = 1;
	}
	if (short_i && !output && isatty(STDOUT_FILENO))
		repl = 1;
	if (!repl && !code)
		return (0);
	memset(r, 0, sizeof (*r));
	r->interactive = repl;
	if ((r->files = calloc((size_t)argc, sizeof (char *))) == NULL ||
	    (r->chunks = calloc((size_t)argc, sizeof (char *))) == NULL) {
		fputs("statemap-lua: out of memory\n", stderr);
		exit(1);
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (rest || r->script != NULL) {
			/* After the script, like lua: its arguments. */
			r->files[r->nfiles++] = argv[i];
		} else if (strcmp(a, "--") == 0) {
			rest = 1;
		} else if (strcmp(a, "--interactive") == 0) {
			continue;
		} else if (strcmp(a, "--no-cache") == 0) {
			cache_disable();
		} else if (strcmp(a, "-i") == 0) {
			r->ignore_tags |= !repl;
		} else if (strcmp(a, "--ignore-tags") == 0 ||
		    strcmp(a, "--ignoreTags") == 0) {
			r->ignore_tags = 1;
		} else if (is_eval_option(a)) {
			r->chunks[r->nchunks++] = option_value(argc, argv, &i);
		} else if (strcmp(a, "-b") == 0 || strcmp(a, "--begin") == 0) {
			r->begin = option_value(argc, argv, &i);
		} else if (strcmp(a, "-e") == 0 || strcmp(a, "--end") == 0) {
			r->end = option_value(argc, argv, &i);
		} else if (strcmp(a, "-d") == 0 ||
		    strcmp(a, "--duration") == 0) {
			r->duration = option_value(argc, argv, &i);
		} else if (strcmp(a, "--analysis") == 0) {
			unsigned set;

			r->analysis = option_value(argc, argv, &i);
			if (kernel_analyses_parse(r->analysis,
			    strlen(r->analysis), &set) != 0)
				usage_error("unknown analysis in \"%s\": "
				    "expected threads, cpus or block, separated "
				    "by commas", r->analysis);
		} else if (is_limit_option(a)) {
			limit_option(a, option_value(argc, argv, &i),
			    &r->limits);
		} else if (a[0] == '-' && a[1] != '\0') {
			usage_error("option %s is not one of Lua mode (-i, "
			    "--interactive, -E CODE, -b, -e, -d, "
			    "--ignore-tags, --no-cache, --analysis)", a);
		} else if (is_script(a)) {
			r->script = a;
		} else {
			r->files[r->nfiles++] = argv[i];
		}
	}
	/* The same checks as the classic command's, before any loading. */
	{
		classic_options bounds;

		resolve_bounds(&bounds, r->begin, r->end, r->duration);
	}
	if (repl) {
		for (i = 0; i < r->nfiles; i++)
			if (strcmp(r->files[i], "-") == 0)
				usage_error("%s", "the REPL reads its statements "
				    "from standard input, so a trace cannot "
				    "come from there (-)");
	}
	return (1);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "begin", required_argument, NULL, 'b' },
		{ "end", required_argument, NULL, 'e' },
		{ "duration", required_argument, NULL, 'd' },
		{ "coalesce", required_argument, NULL, 'c' },
		{ "sortby", required_argument, NULL, 's' },
		{ "stacksortby", required_argument, NULL, 'S' },
		{ "ignore-tags", no_argument, NULL, 'i' },
		{ "ignoreTags", no_argument, NULL, 'i' },
		{ "state-height", required_argument, NULL, 'h' },
		{ "stateHeight", required_argument, NULL, 'h' },
		{ "filter", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "labels", required_argument, NULL, 'L' },
		{ "serve", no_argument, NULL, 'W' },
		{ "port", required_argument, NULL, 'P' },
		{ "bind", required_argument, NULL, 'B' },
		{ "detail", required_argument, NULL, 'D' },
		{ "analysis", required_argument, NULL, 'K' },
		{ "palette", required_argument, NULL, 'Q' },
		{ NULL, 0, NULL, 0 }
	};
	classic_options o;
	const char *b = NULL, *e = NULL, *d = NULL, *filter = NULL;
	const char *port = NULL, *bind = NULL;	/* --serve */
	int serve = 0, detail_given = 0;
	unsigned analyses = 0;	/* --analysis */
	panels pn;
	palette_option palette = { NULL, 0, 0 };	/* --palette */
	sm_error perr;
	regex_t re;
	script_limits limits;
	repl_options ro;
	int c, i, rv;

	work_init();
#ifdef __GLIBC__
	/*
	 * Large arrays (the store's columns as they grow) always from mmap,
	 * given back when freed.  Otherwise glibc raises its threshold at
	 * each such free, the columns grown after come from the heap, and
	 * the copies they leave behind there stay resident: a third more
	 * than the store itself on a kernel trace of 23,000 threads.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif

	if (argc == 2 && strcmp(argv[1], "--clear-cache") == 0)
		return (cache_clear(stdout) < 0 ? 1 : 0);
	/* Ctrl-C is the Lua interrupt in Lua modes (script.h). */
	fatal_handle_signals(0);
	i = first_operand(argc, argv);
	if (!(i < argc && is_script(argv[i])) && lua_mode(argc, argv, &ro)) {
		rv = repl_run(&ro);
		free(ro.files);
		free(ro.chunks);
		return (rv);
	}
	if ((i = script_options(argc, argv, &limits)) > 0)
		return (script_run(argc - i, argv + i, &limits));

	opterr = 0;		/* our own messages, without argv[0]'s path */
	memset(&o, 0, sizeof (o));
	o.coalesce = COALESCE_BUDGET;
	o.strip_height = SVG_STRIP_HEIGHT;
	o.format = FORMAT_SVG;
	o.detail = DETAIL_AUTO;
	while ((c = getopt_long(argc, argv, ":b:e:d:c:s:S:ih:f:no:T:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'b': b = optarg; break;
		case 'e': e = optarg; break;
		case 'd': d = optarg; break;
		case 'c':
			o.coalesce = parse_count("coalesce target", optarg,
			    1000000000ULL);
			break;
		case 's': o.sortby = optarg; break;
		case 'S': o.stacksortby = optarg; break;
		case 'i': o.ignore_tags = 1; break;
		case 'h':
			o.strip_height = (unsigned)parse_count("state height",
			    optarg, 1000);
			break;
		case 'f': filter = optarg; break;
		case 'n': o.dry_run = 1; break;
		case 'o': o.output = optarg; break;
		case 'T':
			if (strcmp(optarg, "svg") == 0)
				o.format = FORMAT_SVG;
			else if (strcmp(optarg, "json") == 0)
				o.format = FORMAT_JSON;
			else if (strcmp(optarg, "chrome") == 0)
				o.format = FORMAT_CHROME;
			else
				usage_error("unknown format \"%s\": expected "
				    "svg, json or chrome", optarg);
			break;
		case 'C': cache_disable(); break;	/* classic never caches */
		case 'L':
			if (label_mode_parse(optarg, &o.labels) != 0)
				usage_error("unknown label mode \"%s\": expected "
				    "both, name or description", optarg);
			break;
		case 'D':
			if (detail_parse_size(optarg, &o.detail) != 0)
				usage_error("invalid detail size \"%s\": expected "
				    "bytes, with K, M or G, up to 1G (0: none)",
				    optarg);
			detail_given = 1;
			break;
		case 'K':
			if (kernel_analyses_parse(optarg, strlen(optarg),
			    &analyses) != 0)
				usage_error("unknown analysis in \"%s\": expected "
				    "threads, cpus or block, separated by commas",
				    optarg);
			break;
		case 'Q':
			palette_option_free(&palette);
			if (palette_option_load(optarg, &palette, &perr) != 0) {
				error_print(&perr, stderr);
				return (EXIT_USAGE);
			}
			o.palette = &palette;
			break;
		case 'W': serve = 1; break;
		case 'P': port = optarg; break;
		case 'B': bind = optarg; break;
		case 'H':
			fputs(usage_text, stdout);
			return (0);
		case 'V':
			printf("statemap-lua %s\n", STATEMAP_VERSION);
			return (0);
		case ':':
			usage_error("option %s needs a value",
			    argv[optind - 1]);
			break;
		default:
			if (optopt != 0) {
				char opt[3] = { '-', (char)optopt, '\0' };

				usage_error("unknown option %s", opt);
			}
			usage_error("unknown option %s", argv[optind - 1]);
			break;
		}
	}
	if (optind >= argc)
		usage_error("%s", "no trace file given (use - for standard "
		    "input)");
	resolve_bounds(&o, b, e, d);
	if (filter != NULL) {
		int err = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB);

		if (err != 0) {
			char msg[256];

			regerror(err, &re, msg, sizeof (msg));
			fprintf(stderr, "statemap-lua: invalid filter \"%s\": "
			    "%s\n", filter, msg);
			return (EXIT_USAGE);
		}
		o.filter = &re;
	}
	if (!serve && (port != NULL || bind != NULL))
		usage_error("%s", "--port and --bind go with --serve");
	if (detail_given && (serve || o.format != FORMAT_SVG))
		usage_error("%s", "--detail is for the SVG: it does not go with "
		    "--serve, -T json or -T chrome");
	if (o.format == FORMAT_CHROME && argc - optind != 1)
		usage_error("%s", "-T chrome writes one trace: give one file");
	/* A kernel trace is a panel per analysis (panels.h). */
	if (panels_of(argv + optind, argc - optind, analyses, &pn,
	    &perr) != 0) {
		error_print(&perr, stderr);
		if (filter != NULL)
			regfree(&re);
		return (1);
	}
	o.analyses = pn.analyses;
	if (serve) {
		rv = serve_command(&o, pn.paths, pn.n, port, bind);
	} else if (o.output == NULL && o.format == FORMAT_SVG && !o.dry_run &&
	    isatty(STDOUT_FILENO)) {
		/* As compressors do: megabytes of SVG are no use there. */
		fprintf(stderr, "statemap-lua: standard output is a terminal: "
		    "redirect it (> trace.svg) or use -o FILE (-o - writes "
		    "to it all the same)\n");
		rv = EXIT_USAGE;
	} else {
		fatal_handle_signals(1);
		rv = classic_run(&o, pn.paths, pn.n);
	}
	panels_free(&pn);
	palette_option_free(&palette);
	if (filter != NULL)
		regfree(&re);
	return (rv);
}
