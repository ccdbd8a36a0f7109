/*
 * chunks_internal.h: private to the files of the threaded parse, whose
 * contract is chunks.h:
 *
 *   chunks.c       the calling thread: the chunks taken in file order,
 *                  their runs handed to records, the rest parsed serially
 *   chunks_scan.c  the scanning threads: the file cut into chunks, each
 *                  scanned through a window into runs of data
 *   chunks_sort.c  a chunk's runs sorted by entity, for a consumer that
 *                  takes data in bulk
 *
 * What a thread proposes for its chunk, and the scanner they share.  It
 * does not include chunks.h: nothing here needs the host, which only
 * chunks.c sees.
 */
#ifndef SM_CHUNKS_INTERNAL_H
#define SM_CHUNKS_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "ingest/known_names.h"
#include "ingest/scan.h"
#include "ingest/source.h"
#include "store/value.h"

/*
 * Scanning threads read their chunks through a window of this size, a
 * buffer of their own that stays in the core's cache, refilled when less
 * than a sixteenth of it is left ahead (see source_copy).  A record that
 * does not fit in what is left gets a full window before it is judged;
 * one longer than the window is left to the serial parse.
 */
#define WINDOW_BYTES	((size_t)256 << 10)
#define WINDOW_LOW(size)	((size) / 16 + 1)

/*
 * A cache of the names of up to 8 bytes a chunk has numbered (see
 * short_name_id, chunks_scan.c), one for entity names and one for tag names.
 */
typedef struct short_names {
	uint64_t *keys;		/* names as numbers; 0: empty */
	uint32_t *ids;		/* their numbers in the chunk */
	size_t n;
} short_names;

/*
 * A datum's entity (and 1 less its tag) is the chunk's own number for
 * the name, or, with this bit set, the catalog's id for it, found by the
 * scanning thread among the names the catalog had (known_names.h).
 */
#define CHUNK_KNOWN	0x80000000u

/*
 * A chunk's datum may also be a tag definition read whole
 * (records_scan_tag_definition): its op is CHUNK_OP_DEFINITION, past the
 * scanner's, its tag and state the definition's, its members in the
 * chunk's defs (its special's str, at counting from defs).
 */
#define CHUNK_OP_DEFINITION	4

typedef struct chunk_datum {
	uint64_t time;
	uint32_t record;	/* the record's offset in the chunk */
	uint32_t entity;	/* the chunk's number for the name, or known */
	uint32_t tag;		/* 1 + the same for the tag; 0: none */
	uint16_t state;
	uint8_t op;		/* SCAN_OP_STATE... */
} chunk_datum;

/*
 * What a datum of the generic state system has besides its chunk_datum
 * (a push keeps its tag there): a value's string, or the name of a state
 * pushed or popped.  A value's own word is in the chunk's vals.
 */
typedef union chunk_special {
	struct {
		uint32_t at;	/* its offset in the record; 0: none */
		uint32_t len;
	} str;
	uint32_t named;		/* 1 + the chunk's number for it; 0: by value */
} chunk_special;

/* What a run sorted for bulk holds (see below). */
typedef enum run_kind {
	RUN_STATES,		/* plain states */
	RUN_VALUES,		/* numbers and nulls */
	RUN_STACKS		/* plain states, pushes and pops */
} run_kind;

typedef struct chunk_run {
	size_t start, end;	/* its first record; past its last, spaces too */
	size_t first, count;	/* its data */
	size_t group, ngroups;	/* its entities, if sorted for bulk */
	run_kind kind;		/* if sorted */
} chunk_run;

/*
 * For a consumer that takes data in bulk, a run without tags is also
 * sorted by entity (stably, so each entity's data stay in file order),
 * its entities in the order they first appear in it.  So is a run of
 * values that are all numbers or nulls (strings are numbered in file
 * order as they are taken, so they are taken one by one), and, for a
 * consumer that takes nested states in bulk, an untagged run with pushes
 * and pops in it.
 */
typedef struct chunk_group {
	uint32_t entity;	/* the chunk's number */
	size_t first, count;	/* in the chunk's sorted times and states */
	int numbers;		/* of values: RECORDS_DOUBLES, _INTEGERS */
	int stacked;		/* of states: whether any is a push or pop */
} chunk_group;

/*
 * In a sorted run of stacks, an op (ops) whose state is named: its
 * states entry is the chunk's number for the name until the run is
 * taken.
 */
