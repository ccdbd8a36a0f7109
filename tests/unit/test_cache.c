/*
 * Tests for the cache of loaded traces (src/store/cache_*.c) through
 * trace_load, as scripts use it: a damaged entry (a bit flipped anywhere),
 * a trace edited with its size and mtime kept, a cache directory or entry
 * that others could write or that is a symbolic link, an entry written
 * while mapped, and the size limit with least-recently-used eviction.  Each
 * must give exactly what a fresh load gives.  Everything happens in a
 * scratch directory; tests that need root (files of another user) are
 * skipped otherwise.
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "cachetest.h"

/* Empties the cache directory. */
static void
clear_cache_dir(void)
{
	remove_tree(cachedir);
}

static mode_t
mode_of(const char *path)
{
	struct stat sb;

	return (lstat(path, &sb) == 0 ? sb.st_mode : 0);
}

static int
exists(const char *path)
{
	struct stat sb;

	return (lstat(path, &sb) == 0);
}

/* Sets a file's mtime (and atime) to `ago` seconds before now. */
static void
age(const char *path, time_t ago)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= ago;
	ts[1] = ts[0];
	(void) utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
}

static off_t
size_of(const char *path)
{
	struct stat sb;

	return (stat(path, &sb) == 0 ? sb.st_size : 0);
}

/* What a load prints on stderr (into out), and its digest. */
static uint64_t
load_capturing(const char *path, char *out, size_t size, int *from_cache)
{
	char errfile[600];
	int saved, fd;
	uint64_t h;
	FILE *f;
	size_t n;

	scratch_path(errfile, sizeof (errfile), "stderr.txt");
	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	h = load_digest(path, 0, from_cache);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(errfile, "r");
	n = f != NULL ? fread(out, 1, size - 1, f) : 0;
	out[n] = '\0';
	if (f != NULL)
		fclose(f);
	return (h);
}

static void
test_round_trip(void)
{
	char path[600], entry[1024], xdg[600];
	uint64_t fresh, h;
	int fc = -1;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "rt.out");
	write_trace(path, 0, 6000);
	fresh = load_digest(path, 1, NULL);
	CHECK("a load with cache = false writes no cache", !exists(cachedir));
	h = load_digest(path, 0, &fc);
	CHECK("first load: read, the same as a fresh one", !fc && h == fresh);
	h = load_digest(path, 0, &fc);
	CHECK("second load: from the entry, the same as a fresh one",
	    fc && h == fresh);
	/* The scratch's xdg/ did not exist: made as the XDG spec says. */
	scratch_path(xdg, sizeof (xdg), "xdg");
	CHECK_INT("XDG_CACHE_HOME made 0700", mode_of(xdg) & 07777, 0700);
	CHECK_INT("cache directory made 0700", mode_of(cachedir) & 07777,
	    0700);
	CHECK("an entry is written", find_entry(entry, sizeof (entry), NULL));
	CHECK_INT("an entry is 0600 whatever the umask (022 here)",
	    mode_of(entry) & 07777, 0600);
}

/*
 * A bit flipped anywhere in an entry: every byte of the first KiB (the
 * header, names, column descriptors and the first columns), 200 more
 * spread over the rest, and the last byte.  Each must be rejected.
 */
