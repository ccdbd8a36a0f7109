/*
 * bench/tdrate.c: libtracecmd's own iteration over a trace.dat, the
 * baseline the threads analysis is measured against (bench/run): every
 * record of the file in time order, its event's id and pid read, nothing
 * else.  Prints the number of records.
 *
 *	build/tdrate FILE.dat
 */
#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>
#include <trace-cmd.h>

static unsigned long long nrec;
static unsigned long long sum;

static int
on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu,
    void *arg)
{
	struct tep_handle *tep = arg;

	(void)h;
	(void)cpu;
	nrec++;
	sum += (unsigned)tep_data_type(tep, rec) + (unsigned)tep_data_pid(tep, rec);
	return (0);
}

int
main(int argc, char **argv)
{
	struct tracecmd_input *h, *b;

	if (argc != 2) {
		fprintf(stderr, "usage: tdrate FILE.dat\n");
		return (2);
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS |
	    TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (h == NULL) {
		fprintf(stderr, "tdrate: cannot open %s\n", argv[1]);
		return (1);
	}
	/* The top buffer, or the first instance with events, as
	 * src/ingest/tracedat.c reads it. */
	b = h;
	if (tracecmd_get_first_ts(h) == 0) {
		int n = tracecmd_buffer_instances(h), i;

		for (i = 0; i < n && b == h; i++) {
			struct tracecmd_input *ih =
			    tracecmd_buffer_instance_handle(h, i);

			if (ih != NULL && tracecmd_get_first_ts(ih) != 0)
				b = ih;
			else if (ih != NULL)
				tracecmd_close(ih);
		}
	}
	(void)tracecmd_iterate_events(b, NULL, 0, on_record,
	    tracecmd_get_tep(b));
	printf("%llu\n", nrec);
	if (sum == 1)	/* keeps the reads */
		fputc('\n', stderr);
	if (b != h)
		tracecmd_close(b);
	tracecmd_close(h);
	return (0);
}
