/*
 * pidmap.h: task ids (or any 64-bit keys) to dense indexes 0, 1, 2...
 * in order of first insertion, for the kernel analyses' tables of tasks,
 * devices and requests.  Open addressing, grown at half full.
 */
#ifndef SM_PIDMAP_H
#define SM_PIDMAP_H

#include <stddef.h>
#include <stdint.h>

#define PIDMAP_NONE	UINT32_MAX

typedef struct pidmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
} pidmap;

void pidmap_init(pidmap *m);
void pidmap_free(pidmap *m);

/* The key's index, or PIDMAP_NONE. */
uint32_t pidmap_find(const pidmap *m, uint64_t key);

/* The key's index, the next one (n) if it is new (*added then 1). */
uint32_t pidmap_add(pidmap *m, uint64_t key, int *added);

#endif
