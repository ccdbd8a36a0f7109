/*
 * Tests for src/store/cache.h's own functions: the size limit and how
 * STATEMAP_CACHE_SIZE is read, where the directory is (cache_directory.h),
 * cache_clear, and entries made up with cache_seal (a right checksum for
 * the wrong content), so that every check behind the checksum is seen to
 * reject: states, tags and times out of range or order, offsets, counts,
 * lengths, names.  The offsets of the header's fields are those of
 * src/store/cache_internal.h's `header`.
 */
#include <stdint.h>

#include "store/cache.h"
#include "store/cache_directory.h"
#include "cachetest.h"

/* Where cache_internal.h's header keeps what these tests change. */
#define H_FILE_SIZE	96
#define H_META_OFF	104
#define H_META_LEN	112
#define H_COLS_OFF	120
#define H_NCOLS		128
#define H_SIZE		136
/* A column descriptor: count, time_off, state_off, tag_off, kind,
 * depth_off, vcount, vtime_off, value_off. */
#define DESC_SIZE	72
#define D_KIND		32
#define D_DEPTH_OFF	40
#define D_VCOUNT	48
#define D_VTIME_OFF	56
#define D_VALUE_OFF	64

static uint64_t
get64(const unsigned char *p, size_t at)
{
	uint64_t v;

	memcpy(&v, p + at, 8);
	return (v);
}

static void
put64(unsigned char *p, size_t at, uint64_t v)
{
	memcpy(p + at, &v, 8);
}

/* Runs f() with stderr going to a file; what it wrote goes to out. */
static void
capture_stderr(void (*f)(void *), void *arg, char *out, size_t size)
{
	char errfile[600];
	int saved, fd;
	FILE *in;
	size_t n;

	scratch_path(errfile, sizeof (errfile), "stderr.txt");
	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	in = fopen(errfile, "r");
	n = in != NULL ? fread(out, 1, size - 1, in) : 0;
	out[n] = '\0';
	if (in != NULL)
		fclose(in);
}

static uint64_t limit_got;

static void
read_limit(void *arg)
{
	(void) arg;
	limit_got = cache_size_limit();
}

static void
test_limit(void)
{
	static const struct {
		const char *text;
		uint64_t want;
	} good[] = {
		{ "0", 0 }, { "123", 123 }, { "1K", 1024 }, { "1k", 1024 },
		{ "500M", 500ull << 20 }, { "2G", 2ull << 30 },
		{ "2GB", 2ull << 30 }, { "2GiB", 2ull << 30 },
		{ "1.5G", 3ull << 29 }, { "1T", 1ull << 40 },
		{ "4096B", 4096 },
	};
	static const char *bad[] = { "abc", "5X", "-1", "1e9", " 5M", "5 ",
	    "5M ", "1.5.5G", "99999999999999999999", "8E", "G" };
	char err[1024], name[128];
	size_t i;

	unsetenv("STATEMAP_CACHE_SIZE");
	CHECK_U64("limit: 1 GiB by default", cache_size_limit(), 1ull << 30);
	for (i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
		snprintf(name, sizeof (name), "limit: STATEMAP_CACHE_SIZE=%s",
		    good[i].text);
		setenv("STATEMAP_CACHE_SIZE", good[i].text, 1);
		CHECK_U64(name, cache_size_limit(), good[i].want);
	}
	setenv("STATEMAP_CACHE_SIZE", bad[0], 1);
	capture_stderr(read_limit, NULL, err, sizeof (err));
	CHECK_STR("limit: a value that is not a size is warned about", err,
	    "statemap-lua: STATEMAP_CACHE_SIZE=\"abc\" is not a size (such "
	    "as 500M or 2G): using 1G\n");
	CHECK_U64("limit: ... and the default used", limit_got, 1ull << 30);
	for (i = 1; i < sizeof (bad) / sizeof (bad[0]); i++) {
		snprintf(name, sizeof (name), "limit: STATEMAP_CACHE_SIZE=\"%s\" "
		    "is not a size (the default, quietly: warned once)", bad[i]);
		setenv("STATEMAP_CACHE_SIZE", bad[i], 1);
		capture_stderr(read_limit, NULL, err, sizeof (err));
		CHECK(name, limit_got == 1ull << 30 && err[0] == '\0');
	}
	unsetenv("STATEMAP_CACHE_SIZE");
}