#define OP_NAMED	0x80

typedef struct chunk {
	size_t seq;		/* which chunk of the file */
	size_t start, end;	/* records starting in [start, end) */
	int done;		/* scanned, ready to be taken */
	chunk_datum *data;
	size_t ndata, data_cap;
	/*
	 * Per datum, of value data only: a number's bits, VALUE_NONE, or
	 * VALUE_STRING when its string is in specials.  Apart from data,
	 * so that a state trace's data stay small and a counter's value
	 * costs eight bytes.
	 */
	sm_value *vals;
	size_t vals_cap;
	chunk_special *specials;	/* per datum: pushes, pops, strings */
	size_t specials_cap;
	chunk_run *runs;
	size_t nruns, runs_cap;
	intern *names;		/* entity names by the chunk's numbers */
	uint32_t *ids;		/* their ids in the trace, or UNMAPPED */
	size_t ids_cap;
	/*
	 * Tag names likewise: numbered here, by the thread that has the
	 * record's bytes in its cache, so that the one taking the data in
	 * file order looks a tag up once a chunk, not once a datum.
	 */
	intern *tags;
	uint32_t *tag_names;	/* their ids in the catalog, or UNMAPPED */
	size_t tag_names_cap;
	/*
	 * And the names of states pushed and popped, for the same reason:
	 * a nested trace by name would otherwise look one up a datum.
	 */
	intern *states_named;
	uint32_t *state_ids;	/* their states, NO_STATE, or UNMAPPED */
	size_t state_ids_cap;
	char *defs;		/* the members of its tag definitions */
	chunk_group *groups;	/* the runs' entities, when sorted */
	size_t ngroups, groups_cap;
	uint64_t *times;	/* the sorted data, parallel to data */
	uint16_t *states;
	sm_value *values;	/* for runs of values */
	uint8_t *ops;		/* for runs of stacks: INGEST_SET... */
	size_t sorted_cap;
	short_names short_entities, short_tags, short_states;
	/* The catalog's names as the scan began (CHUNK_KNOWN); NULL: none. */
	known_names *known_entities, *known_tags;
	size_t nlocal;		/* names; then known ids (chunks_sort.c) */
	size_t *slot_of;	/* scratch: an entity's group in a run... */
	size_t *seen_in;	/* ...valid if seen_in is that run + 1 */
	size_t scratch_cap;
	scan_shapes shapes;	/* the layouts of its data */
} chunk;

/*
 * The catalog's names of one kind (entities, tag names) frozen for the
 * scanning threads (known_names.h): the table made last and the one
 * before, each for the chunks from a seq on.  The calling thread makes a
 * table as it takes chunk k, for the chunks from k + nslots on: their
 * slots are freed only after it is made, while those before may have been
 * scanned already.  It makes one only when the last is in force (the
 * chunk it takes is past that one's from), so a chunk's table is the
 * latest whose from is not past it, one of these two: which table a chunk
 * is scanned with depends on its seq alone, never on how far ahead the
 * threads ran, and so neither does what they find.
 */
typedef struct known_tables {
	known_names *cur, *prev;
	size_t cur_from, prev_from;
} known_tables;

typedef struct scanner {
	const source *src;
	const char *buf;	/* the input, mapped: for its length and lines */
	size_t len;
	uint32_t nstates;
	int bulk;		/* sort untagged runs by entity */
	int bulk_values;	/* and runs of numbers */
	int bulk_stacks;	/* and runs with pushes and pops */
	size_t chunk_bytes;
	size_t window_bytes;
	chunk *slots;		/* chunk seq is in slots[seq % nslots] */
	size_t nslots;
	size_t next_seq;	/* the next chunk to hand out */
	size_t next_start;	/* and where it starts */
	int stop;
	/* Under lock; each chunk holds the tables it is scanned with. */
	known_tables known_entities, known_tags;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a slot was freed, or stop */
	pthread_cond_t ready;	/* a chunk was scanned */
} scanner;

/* chunks_scan.c: a scanning thread (arg: the scanner), till stop. */
void *chunks_scan_thread(void *arg);

/*
 * chunks_sort.c: sorts the runs of a scanned chunk by entity, those that
 * can be (each its groups, its kind set), if the consumer takes bulk.
 */
void chunks_sort_runs(const scanner *sc, chunk *c);

#endif
