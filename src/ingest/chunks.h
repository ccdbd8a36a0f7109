/*
 * chunks.h: a mapped file parsed on several threads, with the serial
 * parse's result by construction.
 *
 * The file is cut into chunks at line ends, which threads scan for plain
 * data (scan.h) while the calling thread takes their results in file
 * order.  A cut can fall inside a record (records may span lines), and a
 * thread knows nothing of what came before its chunk, so what it finds
 * is only a proposal: runs of consecutive plain data (and tag
 * definitions, read whole when records_take would take them without a
 * word: records_scan_tag_definition), each starting at an offset where it
 * saw a record begin.  The calling thread keeps its own
 * position and uses a run only if it starts exactly there; everything
 * else (other kinds of records, anything a thread could not scan, runs
 * that do not line up, a time going backwards) it parses itself, with
 * the serial code.  So the result, errors included, is the serial one,
 * whatever the input and wherever the cuts fall.
 *
 * For a consumer that takes data in bulk (ingest_options.data) the
 * threads also sort each untagged run by entity, so whole runs of an
 * entity go into its columns at once.
 *
 * Scanning threads read their chunks with source_copy into a window of
 * their own (STATEMAP_WINDOW_BYTES, default 256 KB) rather than through
 * the mapping.  STATEMAP_CHUNK_BYTES (default 4 MB) sets the chunk size,
 * for tests that want many chunks in a small file.
 */
#ifndef SM_CHUNKS_H
#define SM_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/reader.h"
#include "ingest/records.h"

typedef struct chunks_host {
	reader *rd;		/* a mapped file */
	records *rec;		/* where the data go */
	/* Parses serially the records from *pos that start before limit
	 * (to the end if SIZE_MAX), leaving *pos at the next: 0 or -1. */
	int (*serial)(void *ctx, size_t *pos, size_t limit);
	/* Progress, and whether to go on (at least once a chunk): 0, -1. */
	int (*checkpoint)(void *ctx, size_t pos);
	void *ctx;
	uint64_t threaded;	/* out: data taken as the threads read them */
	uint64_t bulk;		/* out: of which a run of an entity at once */
	uint64_t nchunks;	/* out: chunks read by the threads */
	uint64_t definitions;	/* out: tag definitions they read whole */
	/* out: data whose entity, and whose tag, the threads found among
	 * the names the trace had when they read them (known_names.h) */
	uint64_t known_entities, known_tags;
} chunks_host;

/* The chunk size: whether an input is worth cutting (twice this). */
size_t chunks_bytes(void);

/* Parses from *pos to the end on nthreads threads besides this one. */
int chunks_parse(chunks_host *h, size_t *pos, int nthreads);

#endif