static void
test_flips(void)
{
	char path[600], entry[1024], what[128];
	unsigned char *pristine, *copy;
	size_t len, off, k, tried = 0, served = 0, wrong = 0, first_bad = 0;
	uint64_t fresh;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "flip.out");
	write_trace(path, 3, 6000);
	fresh = load_digest(path, 1, NULL);
	if (!entry_of(path, entry, sizeof (entry)) ||
	    (pristine = read_whole(entry, &len)) == NULL || len < 2048) {
		CHECK("flips: an entry to flip bits in", 0);
		return;
	}
	copy = malloc(len);
	for (k = 0; k < 1024 + 201; k++) {
		int fc;
		uint64_t h;

		off = k < 1024 ? k : k < 1224 ?
		    1024 + (len - 1025) * (k - 1024) / 200 : len - 1;
		memcpy(copy, pristine, len);
		copy[off] ^= (unsigned char)(1u << (off % 8));
		if (write_over(entry, copy, len) != 0)
			break;
		h = load_digest(path, 0, &fc);
		tried++;
		if (fc || h != fresh) {
			if (served == 0 && wrong == 0)
				first_bad = off;
			served += fc;
			wrong += h != fresh;
		}
	}
	snprintf(what, sizeof (what), "flips: each of %zu one-bit flips in a "
	    "%zu-byte entry is rejected and read afresh", tried, len);
	UNIT_REPORT(tried == 1225 && served == 0 && wrong == 0, what,
	    "%zu served from the entry, %zu different from a fresh load "
	    "(first at offset %zu)", served, wrong, first_bad);
	/* The pristine entry is still good: the rejections were the flips. */
	(void) write_over(entry, pristine, len);
	{
		int fc;
		uint64_t h = load_digest(path, 0, &fc);

		CHECK("flips: the unflipped entry is used", fc && h == fresh);
	}
	free(copy);
	free(pristine);
}

/* Changes one state digit near the middle of the trace: same length. */
static int
middle_edit(unsigned char *p, size_t len)
{
	size_t i;

	for (i = len / 2; i + 12 < len; i++) {
		if (memcmp(p + i, "\"state\": ", 9) == 0 &&
		    p[i + 9] >= '0' && p[i + 9] <= '3' && p[i + 10] == '}') {
			p[i + 9] = (unsigned char)('0' + (p[i + 9] - '0' + 1) % 4);
			return (0);
		}
	}
	return (-1);
}

/*
 * Edits that keep the size and mtime, in the middle (beyond the hashed
 * ends): a copy with cp -p put in place, and an in-place write with the
 * mtime put back (touch -r).  Neither may be served from the old entry.
 */
static void
test_key(void)
{
	char path[600], tmp[600];
	unsigned char *p;
	size_t len;
	struct stat sb;
	struct timespec ts[2];
	uint64_t fresh, h;
	int fc, fd;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "key.out");
	scratch_path(tmp, sizeof (tmp), "key.out.new");
	write_trace(path, 5, 6000);
	trace_free(load(path, 0));
	(void) load_digest(path, 0, &fc);
	CHECK("key: the entry is used before any change", fc);

	/* cp -p of an edited copy, then mv: new inode, same size and mtime. */
	p = read_whole(path, &len);
	stat(path, &sb);
	if (p == NULL || middle_edit(p, len) != 0) {
		CHECK("key: a trace to edit", 0);
		free(p);
		return;
	}
	write_over(tmp, p, len);
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	utimensat(AT_FDCWD, tmp, ts, 0);
	rename(tmp, path);
	fresh = load_digest(path, 1, NULL);
	h = load_digest(path, 0, &fc);
	CHECK("key: a copy with the same size and mtime put in place "
	    "(cp -p) is read afresh", !fc && h == fresh);
	(void) load_digest(path, 0, &fc);
	CHECK("key: ... and cached again", fc);

	/* In place: the same inode, mtime put back (touch -r). */
	stat(path, &sb);
	if (middle_edit(p, len) != 0 ||
	    (fd = open(path, O_WRONLY)) < 0) {
		CHECK("key: a trace to edit in place", 0);
		free(p);
		return;
	}
	(void) pwrite(fd, p + len / 2, len - len / 2, (off_t)(len / 2));
	ts[0] = sb.st_atim;
	ts[1] = sb.st_mtim;
	futimens(fd, ts);
	close(fd);
	stat(path, &sb);
	CHECK("key: the in-place edit kept size and mtime",
	    sb.st_size == (off_t)len && sb.st_mtim.tv_sec == ts[1].tv_sec &&
	    sb.st_mtim.tv_nsec == ts[1].tv_nsec);
	fresh = load_digest(path, 1, NULL);
	h = load_digest(path, 0, &fc);
	CHECK("key: a write in the middle with the mtime put back is read "
	    "afresh", !fc && h == fresh);
	free(p);
}

