/*
 * input.c: an input's kind, from its first bytes or its directory's
 * contents.
 */
#include "ingest/input.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

/* trace.dat files begin so (trace-cmd's format, every version). */
static const unsigned char tracedat_magic[] = {
	0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
};

/*
 * A CTF metadata file: packetized (its packets begin with this magic,
 * in either byte order) or plain text beginning with a C comment
 * that says CTF.
 */
static int
is_ctf_metadata(const unsigned char *b, size_t n)
{
	static const unsigned char le[4] = { 0x57, 0x1d, 0xd1, 0x75 };
	static const unsigned char be[4] = { 0x75, 0xd1, 0x1d, 0x57 };

	if (n >= 4 && (memcmp(b, le, 4) == 0 || memcmp(b, be, 4) == 0))
		return (1);
	return (n >= 6 && memcmp(b, "/* CTF", 6) == 0);
}

/* The first bytes of a regular file: how many were read, or -1. */
static ssize_t
head_of(int dirfd, const char *path, unsigned char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n = -1;

	if (fd < 0)
		return (-1);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, size);
	(void)close(fd);
	return (n);
}

input_kind
input_kind_of(const char *path, char **dir)
{
	unsigned char buf[16];
	struct stat st;
	ssize_t n;

	if (dir != NULL)
		*dir = NULL;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
		return (INPUT_STATEMAP);
	if (S_ISDIR(st.st_mode)) {
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd < 0)
			return (INPUT_STATEMAP);
		n = head_of(dfd, "metadata", buf, sizeof (buf));
		(void)close(dfd);
		if (n < 0 || !is_ctf_metadata(buf, (size_t)n))
			return (INPUT_STATEMAP);
		if (dir != NULL)
			*dir = xstrndup(path, strlen(path));
		return (INPUT_CTF);
	}
	if ((n = head_of(AT_FDCWD, path, buf, sizeof (buf))) < 0)
		return (INPUT_STATEMAP);
	if ((size_t)n >= sizeof (tracedat_magic) &&
	    memcmp(buf, tracedat_magic, sizeof (tracedat_magic)) == 0)
		return (INPUT_TRACEDAT);
	if (is_ctf_metadata(buf, (size_t)n)) {
		const char *slash = strrchr(path, '/');

		if (dir != NULL)
			*dir = slash == NULL ? xstrndup(".", 1) :
			    xstrndup(path, slash == path ? 1 :
			    (size_t)(slash - path));
		return (INPUT_CTF);
	}
	return (INPUT_STATEMAP);
}

int
input_is_kernel(const char *path)
{
	return (input_kind_of(path, NULL) != INPUT_STATEMAP);
}