static void
test_directory(void)
{
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *xdg = strdup(getenv("XDG_CACHE_HOME")), *d;

	setenv("XDG_CACHE_HOME", "/some/where", 1);
	d = cache_directory();
	CHECK_STR("directory: $XDG_CACHE_HOME/statemap-lua", d,
	    "/some/where/statemap-lua");
	free(d);
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	d = cache_directory();
	CHECK_STR("directory: a relative XDG_CACHE_HOME is ignored", d,
	    "/home/u/.cache/statemap-lua");
	free(d);
	unsetenv("HOME");
	d = cache_directory();
	CHECK("directory: none without an absolute HOME", d == NULL);
	free(d);
	if (home != NULL)
		setenv("HOME", home, 1);
	setenv("XDG_CACHE_HOME", xdg, 1);
	free(home);
	free(xdg);
}

static int clear_result;
static FILE *clear_report;

static void
run_clear(void *arg)
{
	(void) arg;
	clear_result = cache_clear(clear_report);
}

static void
test_clear(void)
{
	char a[600], b[600], ea[1024], eb[1024], notes[700], tmp[700];
	char out[1024], err[1024], want[1024], outfile[600], tail[700];
	char *line2;
	uint64_t fa;
	trace *da;
	FILE *f;

	remove_tree(cachedir);
	scratch_path(outfile, sizeof (outfile), "report.txt");
	clear_report = fopen(outfile, "w+");
	capture_stderr(run_clear, NULL, err, sizeof (err));
	CHECK_INT("clear: no directory: nothing to remove", clear_result, 0);
	scratch_path(a, sizeof (a), "clear-a.out");
	scratch_path(b, sizeof (b), "clear-b.out");
	write_trace(a, 40, 3000);
	write_trace(b, 41, 3000);
	fa = load_digest(a, 1, NULL);
	if (!entry_of(a, ea, sizeof (ea)) || !entry_of(b, eb, sizeof (eb))) {
		CHECK("clear: two entries", 0);
		return;
	}
	snprintf(notes, sizeof (notes), "%s/notes.txt", cachedir);
	snprintf(tmp, sizeof (tmp), "%s/0123456789abcdef.smc."
	    "0123456789abcdef.tmp", cachedir);
	f = fopen(notes, "w");
	fclose(f);
	f = fopen(tmp, "w");
	fclose(f);
	da = load(a, 0);
	capture_stderr(run_clear, NULL, err, sizeof (err));
	CHECK_INT("clear: removes every entry", clear_result, 2);
	CHECK("clear: ... entries and temporary files gone, other files kept",
	    access(ea, F_OK) != 0 && access(eb, F_OK) != 0 &&
	    access(tmp, F_OK) != 0 && access(notes, F_OK) == 0 &&
	    err[0] == '\0');
	fflush(clear_report);
	rewind(clear_report);
	out[fread(out, 1, sizeof (out) - 1, clear_report)] = '\0';
	snprintf(want, sizeof (want), "removed 0 entries (0.0 MB) from %s\n",
	    cachedir);
	line2 = strchr(out, '\n') != NULL ? strchr(out, '\n') + 1 : out;
	snprintf(tail, sizeof (tail), " MB) from %s\n", cachedir);
	CHECK("clear: one line of report each time",
	    strncmp(out, want, strlen(want)) == 0 &&
	    strncmp(line2, "removed 2 entries (", 19) == 0 &&
	    strlen(line2) > strlen(tail) &&
	    strcmp(line2 + strlen(line2) - strlen(tail), tail) == 0);
	CHECK("clear: an entry in use still reads right",
	    da->cache_map != NULL && digest(da, NULL) == fa);
	trace_free(da);

	chmod(cachedir, 0777);
	capture_stderr(run_clear, NULL, err, sizeof (err));
	snprintf(want, sizeof (want), "statemap-lua: not clearing the cache "
	    "directory %s: it is writable by others\n", cachedir);
	CHECK_STR("clear: a directory others may write is left alone", err,
	    want);
	CHECK_INT("clear: ... and -1", clear_result, -1);
	chmod(cachedir, 0700);
	fclose(clear_report);
}

/* ---- entries made up, with a right checksum ---- */

static char sealed_trace[600];
static cache_key sealed_key;
static char *sealed_entry;
static unsigned char *pristine;
static size_t pristine_len;
static uint64_t sealed_fresh;

/*
 * Writes bytes (len of them) sealed as the trace's entry and loads: 1 if
 * they were used, 0 if rejected (and then the load must be a fresh one).
 */
