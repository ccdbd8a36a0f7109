/*
 * cachetest.h: what the cache tests share: a scratch directory that is
 * the cache's home, traces written to order, loads, and a digest of
 * everything a load gives, to tell a cached load from a fresh one.
 *
 * Only trace.h and the file system are used here, so the tests that
 * include this alone (test_cache.c) build against any version of the
 * cache and show what it gets wrong.  Functions are inline so that a test
 * that uses some of them is not warned about the rest.
 */
#ifndef SM_CACHETEST_H
#define SM_CACHETEST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/trace.h"
#include "unit.h"

static char scratch[256];	/* the test's own directory */
static char cachedir[600];	/* scratch/xdg/statemap-lua */

/* Removes a directory tree (the scratch directory, at the end). */
static inline void
remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char p[1024];

	if (d == NULL) {
		(void) unlink(path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat sb;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(p, sizeof (p), "%s/%s", path, de->d_name) >=
		    (int)sizeof (p))
			continue;
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			(void) chmod(p, 0700);
			remove_tree(p);
		} else {
			(void) unlink(p);
		}
	}
	closedir(d);
	(void) rmdir(path);
}

/* A fresh scratch directory whose xdg/ is XDG_CACHE_HOME. */
static inline void
scratch_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char xdg[600];

	snprintf(scratch, sizeof (scratch), "%s/test_cache.XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(scratch) == NULL) {
		printf("FAIL setup: mkdtemp %s\n", scratch);
		exit(1);
	}
	if (snprintf(xdg, sizeof (xdg), "%s/xdg", scratch) >= (int)sizeof (xdg) ||
	    snprintf(cachedir, sizeof (cachedir), "%s/statemap-lua", xdg) >=
	    (int)sizeof (cachedir)) {
		printf("FAIL setup: %s is too long a path\n", scratch);
		exit(1);
	}
	setenv("XDG_CACHE_HOME", xdg, 1);
	unsetenv("STATEMAP_CACHE_SIZE");
	umask(022);
}

static inline void
scratch_path(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", scratch, name);
}

/*
 * Writes a trace of about 60 bytes per record: metadata, descriptions, a
 * tag definition, tagged and untagged data over 5 entities, an event.
 * variant changes the states taken, so that traces differ; records of
 * 6000 make about 380 KB, whose middle is beyond the 64 KiB at each end.
 */
static inline void
write_trace(const char *path, int variant, int records)
{
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL) {
		printf("FAIL setup: cannot write %s\n", path);
		exit(1);
	}
	fprintf(f, "{\"start\": [1700000000, 5], \"title\": \"t%d\", "
	    "\"host\": \"h\", \"entityKind\": \"Thread\", \"states\": {"
	    "\"a\": {\"value\": 0, \"color\": \"#102030\"}, "
	    "\"b\": {\"value\": 1}, \"c\": {\"value\": 2}, "
	    "\"d\": {\"value\": 3}}}\n", variant);
	fprintf(f, "{\"entity\": \"e1\", \"description\": \"one\"}\n");
	fprintf(f, "{\"state\": 2, \"tag\": \"x\", \"pid\": 7}\n");
	for (i = 0; i < records; i++) {
		int e = (i * 7 + variant) % 5, s = (i * 3 + variant + i / 11) % 4;

		if (i % 9 == 4)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"e%d\", "
			    "\"state\": 2, \"tag\": \"%s\"}\n", 1000 + i * 10,
			    e, i % 2 ? "x" : "y");
		else
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"e%d\", "
			    "\"state\": %d}\n", 1000 + i * 10, e, s);
		if (i == records / 2)
			fprintf(f, "{\"time\": \"%d\", \"entity\": \"e1\", "
			    "\"event\": \"wakeup\", \"target\": \"e2\"}\n",
			    1000 + i * 10);
	}
	fclose(f);
}

static inline uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return (h ^ (h >> 29));
}

static inline uint64_t
mix_str(uint64_t h, const char *s, size_t len)
{
	size_t i;

	if (s == NULL)
		return (mix(h, 0xdeadull));
	h = mix(h, len);
	for (i = 0; i < len; i++)
		h = mix(h, (unsigned char)s[i]);
	return (h);
}

static inline uint64_t
mix_cstr(uint64_t h, const char *s)
{
	return (mix_str(h, s, s != NULL ? strlen(s) : 0));
}

/*
 * Everything a load gives: the catalog, every transition, every interval,
 * time per state, the state at times, counts.  Queries stay within their
 * arrays only if the states are valid, so those are checked first:
 * *states_ok says whether they were (and the queries are skipped if not).
 */
