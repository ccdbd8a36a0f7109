/*
 * unit.h: the smallest test harness that does the job.
 *
 * Each check prints one line, "PASS name" or "FAIL name: why (file:line)"
 * (or "SKIP name: why" for one that cannot run here), and tests/run
 * counts those lines across every test program, so a test
 * program is just a main() that calls its checks and returns unit_exit().
 */
#ifndef SM_UNIT_H
#define SM_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_failures;

#define UNIT_REPORT(ok, name, ...) do {					\
	if (ok) {							\
		printf("PASS %s\n", (name));				\
	} else {							\
		unit_failures++;					\
		printf("FAIL %s: ", (name));				\
		printf(__VA_ARGS__);					\
		printf(" (%s:%d)\n", __FILE__, __LINE__);		\
	}								\
} while (0)

/*
 * A check that cannot run on this machine: counted as skipped by
 * tests/run (which never counts it as passed).
 */
#define SKIP(name, ...) do {						\
	printf("SKIP %s: ", (name));					\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

#define CHECK(name, cond)						\
	UNIT_REPORT((cond), (name), "%s", #cond)

#define CHECK_INT(name, got, want) do {					\
	long long unit_g_ = (long long)(got), unit_w_ = (long long)(want); \
	UNIT_REPORT(unit_g_ == unit_w_, (name),				\
	    "%s is %lld, want %lld", #got, unit_g_, unit_w_);		\
} while (0)

#define CHECK_U64(name, got, want) do {					\
	uint64_t unit_g_ = (uint64_t)(got), unit_w_ = (uint64_t)(want);	\
	UNIT_REPORT(unit_g_ == unit_w_, (name),				\
	    "%s is %" PRIu64 ", want %" PRIu64, #got, unit_g_, unit_w_); \
} while (0)

#define CHECK_STR(name, got, want) do {					\
	const char *unit_g_ = (got), *unit_w_ = (want);			\
	UNIT_REPORT(unit_g_ != NULL && strcmp(unit_g_, unit_w_) == 0,	\
	    (name), "%s is \"%s\", want \"%s\"", #got,			\
	    unit_g_ ? unit_g_ : "(null)", unit_w_);			\
} while (0)

static inline int
unit_exit(void)
{
	return (unit_failures == 0 ? 0 : 1);
}

#endif
