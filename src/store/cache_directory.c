#include "store/cache_directory.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

static char * __attribute__((format(printf, 1, 2)))
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	(void) vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return (s);
}

char *
cache_directory(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* The spec says a relative XDG_CACHE_HOME is to be ignored. */
	if (xdg != NULL && xdg[0] == '/')
		return (xasprintf("%s/statemap-lua", xdg));
	if (home == NULL || home[0] != '/')
		return (NULL);
	return (xasprintf("%s/.cache/statemap-lua", home));
}

/* mkdir -p, each missing directory 0700; existing ones left as they are. */
static void
make_dirs(const char *dir)
{
	char *p = xstrndup(dir, strlen(dir)), *s;

	for (s = p + 1; ; s++) {
		s = strchr(s, '/');
		if (s != NULL)
			*s = '\0';
		if (p[0] != '\0')
			(void) mkdir(p, 0700);
		if (s == NULL)
			break;
		*s = '/';
	}
	free(p);
}

int
cache_directory_open_checked(const char *dir, int create, const char **why)
{
	struct stat sb;
	int fd;

	*why = NULL;
	if (create)
		make_dirs(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
	    lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		if (sb.st_uid != geteuid()) {
			*why = "it is owned by another user";
			return (-1);
		}
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return (-1);
	if (fstat(fd, &sb) != 0)
		*why = "it cannot be examined";
	else if (sb.st_uid != geteuid())
		*why = "it is owned by another user";
	else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		*why = "it is writable by others";
	if (*why != NULL) {
		(void) close(fd);
		return (-1);
	}
	return (fd);
}

int
cache_directory_open(int create, char **path)
{
	static char *said;
	char *dir = cache_directory(), *msg;
	const char *why;
	int fd;

	if (path != NULL)
		*path = NULL;
	if (dir == NULL)
		return (-1);
	fd = cache_directory_open_checked(dir, create, &why);
	if (why != NULL) {
		msg = xasprintf("statemap-lua: not using the cache directory "
		    "%s: %s\n", dir, why);
		if (said == NULL || strcmp(said, msg) != 0) {
			fputs(msg, stderr);
			free(said);
			said = msg;
		} else {
			free(msg);
		}
	}
	if (fd >= 0 && path != NULL)
		*path = dir;
	else
		free(dir);
	return (fd);
}
