#include "threads.h"

#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS	64

int
threads_count(void)
{
	static int count;
	const char *env;

	if (count > 0)
		return (count);
	env = getenv("STATEMAP_THREADS");
	if (env != NULL && *env != '\0') {
		char *end;
		long n = strtol(env, &end, 10);

		if (*end == '\0' && n > 0)
			count = n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	if (count == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		count = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	return (count);
}