static int
try_sealed(unsigned char *bytes, size_t len, uint64_t *h)
{
	int fc;

	cache_seal(bytes, len, &sealed_key);
	if (write_over(sealed_entry, bytes, len) != 0)
		return (-1);
	*h = load_digest(sealed_trace, 0, &fc);
	return (fc);
}

/*
 * Loads sealed_trace fresh (its digest in sealed_fresh), then again to
 * write its entry, which is read into pristine: 0 (a failed check named
 * what) if there is none.
 */
static int
sealed_open(const char *what)
{
	sealed_fresh = load_digest(sealed_trace, 1, NULL);
	trace_free(load(sealed_trace, 0));
	if (cache_key_of(sealed_trace, &sealed_key) != 0 ||
	    (sealed_entry = cache_entry_path(&sealed_key)) == NULL ||
	    (pristine = read_whole(sealed_entry, &pristine_len)) == NULL) {
		CHECK(what, 0);
		return (0);
	}
	return (1);
}

/* What sealed_open made, and a test's copy of the entry. */
static void
sealed_close(unsigned char *copy)
{
	free(copy);
	free(pristine);
	free(sealed_entry);
	cache_key_free(&sealed_key);
}

/* The column descriptor of entity e, in a copy of the entry. */
static size_t
desc_of(const unsigned char *p, uint64_t e)
{
	return ((size_t)get64(p, H_COLS_OFF) + (size_t)e * DESC_SIZE);
}

/* Checks that a made-up entry (already changed in copy) is rejected. */
static void
rejects(const char *name, unsigned char *copy, size_t len)
{
	uint64_t h = 0;
	int used = try_sealed(copy, len, &h);

	UNIT_REPORT(used == 0 && h == sealed_fresh, name,
	    "used %d, the same as a fresh load: %d", used, h == sealed_fresh);
}

