/*
 * kernel_block.c: block devices' requests in flight, by slot (the rules
 * are in kernel_block.h).
 */
#include "ingest/kernel_block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ingest/pidmap.h"

#define MAX_SLOTS	1024

/* LTTng's rwbs is a number: these bits. */
#define RWBS_WRITE	0x1
#define RWBS_READ	0x4

typedef struct slot {
	uint64_t sector;
	uint64_t seq;		/* when issued, in requests */
	uint32_t entity;
	uint8_t busy;
} slot;

typedef struct device {
	uint64_t dev;
	uint32_t in_flight;	/* the value entity */
	uint32_t busy;
	slot *slots;
	size_t nslots, cap;
} device;

typedef struct block {
	kemit *k;
	pidmap map;
	device *d;
	size_t cap;
	uint64_t seq;
} block;

static void *
block_start(kemit *k, const kev_source *src)
{
	block *a = xcalloc(1, sizeof (*a));

	(void)src;
	a->k = k;
	pidmap_init(&a->map);
	return (a);
}

static void
block_free(void *arg)
{
	block *a = arg;
	size_t i;

	for (i = 0; i < a->map.n; i++)
		free(a->d[i].slots);
	free(a->d);
	pidmap_free(&a->map);
	free(a);
}

static size_t
device_name(char *buf, size_t size, uint64_t dev)
{
	int n = snprintf(buf, size, "block %u:%u", (unsigned)(dev >> 20),
	    (unsigned)(dev & 0xfffff));

	return (n < 0 ? 0 : (size_t)n);
}

static device *
device_of(block *a, uint64_t dev)
{
	int added;
	uint32_t i = pidmap_add(&a->map, dev, &added);

	if (i >= a->cap)
		grow_array(&a->d, &a->cap, (size_t)i + 1, sizeof (device));
	if (added) {
		char name[64];
		size_t len = device_name(name, sizeof (name), dev);

		memset(&a->d[i], 0, sizeof (device));
		a->d[i].dev = dev;
		len += (size_t)snprintf(name + len, sizeof (name) - len,
		    "/in flight");
		a->d[i].in_flight = kemit_entity(a->k, name, len);
	}
	return (&a->d[i]);
}

static void
count(block *a, device *d, uint64_t time)
{
	if (d->in_flight != CATALOG_NO_ENTITY)
		kemit_value(a->k, d->in_flight, time, (int64_t)d->busy);
}

/* What the request does, by its rwbs (text in ftrace, bits in LTTng). */
static uint8_t
rq_state_of(const kev *e)
{
	const char *s;
	size_t len, i;
	int64_t v;

	if ((s = kev_str(e, KF_RWBS, &len)) != NULL) {
		for (i = 0; i < len; i++)
			if (s[i] == 'R')
				return (KS_READ);
		for (i = 0; i < len; i++)
			if (s[i] == 'W')
				return (KS_WRITE);
		return (KS_OTHER);
	}
	if (kev_int(e, KF_RWBS, &v) == 0)
		return ((v & RWBS_READ) ? KS_READ : (v & RWBS_WRITE) ?
		    KS_WRITE : KS_OTHER);
	return (KS_OTHER);
}

static void
issue(block *a, const kev *e, uint64_t dev, uint64_t sector)
{
	device *d = device_of(a, dev);
	const char *comm;
	size_t i, len = 0;
	slot *s;

	for (i = 0; i < d->nslots && d->slots[i].busy; i++)
		continue;
	if (i == d->nslots) {
		char name[96];
		size_t n;

		if (d->nslots == MAX_SLOTS)
			return;
		grow_array(&d->slots, &d->cap, d->nslots + 1, sizeof (slot));
		n = device_name(name, sizeof (name), dev);
		n += (size_t)snprintf(name + n, sizeof (name) - n,
		    "/slot %zu", i);
		d->slots[i].entity = kemit_entity(a->k, name, n);
		d->nslots++;
	}
	s = &d->slots[i];
	s->busy = 1;
	s->sector = sector;
	s->seq = a->seq++;
	d->busy++;
	comm = kev_str(e, KF_COMM, &len);
	if (s->entity != CATALOG_NO_ENTITY)
		kemit_state(a->k, s->entity, e->time,
		    a->k->states[rq_state_of(e)], comm, comm != NULL ? len : 0);
	count(a, d, e->time);
}

static void
complete(block *a, const kev *e, uint64_t dev, uint64_t sector)
{
	uint32_t di = pidmap_find(&a->map, dev);
	device *d;
	slot *best = NULL;
	size_t i;

	if (di == PIDMAP_NONE)
		return;
	d = &a->d[di];
	for (i = 0; i < d->nslots; i++) {
		slot *s = &d->slots[i];

		if (s->busy && s->sector == sector &&
		    (best == NULL || s->seq < best->seq))
			best = s;
	}
	if (best == NULL)
		return;
	best->busy = 0;
	d->busy--;
	if (best->entity != CATALOG_NO_ENTITY)
		kemit_state(a->k, best->entity, e->time,
		    a->k->states[KS_IDLE], NULL, 0);
	count(a, d, e->time);
}

static void
block_event(void *arg, const kev *e)
{
	block *a = arg;
	int64_t dev, sector;

	if (kev_int(e, KF_DEV, &dev) != 0 ||
	    kev_int(e, KF_SECTOR, &sector) != 0)
		return;
	if (e->type == KEV_BLOCK_ISSUE)
		issue(a, e, (uint64_t)dev, (uint64_t)sector);
	else if (e->type == KEV_BLOCK_COMPLETE)
		complete(a, e, (uint64_t)dev, (uint64_t)sector);
}

static void
block_finish(void *arg, uint64_t end)
{
	(void)arg;
	(void)end;
}

const kanalysis kernel_block = {
	"block",
	{ [KEV_BLOCK_ISSUE] = 1, [KEV_BLOCK_COMPLETE] = 1 },
	block_start, block_event, block_finish, block_free
};
