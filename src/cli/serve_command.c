#include "cli/serve_command.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/served_traces.h"
#include "serve/server.h"
#include "trace/trace.h"

#define EXIT_USAGE	2

static int
usage(const char *msg, const char *arg)
{
	fprintf(stderr, "statemap-lua: ");
	fprintf(stderr, msg, arg);
	fputs("\nTry 'statemap-lua --help' for more information.\n", stderr);
	return (EXIT_USAGE);
}

/* A port: digits only, 0 to 65535.  Returns -1 if it is not one. */
static long
parse_port(const char *text)
{
	long v = 0;
	size_t i;

	if (text[0] == '\0' || strlen(text) > 5)
		return (-1);
	for (i = 0; text[i] != '\0'; i++) {
		if (text[i] < '0' || text[i] > '9')
			return (-1);
		v = v * 10 + (text[i] - '0');
	}
	return (v <= 65535 ? v : -1);
}

/* Serves until SIGINT or SIGTERM; returns the exit status. */
static int
serve_until_signal(served *content, const serve_options *so)
{
	sigset_t stop, old;
	server *s;
	sm_error err;
	int sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if ((s = serve_start(so, content, &err)) == NULL) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		error_print(&err, stderr);
		return (1);
	}
	fprintf(stderr, "statemap-lua: serving %s\n", serve_url(s));
	fflush(stderr);
	while (sigwait(&stop, &sig) != 0)
		continue;
	serve_stop(s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (0);
}

int
serve_command(const classic_options *o, char *const *files, int nfiles,
    const char *port, const char *bind)
{
	trace **traces;
	trace_options to;
	served_options vo;
	serve_options so;
	served *content;
	sm_error err;
	long p = 0;
	int i, rv = 1;

	if (o->output != NULL || o->dry_run || o->format == FORMAT_JSON)
		return (usage("%s", "--serve writes nothing: -o, -n and -T "
		    "do not go with it"));
	if (port != NULL && (p = parse_port(port)) < 0)
		return (usage("invalid port \"%s\": expected a number from 0 "
		    "to 65535 (0: any free port)", port));
	traces = xcalloc((size_t)nfiles, sizeof (trace *));
	memset(&to, 0, sizeof (to));
	to.ignore_tags = o->ignore_tags;
	for (i = 0; i < nfiles; i++) {
		to.analyses = o->analyses != NULL ? o->analyses[i] : 0;
		if ((traces[i] = trace_load(files[i], &to, &err)) == NULL) {
			error_print(&err, stderr);
			goto out;
		}
		palette_option_apply(o->palette, traces[i]->cat);
	}
	memset(&vo, 0, sizeof (vo));
	vo.begin = o->begin;
	vo.end = o->end;
	vo.sortby = o->sortby;
	vo.stacksortby = o->stacksortby;
	vo.filter = o->filter;
	vo.budget = o->coalesce;
	vo.strip_height = o->strip_height;
	vo.labels = o->labels;
	if ((content = served_new(traces, (size_t)nfiles, &vo, &err)) == NULL) {
		error_print(&err, stderr);
		goto out;
	}
	so.bind = bind;
	so.port = (unsigned)p;
	rv = serve_until_signal(content, &so);
	served_release(content);
out:
	for (i = 0; i < nfiles; i++)
		trace_release(traces[i]);
	free(traces);
	return (rv);
}
