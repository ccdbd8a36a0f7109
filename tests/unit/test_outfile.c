/*
 * Tests for outfile.h: a named output appears whole or not at all, and
 * outputs reach the kernel in large pieces.  The size of a write is
 * seen from outside by the file's size while the stream is open: with
 * stdio's default buffer, 200 KB written would already be on disk in
 * 4 KB pieces (glibc quietly ignored the size asked of setvbuf once).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/outfile.h"
#include "unit.h"

#define KB	((size_t)1024)

static char scratch[256];

static off_t
size_on_disk(int fd)
{
	struct stat st;

	return (fstat(fd, &st) == 0 ? st.st_size : -1);
}

static off_t
size_of_path(const char *path)
{
	struct stat st;

	return (stat(path, &st) == 0 ? st.st_size : -1);
}

/* Entries in the scratch directory besides "." and "..". */
static int
entries_in_scratch(void)
{
	DIR *d = opendir(scratch);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0;
	closedir(d);
	return (n);
}

/* n bytes of a pattern that shows a piece written twice or dropped. */
static void
write_pattern(FILE *fp, size_t from, size_t n)
{
	size_t i;

	for (i = from; i < from + n; i++)
		fputc('a' + (int)(i % 23), fp);
}

static int
pattern_is(const char *path, size_t n)
{
	FILE *fp = fopen(path, "r");
	size_t i;
	int ok = fp != NULL;

	for (i = 0; ok && i < n; i++)
		ok = fgetc(fp) == 'a' + (int)(i % 23);
	ok = ok && fgetc(fp) == EOF;
	if (fp != NULL)
		fclose(fp);
	return (ok);
}

static void
test_named_output(void)
{
	char path[300];
	outfile of;
	sm_error err;
	int fd;

	snprintf(path, sizeof (path), "%s/out.svg", scratch);
	CHECK("named: opens", outfile_open(&of, path, &err) == 0);
	fd = fileno(of.fp);
	write_pattern(of.fp, 0, 200 * KB);
	CHECK_INT("named: 200 KB wait in the buffer", size_on_disk(fd), 0);
	CHECK_INT("named: nothing at the final name yet", size_of_path(path),
	    -1);
	write_pattern(of.fp, 200 * KB, 100 * KB);
	CHECK_INT("named: a full buffer goes in one piece", size_on_disk(fd),
	    256 * KB);
	CHECK("named: commits", outfile_commit(&of, &err) == 0);
	CHECK("named: every byte, once, in order", pattern_is(path,
	    300 * KB));
	CHECK_INT("named: the temporary file is gone", entries_in_scratch(),
	    1);
	unlink(path);
}

static void
test_aborted_output(void)
{
	char path[300];
	outfile of;
	sm_error err;

	snprintf(path, sizeof (path), "%s/gone.svg", scratch);
	CHECK("aborted: opens", outfile_open(&of, path, &err) == 0);
	write_pattern(of.fp, 0, 600 * KB);
	outfile_abort(&of);
	CHECK_INT("aborted: no output", size_of_path(path), -1);
	CHECK_INT("aborted: no temporary file left", entries_in_scratch(), 0);
}

static void
test_device_output(void)
{
	outfile of;
	sm_error err;

	CHECK("device: /dev/null opens in place",
	    outfile_open(&of, "/dev/null", &err) == 0);
	write_pattern(of.fp, 0, 300 * KB);
	CHECK("device: commits", outfile_commit(&of, &err) == 0);
	CHECK_INT("device: nothing made beside it", entries_in_scratch(), 0);
}

/*
 * Standard output, in a child whose stdout is a file: the buffer must be
 * in place before the first byte, as the classic command does it.
 */
static void
test_stdout(void)
{
	char path[300];
	pid_t pid;
	int status = -1, fd;

	snprintf(path, sizeof (path), "%s/stdout", scratch);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(3);
		outfile_buffer_stdout();
		write_pattern(stdout, 0, 200 * KB);
		if (size_on_disk(STDOUT_FILENO) != 0)
			_exit(1);
		write_pattern(stdout, 200 * KB, 100 * KB);
		if (size_on_disk(STDOUT_FILENO) != (off_t)(256 * KB))
			_exit(2);
		exit(0);	/* flushes the rest */
	}
	if (pid > 0)
		(void) waitpid(pid, &status, 0);
	CHECK_INT("stdout: buffered in 256 KB pieces (child's status)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	CHECK("stdout: every byte, once, in order", pattern_is(path,
	    300 * KB));
	unlink(path);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof (scratch), "%s/test_outfile.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(scratch) == NULL) {
		SKIP("outfile", "cannot make a scratch directory");
		return (0);
	}
	test_named_output();
	test_aborted_output();
	test_device_output();
	test_stdout();
	rmdir(scratch);
	return (unit_exit());
}
