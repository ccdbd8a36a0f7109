/*
 * kernel_emit.c: the kernel analyses' data, to the consumer.
 */
#include "ingest/kernel_emit.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
kemit_init(kemit *k, catalog *cat, const ingest_options *opts,
    ingest_datum_fn datum, void *ctx)
{
	memset(k, 0, sizeof (*k));
	k->cat = cat;
	k->opts = opts;
	k->datum = datum;
	k->ctx = ctx;
	if (opts->filter != NULL)
		k->rejected = intern_new();
}

void
kemit_fini(kemit *k)
{
	intern_free(k->rejected);
	free(k->nested);
	k->rejected = NULL;
	k->nested = NULL;
}

uint32_t
kemit_entity(kemit *k, const char *name, size_t len)
{
	uint32_t id = intern_find(k->cat->entities, name, len);

	if (id != INTERN_NONE)
		return (id);
	if (k->rejected != NULL) {
		uint32_t seen;

		if (intern_find(k->rejected, name, len) != INTERN_NONE)
			return (CATALOG_NO_ENTITY);
		/* intern's copies end in a NUL, as regexec needs */
		seen = intern_add(k->rejected, name, len, NULL);
		if (regexec(k->opts->filter, intern_name(k->rejected, seen,
		    NULL), 0, NULL, 0) != 0)
			return (CATALOG_NO_ENTITY);
	}
	return (catalog_entity(k->cat, name, len));
}

static void
count(kemit *k, uint64_t time)
{
	k->cat->ndata++;
	k->cat->have_data = 1;
	/* data an analysis held back come after later ones */
	if (time > k->cat->last_time)
		k->cat->last_time = time;
}

void
kemit_state(kemit *k, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	int tagged = tag != NULL && !k->opts->ignore_tags;

	count(k, time);
	/*
	 * Once an entity has had a push, its plain data go where stacks
	 * go, as a file's nested entity's do (consumer.h).
	 */
	if (entity < k->ncap && k->nested[entity]) {
		k->opts->nested(k->ctx, k->cat, entity, time, INGEST_SET,
		    state, tagged ? tag : NULL, tagged ? tag_len : 0);
		return;
	}
	k->datum(k->ctx, k->cat, entity, time, state, tagged ?
	    catalog_tag_name(k->cat, tag, tag_len) : CATALOG_NO_TAG);
}

uint32_t
kemit_tag(kemit *k, const char *tag, size_t len)
{
	if (tag == NULL || k->opts->ignore_tags)
		return (CATALOG_NO_TAG);
	return (catalog_tag_name(k->cat, tag, len));
}

void
kemit_state_id(kemit *k, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag_id, const char *tag, size_t tag_len)
{
	if (entity < k->ncap && k->nested[entity]) {
		kemit_state(k, entity, time, state, tag, tag_len);
		return;
	}
	count(k, time);
	k->datum(k->ctx, k->cat, entity, time, state, tag_id);
}

void
kemit_push(kemit *k, uint32_t entity, uint64_t time, uint32_t state,
    const char *tag, size_t tag_len)
{
	int tagged = tag != NULL && !k->opts->ignore_tags;

	count(k, time);
	if (entity >= k->ncap) {
		size_t old = k->ncap;

		grow_array(&k->nested, &k->ncap, (size_t)entity + 1, 1);
		memset(k->nested + old, 0, k->ncap - old);
	}
	k->nested[entity] = 1;
	k->opts->nested(k->ctx, k->cat, entity, time, INGEST_PUSH, state,
	    tagged ? tag : NULL, tagged ? tag_len : 0);
}

void
kemit_pop(kemit *k, uint32_t entity, uint64_t time, uint32_t state)
{
	count(k, time);
	k->opts->nested(k->ctx, k->cat, entity, time, INGEST_POP, state,
	    NULL, 0);
}

void
kemit_value(kemit *k, uint32_t entity, uint64_t time, int64_t n)
{
	count(k, time);
	catalog_set_value_type(k->cat, entity, CATALOG_VALUES_INTEGER);
	k->opts->value(k->ctx, k->cat, entity, time, value_int(n));
}

const char *
kemit_running_comm(kemit *k, const kev *e, size_t *len)
{
	return (k->comm_of(k->comm_ctx, e, len));
}

void
kemit_component(char *buf, size_t size, size_t *len, const char *s,
    size_t n)
{
	size_t i;

	for (i = 0; i < n && *len + 2 < size; i++) {
		if (s[i] == '/' || s[i] == '\\')
			buf[(*len)++] = '\\';
		buf[(*len)++] = s[i];
	}
	buf[*len] = '\0';
}