static inline uint64_t
digest(const trace *d, int *states_ok)
{
	const catalog *cat = d->cat;
	const store *st = d->st;
	uint64_t h = 0xcbf29ce484222325ull, *per;
	uint32_t i, e, ns = cat->nstates, nt = catalog_ntags(cat);
	store_iter it;
	store_interval iv;
	size_t len, k;
	int ok = 1;

	h = mix_cstr(h, cat->title);
	h = mix_cstr(h, cat->host);
	h = mix_cstr(h, cat->entity_kind);
	h = mix(mix(mix(h, (uint64_t)cat->have_start), cat->start_sec),
	    cat->start_nsec);
	h = mix(h, ns);
	for (i = 0; i < ns; i++) {
		h = mix_str(h, cat->states[i].name, cat->states[i].name_len);
		h = mix_cstr(h, cat->states[i].color_text);
		h = mix(h, (uint64_t)cat->states[i].color.r << 16 |
		    (uint64_t)cat->states[i].color.g << 8 |
		    cat->states[i].color.b);
	}
	h = mix(h, catalog_nentities(cat));
	for (i = 0; i < catalog_nentities(cat); i++) {
		const char *s = catalog_entity_name(cat, i, &len);

		h = mix_cstr(mix_str(h, s, len), cat->descriptions[i]);
	}
	h = mix(h, nt);
	for (i = 0; i < nt; i++) {
		const char *s = intern_name(cat->tag_names, cat->tags[i].name,
		    &len);

		h = mix(mix_str(h, s, len), cat->tags[i].state);
		h = mix_cstr(h, cat->tags[i].members);
	}
	h = mix(h, cat->nevents);
	for (k = 0; k < cat->nevents; k++) {
		const catalog_event *ev = &cat->events[k];

		const char *s;

		h = mix(h, ev->time);
		s = intern_name(cat->event_entities, ev->entity, &len);
		h = mix_str(h, s, len);
		s = intern_name(cat->event_kinds, ev->kind, &len);
		h = mix_str(h, s, len);
		if (ev->target != CATALOG_NO_ENTITY) {
			s = intern_name(cat->event_entities, ev->target, &len);
			h = mix_str(h, s, len);
		}
	}
	h = mix(mix(mix(mix(h, cat->nrecords), cat->ndata),
	    (uint64_t)cat->have_data), cat->last_time);
	h = mix(mix(mix(h, d->begin), d->end), store_nentities(st));
	for (e = 0; e < store_nentities(st); e++) {
		const uint64_t *t = store_times(st, e);
		const uint16_t *s = store_states(st, e);
		const uint32_t *g = store_tags(st, e);

		h = mix(h, store_count(st, e));
		for (k = 0; k < store_count(st, e); k++) {
			ok &= s[k] < ns && (g[k] < nt || g[k] == STORE_NONE);
			h = mix(mix(mix(h, t[k]), s[k]), g[k]);
		}
	}
	/* Nested entities' depths and links, value entities' values. */
	for (e = 0; e < store_nentities(st); e++) {
		const uint16_t *dep = store_depths(st, e);
		const uint32_t *below = store_below(st, e);
		const uint64_t *vt = store_value_times(st, e);
		const sm_value *vv = store_values(st, e);

		h = mix(h, (uint64_t)store_kind_of(st, e));
		for (k = 0; dep != NULL && k < store_count(st, e); k++)
			h = mix(mix(h, dep[k]), below[k]);
		h = mix(h, store_value_count(st, e));
		for (k = 0; k < store_value_count(st, e); k++)
			h = mix(mix(h, vt[k]), vv[k]);
	}
	h = mix(h, intern_count(cat->value_strings));
	for (i = 0; i < intern_count(cat->value_strings); i++) {
		const char *s = intern_name(cat->value_strings, i, &len);

		h = mix_str(h, s, len);
	}
	if (states_ok != NULL)
		*states_ok = ok;
	if (!ok)
		return (h);
	store_iter_init(&it, st, NULL, 0, d->begin, d->end);
	while (store_iter_next(&it, &iv))
		h = mix(mix(mix(mix(mix(h, iv.entity), iv.state), iv.tag),
		    iv.start), iv.end);
	per = calloc(ns, sizeof (uint64_t));
	store_time_in(st, STORE_NONE, d->begin, d->end, per);
	for (i = 0; i < ns; i++)
		h = mix(h, per[i]);
	for (k = 0; k < 16; k++) {
		uint64_t t = d->begin + (d->end - d->begin) / 16 * k;

		for (e = 0; e < store_nentities(st); e++)
			if (store_state_at(st, e, t, &iv))
				h = mix(mix(mix(h, iv.state), iv.start), iv.end);
		store_count_at(st, t, per);
		for (i = 0; i < ns; i++)
			h = mix(h, per[i]);
		/* Stacks, values and their summaries at the same times. */
		for (e = 0; e < store_nentities(st); e++) {
			store_frame fr[8];
			value_stats vs;
			uint32_t depth = store_stack_at(st, e, t, fr, 8), j;

			h = mix(h, depth);
			for (j = 0; j < depth && j < 8; j++)
				h = mix(mix(h, fr[j].state), fr[j].tag);
			if (store_value_at(st, e, t, &iv))
				h = mix(mix(mix(h, iv.value), iv.start), iv.end);
			value_stats_init(&vs, catalog_value_ints(d->cat, e));
			store_value_stats(st, e, d->begin, t, &vs);
			h = mix(mix(mix(mix(h, value_number(vs.min)),
			    value_number(vs.max)), value_number(vs.integral)),
			    vs.covered);
		}
	}
	free(per);
	return (h);
}

