#include "output/smap_json.h"

#include "output/jsonout.h"
#include "output/kindjson.h"
#include "output/rowwriter.h"

/* An entity's coalesced rectangles; ids and times are nstates scratch. */
static void
write_entity(FILE *out, const smap *m, const jsonout_names *names,
    uint32_t e, int first, uint32_t *ids, uint64_t *times)
{
	const catalog *cat = m->cat;

	/* Value and nested entities (kindjson.h): plain ones are as ever. */
	if ((m->values != NULL || m->depths != NULL) &&
	    kindjson_entity(out, m, names, e, first, ids, times))
		return;
	jsonout_entity_open(out, cat, e, first, NULL);
	if (m->co != NULL)
		jsonout_row_rects(out, names, m->co, e, cat->nstates, ids, times,
		    0);
	jsonout_entity_close(out);
}

/*
 * One statemap's entities, as rows for rowwriter.h: the scratch is the
 * times then the ids of write_entity, nstates of each.
 */
typedef struct entity_rows {
	const smap *m;
	const jsonout_names *names;
} entity_rows;

static void
entity_row(FILE *out, size_t k, void *scratch, void *ctx)
{
	const entity_rows *er = ctx;
	uint64_t *times = scratch;
	uint32_t *ids = (uint32_t *)(times + er->m->cat->nstates);

	write_entity(out, er->m, er->names, er->m->order[k], k == 0, ids,
	    times);
}

void
smap_json_write(FILE *out, const smap *maps, size_t n, const size_t *order)
{
	size_t i;

	jsonout_open(out);
	for (i = 0; i < n; i++) {
		const smap *m = &maps[order[i]];
		jsonout_names *names = jsonout_names_new(m->cat, 1);
		entity_rows er = { m, names };

		jsonout_statemap_open(out, m->cat, m->begin, m->end, i == 0);
		rowwriter_run(out, m->nentities, entity_row, &er,
		    (size_t)(m->cat->nstates + 1) * (sizeof (uint64_t) +
		    sizeof (uint32_t)));
		jsonout_names_free(names);
		jsonout_statemap_close(out, m->cat, m->begin, m->end,
		    m->end_bound, NULL);
	}
	jsonout_close(out, NULL);
}
