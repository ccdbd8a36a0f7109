#include "base/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/debug.h"
#include "base/fatal.h"
#include "base/util.h"

/*
 * Outputs run to a hundred megabytes (a tagged trace's SVG): written in
 * pieces of this size rather than stdio's 4 KB, one write call each.
 * The buffer must be given: glibc ignores setvbuf's size without one.
 */
#define OUTFILE_BUFFER	((size_t)256 << 10)

static char stdout_buffer[OUTFILE_BUFFER];

void
outfile_buffer_stdout(void)
{
	if (!isatty(STDOUT_FILENO))
		(void) setvbuf(stdout, stdout_buffer, _IOFBF, OUTFILE_BUFFER);
}

/* A large buffer for a stream of ours, freed by close_stream. */
static void
buffer_stream(outfile *of)
{
	of->buffer = xmalloc(OUTFILE_BUFFER);
	(void) setvbuf(of->fp, of->buffer, _IOFBF, OUTFILE_BUFFER);
}

static int
close_stream(outfile *of)
{
	int rv = fclose(of->fp);

	of->fp = NULL;
	free(of->buffer);
	of->buffer = NULL;
	return (rv);
}

int
outfile_open(outfile *of, const char *path, sm_error *err)
{
	const char *slash;
	size_t dirlen;
	int fd;

	memset(of, 0, sizeof (*of));
	if (path == NULL || strcmp(path, "-") == 0) {
		of->fp = stdout;
		return (0);
	}
	/*
	 * A device or a pipe (-o /dev/null, a FIFO) is written in place:
	 * renaming over it would replace the device with a plain file.
	 */
	{
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode)) {
				error_at(err, path, 0, 0, "is a directory");
				return (-1);
			}
			if ((of->fp = fopen(path, "w")) == NULL) {
				error_at(err, path, 0, 0, "cannot open output: "
				    "%s", strerror(errno));
				return (-1);
			}
			of->device = 1;
			of->name = path;
			buffer_stream(of);
			return (0);
		}
	}
	/* Same directory, so the rename cannot cross filesystems. */
	slash = strrchr(path, '/');
	dirlen = slash == NULL ? 0 : (size_t)(slash - path) + 1;
	of->path = xstrndup(path, strlen(path));
	of->tmp = xmalloc(dirlen + strlen(path + dirlen) + 32);
	sprintf(of->tmp, "%.*s.%s.tmpXXXXXX", (int)dirlen, path, path + dirlen);
	if ((fd = mkstemp(of->tmp)) < 0 ||
	    (of->fp = fdopen(fd, "w")) == NULL) {
		error_at(err, path, 0, 0, "cannot create output file: %s",
		    strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(of->tmp);
		}
		free(of->path);
		free(of->tmp);
		of->path = of->tmp = NULL;
		return (-1);
	}
	buffer_stream(of);
	/* Removed if a signal ends the process before it is complete. */
	of->fatal_slot = fatal_add_temp(of->tmp);
	debug_hold("hold-output", of->tmp, 1);
	/* mkstemp makes 0600; an output file should look like any other. */
	{
		mode_t mask = umask(0);

		umask(mask);
		(void) fchmod(fd, 0666 & ~mask);
	}
	return (0);
}

int
outfile_commit(outfile *of, sm_error *err)
{
	int bad = fflush(of->fp) != 0 || ferror(of->fp);
	int saved = errno;

	if (of->device && close_stream(of) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (of->path == NULL) {
		if (bad && of->device)
			error_at(err, of->name, 0, 0, "cannot write output: %s",
			    strerror(saved));
		else if (bad)
			error_set(err, "error writing standard output: %s",
			    strerror(saved));
		return (bad ? -1 : 0);
	}
	if (close_stream(of) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad && rename(of->tmp, of->path) != 0) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		error_at(err, of->path, 0, 0, "cannot write output file: %s",
		    strerror(saved));
		unlink(of->tmp);
	}
	fatal_drop_temp(of->fatal_slot);
	free(of->path);
	free(of->tmp);
	of->path = of->tmp = NULL;
	return (bad ? -1 : 0);
}

void
outfile_abort(outfile *of)
{
	if (of->device && of->fp != NULL)
		(void) close_stream(of);
	if (of->path == NULL)
		return;
	if (of->fp != NULL)
		(void) close_stream(of);
	unlink(of->tmp);
	fatal_drop_temp(of->fatal_slot);
	free(of->path);
	free(of->tmp);
	of->path = of->tmp = NULL;
	of->fp = NULL;
}