/* Loads path (through the cache unless no_cache); exits if it cannot. */
static inline trace *
load(const char *path, int no_cache)
{
	trace_options o;
	sm_error err;
	trace *d;

	memset(&o, 0, sizeof (o));
	o.no_cache = no_cache;
	if ((d = trace_load(path, &o, &err)) == NULL) {
		printf("FAIL load %s: ", path);
		error_print(&err, stdout);
		exit(1);
	}
	return (d);
}

/* The digest of a load, and whether it came from the cache. */
static inline uint64_t
load_digest(const char *path, int no_cache, int *from_cache)
{
	trace *d = load(path, no_cache);
	uint64_t h = digest(d, NULL);

	if (from_cache != NULL)
		*from_cache = d->cache_map != NULL;
	trace_free(d);
	return (h);
}

/*
 * The name of the one entry (*.smc) in the cache directory that is not in
 * `except` (NULL: any): out gets its full path; 0 if there is none.
 */
static inline int
find_entry(char *out, size_t size, const char *except)
{
	DIR *d = opendir(cachedir);
	struct dirent *de;
	int found = 0;

	if (d == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char p[1024];

		if (n != 20 || strcmp(de->d_name + 16, ".smc") != 0)
			continue;
		snprintf(p, sizeof (p), "%s/%s", cachedir, de->d_name);
		if (except != NULL && strcmp(p, except) == 0)
			continue;
		snprintf(out, size, "%s", p);
		found = 1;
		break;
	}
	closedir(d);
	return (found);
}

/* The entry made by loading path afresh (it must not have one yet). */
static inline int
entry_of(const char *path, char *out, size_t size)
{
	char *list = NULL;
	DIR *d;
	struct dirent *de;
	size_t n = 0;
	int found = 0;

	if ((d = opendir(cachedir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strlen(de->d_name) >= 32)
				continue;
			list = realloc(list, (n + 1) * 32);
			memcpy(list + n++ * 32, de->d_name,
			    strlen(de->d_name) + 1);
		}
		closedir(d);
	}
	trace_free(load(path, 0));
	if ((d = opendir(cachedir)) == NULL) {
		free(list);
		return (0);
	}
	while (!found && (de = readdir(d)) != NULL) {
		size_t i;
		int old = 0;

		if (strlen(de->d_name) != 20 ||
		    strcmp(de->d_name + 16, ".smc") != 0)
			continue;
		for (i = 0; i < n; i++)
			old |= strcmp(list + i * 32, de->d_name) == 0;
		if (!old) {
			snprintf(out, size, "%s/%s", cachedir, de->d_name);
			found = 1;
		}
	}
	closedir(d);
	free(list);
	return (found);
}

/* The whole of a file, its length in *len; NULL if it cannot be read. */
static inline unsigned char *
read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		if (f != NULL)
			fclose(f);
		return (NULL);
	}
	rewind(f);
	p = malloc((size_t)n + 1);
	*len = fread(p, 1, (size_t)n, f);
	fclose(f);
	return (p);
}

/* Writes bytes over path in place (same inode, same owner and mode). */
static inline int
write_over(const char *path, const unsigned char *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return (-1);
	n = write(fd, p, len);
	close(fd);
	return (n == (ssize_t)len ? 0 : -1);
}

#endif