/* Symbolic links planted where entries are written and read. */
static void
test_symlinks(void)
{
	char path[600], entry[1024], tmpname[1100], victim[600], other[600];
	unsigned char *before, *after;
	size_t blen, alen;
	uint64_t fresh, h;
	int fc;
	FILE *f;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "link.out");
	scratch_path(victim, sizeof (victim), "victim.txt");
	scratch_path(other, sizeof (other), "elsewhere.smc");
	write_trace(path, 6, 6000);
	fresh = load_digest(path, 1, NULL);
	if (!entry_of(path, entry, sizeof (entry))) {
		CHECK("symlinks: an entry", 0);
		return;
	}
	/* At the temporary name a writer once used: <entry>.<pid>.tmp. */
	f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	unlink(entry);
	snprintf(tmpname, sizeof (tmpname), "%s.%ld.tmp", entry,
	    (long)getpid());
	symlink(victim, tmpname);
	h = load_digest(path, 0, &fc);
	before = read_whole(victim, &blen);
	CHECK("symlinks: a link at the temporary name is not followed",
	    before != NULL && blen == 9 && memcmp(before, "precious\n", 9) == 0);
	CHECK("symlinks: ... and the entry is written, a regular file",
	    S_ISREG(mode_of(entry)) && h == fresh && !fc);
	free(before);
	unlink(tmpname);

	/* At the entry's name, to a valid entry elsewhere. */
	rename(entry, other);
	symlink(other, entry);
	before = read_whole(other, &blen);
	h = load_digest(path, 0, &fc);
	after = read_whole(other, &alen);
	CHECK("symlinks: a link at the entry's name is not followed",
	    !fc && h == fresh);
	CHECK("symlinks: ... its target is left alone, the link replaced",
	    before != NULL && after != NULL && blen == alen &&
	    memcmp(before, after, blen) == 0 && S_ISREG(mode_of(entry)));
	free(before);
	free(after);
}

/* Entries and directories that others could write or own. */
static void
test_trust(void)
{
	char path[600], entry[1024], err[2048], want[2048];
	uint64_t fresh, h;
	int fc;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "trust.out");
	write_trace(path, 7, 6000);
	fresh = load_digest(path, 1, NULL);
	if (!entry_of(path, entry, sizeof (entry))) {
		CHECK("trust: an entry", 0);
		return;
	}
	chmod(entry, 0620);
	h = load_digest(path, 0, &fc);
	CHECK("trust: an entry the group may write is not used",
	    !fc && h == fresh);
	CHECK_INT("trust: ... and is written again, 0600",
	    mode_of(entry) & 07777, 0600);
	if (geteuid() == 0) {
		chown(entry, 65534, 65534);
		h = load_digest(path, 0, &fc);
		CHECK("trust: an entry of another user is not used",
		    !fc && h == fresh);
	} else {
		SKIP("trust: an entry of another user is not used",
		    "needs root to give a file away");
	}

	/* A directory anyone may write to: a warning, and no cache. */
	(void) load_digest(path, 0, &fc);	/* a good entry again */
	chmod(cachedir, 0777);
	h = load_capturing(path, err, sizeof (err), &fc);
	snprintf(want, sizeof (want), "statemap-lua: not using the cache "
	    "directory %s: it is writable by others\n", cachedir);
	CHECK_STR("trust: a 0777 cache directory is refused with a warning",
	    err, want);
	CHECK("trust: ... and the load is a fresh one", !fc && h == fresh);
	chmod(cachedir, 0770);
	h = load_capturing(path, err, sizeof (err), &fc);
	CHECK("trust: a group-writable directory is refused too (the "
	    "warning said once)", err[0] == '\0' && !fc && h == fresh);
	chmod(cachedir, 0700);
	if (geteuid() == 0) {
		chown(cachedir, 65534, 65534);
		h = load_capturing(path, err, sizeof (err), &fc);
		snprintf(want, sizeof (want), "statemap-lua: not using the "
		    "cache directory %s: it is owned by another user\n",
		    cachedir);
		CHECK_STR("trust: a cache directory of another user is refused "
		    "with a warning", err, want);
		CHECK("trust: ... and the load is a fresh one",
		    !fc && h == fresh);
		chown(cachedir, 0, 0);
	} else {
		SKIP("trust: a cache directory of another user is refused",
		    "needs root to give a directory away");
	}
	h = load_capturing(path, err, sizeof (err), &fc);
	CHECK("trust: the directory put right is used again, quietly",
	    fc && h == fresh && err[0] == '\0');
}