static void
test_sealed(void)
{
	unsigned char *copy;
	size_t len, d0, d1, at;
	uint64_t h, ncols, e, tagged = UINT64_MAX;

	remove_tree(cachedir);
	scratch_path(sealed_trace, sizeof (sealed_trace), "sealed.out");
	write_trace(sealed_trace, 50, 3000);
	if (!sealed_open("sealed: an entry"))
		return;
	len = pristine_len;
	copy = malloc(len + 64);
	ncols = get64(pristine, H_NCOLS);
	for (e = 0; e < ncols; e++)
		if (get64(pristine, desc_of(pristine, e) + 24) != 0 &&
		    tagged == UINT64_MAX)
			tagged = e;
	d0 = desc_of(pristine, 0);
	d1 = desc_of(pristine, 1);
	CHECK("sealed: the entry is where cache_entry_path says, with "
	    "columns, some tagged", ncols >= 2 && tagged != UINT64_MAX &&
	    get64(pristine, d0) > 2);

	/* A valid change is used as it is: the seal is right. */
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 16);
	copy[at] = (unsigned char)((copy[at] + 1) % 4);
	CHECK("sealed: a valid change to a state is used as it is",
	    try_sealed(copy, len, &h) == 1 && h != sealed_fresh);
	memcpy(copy, pristine, len);
	CHECK("sealed: the entry itself is used", try_sealed(copy, len, &h) ==
	    1 && h == sealed_fresh);

	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 16) + 2;
	copy[at] = 0xfe;	/* the largest state a store can hold */
	copy[at + 1] = 0xff;
	rejects("sealed: state 65534 rejected", copy, len);
	/* 65535 is no state but the end of data (store.h's STORE_GAP). */
	memcpy(copy, pristine, len);
	copy[at] = 0xff;
	copy[at + 1] = 0xff;
	CHECK("sealed: state 65535, no data, is used", try_sealed(copy, len,
	    &h) == 1);
	memcpy(copy, pristine, len);
	copy[at] = 4;		/* the trace has 4 states */
	copy[at + 1] = 0;
	rejects("sealed: state nstates rejected", copy, len);

	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, desc_of(copy, tagged) + 24);
	memcpy(copy + at, "\x10\x00\x00\x00", 4);
	rejects("sealed: a tag id beyond the tags rejected", copy, len);
	memcpy(copy, pristine, len);
	memcpy(copy + at, "\xfe\xff\xff\xff", 4);
	rejects("sealed: tag id 2^32 - 2 rejected", copy, len);

	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d1 + 8);
	put64(copy, at + 8, get64(copy, at) - 1);
	rejects("sealed: times going backwards rejected", copy, len);

	memcpy(copy, pristine, len);
	put64(copy, d1 + 8, get64(copy, d1 + 8) + 8);
	rejects("sealed: a time column moved rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, d1 + 16, get64(copy, d0 + 16));
	rejects("sealed: two columns at the same place rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, d1 + 16, (uint64_t)1 << 60);
	rejects("sealed: a column far past the end rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, d0, get64(copy, d0) + 1);
	rejects("sealed: a count one too many rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, d0, UINT64_MAX / 8);
	rejects("sealed: a huge count rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, desc_of(copy, tagged) + 24, 0);
	rejects("sealed: a tag column dropped rejected", copy, len);

	memcpy(copy, pristine, len);
	put64(copy, H_NCOLS, UINT64_MAX / DESC_SIZE);
	rejects("sealed: a huge number of columns rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, H_META_LEN, get64(copy, H_META_LEN) + 8);
	rejects("sealed: a meta length too long rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, H_META_OFF, get64(copy, H_META_OFF) + 8);
	rejects("sealed: meta moved rejected", copy, len);
	memcpy(copy, pristine, len);
	/* nstates: after "t50", "h", "Thread" and three numbers. */
	at = (size_t)get64(copy, H_META_OFF) + 11 + 9 + 14 + 24;
	put64(copy, at, 0);
	rejects("sealed: names and states damaged rejected", copy, len);

	memcpy(copy, pristine, len);
	rejects("sealed: truncated by 8 bytes rejected", copy, len - 8);
	memcpy(copy, pristine, len);
	put64(copy, H_FILE_SIZE, len - 8);
	rejects("sealed: ... with its size said rejected", copy, len - 8);
	memcpy(copy, pristine, len);
	memset(copy + len, 0, 64);
	rejects("sealed: 64 bytes too long rejected", copy, len + 64);
	memcpy(copy, pristine, len);
	rejects("sealed: only a header rejected", copy, H_SIZE);
	rejects("sealed: shorter than a header rejected", copy, H_SIZE - 1);
	memcpy(copy, pristine, len);
	copy[8] = 1;		/* version */
	rejects("sealed: another version rejected", copy, len);
	sealed_close(copy);
}

/*
 * Columns are checked a chunk (8192 transitions) at a time: values out of
 * range in a whole chunk, and times going backwards across the boundary
 * between two chunks, must be caught as well as anywhere else.
 */
static void
test_sealed_chunks(void)
{
	unsigned char *copy;
	size_t len, d0, at;
	uint64_t h, count;
	FILE *f;
	int i;

	remove_tree(cachedir);
	scratch_path(sealed_trace, sizeof (sealed_trace), "chunks.out");
	f = fopen(sealed_trace, "w");
	fprintf(f, "{\"start\": [0, 0], \"states\": {\"a\": {\"value\": 0}, "
	    "\"b\": {\"value\": 1}}}\n");
	for (i = 0; i < 20000; i++)
		fprintf(f, "{\"time\": \"%d\", \"entity\": \"big\", "
		    "\"state\": %d%s}\n", 1000 + i, i % 2,
		    i % 7 == 0 ? ", \"tag\": \"t\"" : "");
	fclose(f);
	if (!sealed_open("chunks: an entry"))
		return;
	len = pristine_len;
	copy = malloc(len);
	d0 = desc_of(pristine, 0);
	count = get64(pristine, d0);
	CHECK("chunks: one entity of 20000 transitions, tagged",
	    count == 20000 && get64(pristine, d0 + 24) != 0);
	memcpy(copy, pristine, len);
	CHECK("chunks: the entry is used", try_sealed(copy, len, &h) == 1 &&
	    h == sealed_fresh);

	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 16) + 9000 * 2;
	copy[at] = 2;
	rejects("chunks: a state out of range in a whole chunk rejected",
	    copy, len);
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 16) + 19999 * 2;
	copy[at] = 2;
	rejects("chunks: ... and in the last, short one", copy, len);
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 24) + 9000 * 4;
	memcpy(copy + at, "\x05\x00\x00\x00", 4);
	rejects("chunks: a tag out of range in a whole chunk rejected", copy,
	    len);
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, d0 + 8);
	put64(copy, at + 8192 * 8, get64(copy, at + 8191 * 8) - 1);
	rejects("chunks: times going backwards from one chunk to the next "
	    "rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, at + 8193 * 8, get64(copy, at + 8192 * 8) - 1);
	rejects("chunks: ... and just after the boundary", copy, len);
	sealed_close(copy);
}

/*
 * A trace with nested and value entities: kept in the cache and loaded
 * back the same (stacks, values, strings, summaries: the digest has
 * them), and every check of their columns seen to reject a made-up
 * entry: depths no push or pop leads to, a push before any state, value
 * strings the catalog lacks, NaN and other patterns no value has, value
 * times going backwards, a kind with columns it cannot have.
 */
static void
test_sealed_kinds(void)
{
	unsigned char *copy;
	size_t len, dn, dv, at;
	uint64_t h, ncols, e, nested = UINT64_MAX, valued = UINT64_MAX;
	FILE *f;
	int i;

	remove_tree(cachedir);
	scratch_path(sealed_trace, sizeof (sealed_trace), "kinds.out");
	f = fopen(sealed_trace, "w");
	fprintf(f, "{\"start\": [0, 0], \"states\": {\"a\": {\"value\": 0}, "
	    "\"b\": {\"value\": 1}, \"c\": {\"value\": 2}}}\n");
	fprintf(f, "{\"state\": 1, \"tag\": \"f\", \"fn\": \"main\"}\n");
	for (i = 0; i < 3000; i++) {
		int t = 1000 + i * 10;

		fprintf(f, "{\"time\": \"%d\", \"entity\": \"plain\", "
		    "\"state\": %d}\n", t, i % 3);
		if (i % 4 == 0)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/t1\", "
			    "\"state\": 0}\n", t);
		else if (i % 4 == 1)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/t1\", "
			    "\"push\": 1, \"tag\": \"f\"}\n", t);
		else if (i % 4 == 2)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/t1\", "
			    "\"push\": 2}\n", t);
		else
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/t1\", "
			    "\"pop\": 2}\n", t);
		if (i % 5 == 3)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/name\", "
			    "\"value\": \"%s\"}\n", t, i % 2 ? "run" : "wait");
		else if (i % 5 == 4)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/mem\", "
			    "\"value\": null}\n", t);
		else
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"p/mem\", "
			    "\"value\": %d.25}\n", t, (i * 37) % 1000 - 300);
	}
	fclose(f);
	if (!sealed_open("kinds: an entry"))
		return;
	len = pristine_len;
	copy = malloc(len);
	ncols = get64(pristine, H_NCOLS);
	for (e = 0; e < ncols; e++) {
		uint64_t kind = get64(pristine, desc_of(pristine, e) + D_KIND);

		if (kind == STORE_NESTED && nested == UINT64_MAX)
			nested = e;
		if (kind == STORE_VALUES && valued == UINT64_MAX &&
		    get64(pristine, desc_of(pristine, e) + D_VCOUNT) > 100)
			valued = e;
	}
	CHECK("kinds: the entry has a nested and a value entity",
	    nested != UINT64_MAX && valued != UINT64_MAX);
	if (nested == UINT64_MAX || valued == UINT64_MAX) {
		sealed_close(copy);
		return;
	}
	dn = desc_of(pristine, nested);
	dv = desc_of(pristine, valued);
	memcpy(copy, pristine, len);
	CHECK("kinds: the entry is used, and loads as a fresh load does",
	    try_sealed(copy, len, &h) == 1 && h == sealed_fresh);

	/* Depths: 1, 2, 3, 2 over and over (plain, push, push, pop). */
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, dn + D_DEPTH_OFF);
	CHECK("kinds: depths as written", copy[at] == 1 && copy[at + 2] == 2 &&
	    copy[at + 4] == 3 && copy[at + 6] == 2);
	copy[at + 2] = 3;
	rejects("kinds: a push two deep at once rejected", copy, len);
	memcpy(copy, pristine, len);
	copy[at] = 2;
	rejects("kinds: a push before any state rejected", copy, len);
	memcpy(copy, pristine, len);
	copy[at + 6] = 1;
	CHECK("kinds: a pop taken for a plain datum (a valid change) is used",
	    try_sealed(copy, len, &h) == 1 && h != sealed_fresh);
	memcpy(copy, pristine, len);
	copy[at + 2] = 0;
	rejects("kinds: depth 0 rejected", copy, len);
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, dn + 8);
	put64(copy, at + 16, get64(copy, at + 8) - 1);
	rejects("kinds: a nested entity's times going backwards rejected",
	    copy, len);

	/* Values: numbers, null, and strings by id. */
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, dv + D_VALUE_OFF);
	put64(copy, at + 8, 0xfffa000000000007ull);
	rejects("kinds: a value string id the catalog lacks rejected", copy,
	    len);
	memcpy(copy, pristine, len);
	put64(copy, at + 8, 0xfffa000100000000ull);
	rejects("kinds: a string pattern with stray bits rejected", copy,
	    len);
	memcpy(copy, pristine, len);
	put64(copy, at + 8, 0x7ff8000000000000ull);
	rejects("kinds: NaN as a number rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, at + 8, 0xfff9000000000001ull);
	rejects("kinds: a near-null pattern rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, at + 8, 0x4010000000000000ull);	/* 4.0 */
	CHECK("kinds: a number changed (a valid change) is used",
	    try_sealed(copy, len, &h) == 1 && h != sealed_fresh);
	memcpy(copy, pristine, len);
	at = (size_t)get64(copy, dv + D_VTIME_OFF);
	put64(copy, at + 16, get64(copy, at + 8) - 1);
	rejects("kinds: value times going backwards rejected", copy, len);

	/* Kinds and the columns they may have. */
	memcpy(copy, pristine, len);
	put64(copy, dv + D_KIND, 7);
	rejects("kinds: an unknown kind rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, dv + D_KIND, STORE_STATES);
	rejects("kinds: values under a state entity rejected", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, dn + D_KIND, STORE_STATES);
	rejects("kinds: a nested entity said plain rejected (its depths "
	    "lie where nothing is laid out)", copy, len);
	memcpy(copy, pristine, len);
	put64(copy, dn + D_VALUE_OFF, 8);
	rejects("kinds: a value column moved rejected", copy, len);
	sealed_close(copy);
}

/*
 * An entry is replayed entity by entity, not in file order: a nested
 * entity whose long plain start comes before any other entity's push in
 * the entry, though not in the file, must not send the store to disk
 * half way (which loses what follows) under a memory budget that the
 * fresh load kept within.
 */
static void
test_kinds_budget(void)
{
	uint64_t fresh, cached;
	int from_cache = 0, i;
	FILE *f;

	remove_tree(cachedir);
	scratch_path(sealed_trace, sizeof (sealed_trace), "budget.out");
	f = fopen(sealed_trace, "w");
	fprintf(f, "{\"start\": [0, 0], \"states\": {\"a\": {\"value\": 0}, "
	    "\"b\": {\"value\": 1}}}\n");
	fprintf(f, "{\"time\": \"0\", \"entity\": \"long\", \"state\": 0}\n");
	fprintf(f, "{\"time\": \"1\", \"entity\": \"early\", \"state\": 0}\n");
	fprintf(f, "{\"time\": \"2\", \"entity\": \"early\", \"push\": 1}\n");
	for (i = 0; i < 200000; i++)
		fprintf(f, "{\"time\": \"%d\", \"entity\": \"long\", "
		    "\"state\": %d}\n", 10 + i, i % 2);
	fprintf(f, "{\"time\": \"300000\", \"entity\": \"long\", "
	    "\"push\": 1}\n");
	fclose(f);
	setenv("STATEMAP_SPILL_BYTES", "1M", 1);
	fresh = load_digest(sealed_trace, 1, NULL);
	trace_free(load(sealed_trace, 0));
	cached = load_digest(sealed_trace, 0, &from_cache);
	unsetenv("STATEMAP_SPILL_BYTES");
	CHECK("kinds budget: the entry is used", from_cache == 1);
	CHECK("kinds budget: a replayed nested entity stays whole in memory",
	    cached == fresh);
}

/* Last: cache_disable cannot be undone. */
static void
test_disable(void)
{
	char path[600];
	cache_key key;
	int fc;

	remove_tree(cachedir);
	scratch_path(path, sizeof (path), "disabled.out");
	write_trace(path, 60, 100);
	cache_disable();
	CHECK_U64("disable: the limit is then 0", cache_size_limit(), 0);
	CHECK_INT("disable: no key", cache_key_of(path, &key), -1);
	(void) load_digest(path, 0, &fc);
	CHECK("disable: nothing written", access(cachedir, F_OK) != 0 && !fc);
}

int
main(void)
{
	scratch_setup();
	test_limit();
	test_directory();
	test_clear();
	test_sealed();
	test_sealed_chunks();
	test_sealed_kinds();
	test_kinds_budget();
	test_disable();
	remove_tree(scratch);
	return (unit_exit());
}
