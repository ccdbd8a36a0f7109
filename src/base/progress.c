#include "base/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

#define BAR_WIDTH	24
#define DELAY_NS	1000000000ull	/* silent for the first second */
#define REDRAW_NS	100000000ull	/* then at most ten times a second */

struct progress {
	const char *name;
	uint64_t total;
	uint64_t started, next_draw;
	int shown;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

progress *
progress_new(const char *name, uint64_t total)
{
	const char *env = getenv("STATEMAP_PROGRESS");
	int always = env != NULL && strcmp(env, "always") == 0;
	progress *p;

	if (env != NULL && strcmp(env, "never") == 0)
		return (NULL);
	if (!always && !isatty(STDERR_FILENO))
		return (NULL);
	p = xcalloc(1, sizeof (*p));
	p->name = strrchr(name, '/') != NULL ? strrchr(name, '/') + 1 : name;
	p->total = total;
	p->started = now_ns();
	p->next_draw = always ? p->started : p->started + DELAY_NS;
	return (p);
}

void
progress_update(progress *p, uint64_t done, uint64_t text, uint64_t records)
{
	uint64_t t;
	double secs, rate;
	char bar[BAR_WIDTH + 1];

	if (p == NULL || (t = now_ns()) < p->next_draw)
		return;
	p->next_draw = t + REDRAW_NS;
	secs = (double)(t - p->started) / 1e9;
	rate = secs > 0 ? (double)text / 1e6 / secs : 0;
	if (p->total > 0) {
		double f = done >= p->total ? 1 : (double)done /
		    (double)p->total;
		int fill = (int)(f * BAR_WIDTH), i;

		for (i = 0; i < BAR_WIDTH; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[BAR_WIDTH] = '\0';
		fprintf(stderr, "\r%s [%s] %3.0f%%  %.1fM records  %.0f MB/s",
		    p->name, bar, f * 100, (double)records / 1e6, rate);
	} else {
		fprintf(stderr, "\r%s  %.1fM records  %.0f MB/s", p->name,
		    (double)records / 1e6, rate);
	}
	fflush(stderr);
	p->shown = 1;
}

void
progress_end(progress *p)
{
	if (p == NULL)
		return;
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	free(p);
}