/*
 * An entry written over while it is mapped: whatever the file then
 * holds, states and tags stay those that were checked (queries index
 * arrays by them).  Times may change, harmlessly: digest's queries run
 * over them.
 */
static void
test_written_while_mapped(void)
{
	char path[600], entry[1024];
	unsigned char *junk;
	size_t len;
	trace *d;
	int ok = 0, fd;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "mapped.out");
	write_trace(path, 8, 6000);
	if (!entry_of(path, entry, sizeof (entry))) {
		CHECK("mapped: an entry", 0);
		return;
	}
	d = load(path, 0);
	CHECK("mapped: loaded from the entry", d->cache_map != NULL);
	len = (size_t)size_of(entry);
	junk = malloc(len);
	memset(junk, 0xff, len);
	if ((fd = open(entry, O_WRONLY)) >= 0) {
		(void) pwrite(fd, junk + 256, len - 256, 256);
		close(fd);
	}
	(void) digest(d, &ok);
	CHECK("mapped: an entry overwritten in place while mapped leaves "
	    "every state and tag valid", ok);
	trace_free(d);
	free(junk);
}

static void
set_limit(uint64_t bytes)
{
	char buf[32];

	snprintf(buf, sizeof (buf), "%llu", (unsigned long long)bytes);
	setenv("STATEMAP_CACHE_SIZE", buf, 1);
}

static void
test_size_limit(void)
{
	char a[600], b[600], c[600], ea[1024], eb[1024], ec[1024];
	char notes[1100], stale[1100], young[1100];
	uint64_t fresh, h, sb, sc;
	trace *da;
	int fc;
	FILE *f;

	clear_cache_dir();
	scratch_path(a, sizeof (a), "lru-a.out");
	scratch_path(b, sizeof (b), "lru-b.out");
	scratch_path(c, sizeof (c), "lru-c.out");
	write_trace(a, 10, 6000);
	write_trace(b, 11, 6000);
	write_trace(c, 12, 6000);

	setenv("STATEMAP_CACHE_SIZE", "0", 1);
	fresh = load_digest(a, 1, NULL);
	(void) load_digest(a, 0, &fc);
	h = load_digest(a, 0, &fc);
	CHECK("limit: STATEMAP_CACHE_SIZE=0 writes no entry",
	    !find_entry(ea, sizeof (ea), NULL) && !fc && h == fresh);
	setenv("STATEMAP_CACHE_SIZE", "1K", 1);
	(void) load_digest(a, 0, &fc);
	CHECK("limit: an entry bigger than the limit is not written",
	    !find_entry(ea, sizeof (ea), NULL));
	unsetenv("STATEMAP_CACHE_SIZE");

	if (!entry_of(a, ea, sizeof (ea)) || !entry_of(b, eb, sizeof (eb)) ||
	    !entry_of(c, ec, sizeof (ec))) {
		CHECK("limit: three entries", 0);
		return;
	}
	sb = (uint64_t)size_of(eb);
	sc = (uint64_t)size_of(ec);
	/* Room for two: a was used last, so b goes when c comes back. */
	set_limit((uint64_t)size_of(ea) + sb + sc - 1);
	unlink(ec);
	age(ea, 300);
	age(eb, 200);
	snprintf(notes, sizeof (notes), "%s/notes.txt", cachedir);
	snprintf(stale, sizeof (stale), "%s/0123456789abcdef.smc."
	    "0123456789abcdef.tmp", cachedir);
	snprintf(young, sizeof (young), "%s/0123456789abcdef.smc."
	    "fedcba9876543210.tmp", cachedir);
	f = fopen(notes, "w");
	fclose(f);
	f = fopen(stale, "w");
	fclose(f);
	age(stale, 7200);
	f = fopen(young, "w");
	fclose(f);
	(void) load_digest(a, 0, &fc);
	CHECK("limit: a is used from the cache", fc);
	(void) load_digest(c, 0, &fc);
	CHECK("limit: writing c evicts the least recently used entry (b)",
	    exists(ea) && !exists(eb) && exists(ec));
	CHECK("limit: files that are not entries are left alone",
	    exists(notes) && exists(young));
	CHECK("limit: a temporary file abandoned an hour ago is removed",
	    !exists(stale));

	/* An entry this process has mapped is never evicted. */
	da = load(a, 0);
	CHECK("limit: a is mapped", da->cache_map != NULL);
	age(ea, 1000);
	set_limit((sb > sc ? sb : sc) + 1);	/* room for one */
	(void) load_digest(b, 0, &fc);
	CHECK("limit: an entry in use is kept, older ones go",
	    exists(ea) && exists(eb) && !exists(ec));
	h = digest(da, NULL);
	CHECK("limit: ... and still reads right",
	    h == load_digest(a, 1, NULL));
	trace_free(da);
	unsetenv("STATEMAP_CACHE_SIZE");
}

/*
 * Processes loading two traces at once through a cache with room for one
 * entry, so that they write, replace and evict each other's entries all
 * the time: every load must still be right.  The outcome does not depend
 * on how the processes interleave.
 */
static void
test_concurrent(void)
{
	char a[600], b[600], ea[1024], eb[1024];
	uint64_t fa, fb, sa, sb;
	pid_t kids[4];
	int i, good = 1, status;

	clear_cache_dir();
	scratch_path(a, sizeof (a), "conc-a.out");
	scratch_path(b, sizeof (b), "conc-b.out");
	write_trace(a, 20, 3000);
	write_trace(b, 21, 3000);
	fa = load_digest(a, 1, NULL);
	fb = load_digest(b, 1, NULL);
	if (!entry_of(a, ea, sizeof (ea)) || !entry_of(b, eb, sizeof (eb))) {
		CHECK("concurrent: two entries", 0);
		return;
	}
	sa = (uint64_t)size_of(ea);
	sb = (uint64_t)size_of(eb);
	set_limit((sa > sb ? sa : sb) + 1);	/* room for one */
	fflush(stdout);
	for (i = 0; i < 4; i++) {
		if ((kids[i] = fork()) == 0) {
			int k, bad = 0;

			for (k = 0; k < 25; k++) {
				int which = (k + i) % 2;

				bad |= load_digest(which ? b : a, 0, NULL) !=
				    (which ? fb : fa);
			}
			_exit(bad);
		}
	}
	for (i = 0; i < 4; i++) {
		if (kids[i] < 0 || waitpid(kids[i], &status, 0) != kids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			good = 0;
	}
	CHECK("concurrent: 4 processes sharing a one-entry cache all load "
	    "right", good);
	unsetenv("STATEMAP_CACHE_SIZE");
}

/* A trace loaded the instant it is written is still cached, and right. */
static void
test_just_written(void)
{
	char path[600];
	uint64_t fresh, h;
	int fc;

	clear_cache_dir();
	scratch_path(path, sizeof (path), "new.out");
	write_trace(path, 30, 200);
	h = load_digest(path, 0, &fc);
	fresh = load_digest(path, 1, NULL);
	CHECK("just written: read", !fc && h == fresh);
	h = load_digest(path, 0, &fc);
	CHECK("just written: cached", fc && h == fresh);
}

int
main(void)
{
	scratch_setup();
	test_round_trip();
	test_flips();
	test_key();
	test_symlinks();
	test_trust();
	test_written_while_mapped();
	test_size_limit();
	test_concurrent();
	test_just_written();
	remove_tree(scratch);
	return (unit_exit());
}
