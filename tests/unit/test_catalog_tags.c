/*
 * Tests for catalog_tag_id's numbering of tags (src/store/catalog.c): random
 * (state, name) pairs with a fixed seed, small states (found by name id
 * in tag_by_name) and large ones (the key lookup alone), checked against
 * a naive table numbering pairs in order of first appearance, and
 * against catalog_find_tag; again after catalog_drop_tags.
 */
#include <stdio.h>
#include <string.h>

#include "store/catalog.h"
#include "unit.h"

#define NAMES	300
#define STATES	12		/* beyond the small states on purpose */
#define NONE	UINT32_MAX

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (rng_state);
}

/* One round of lookups; returns whether every id matched the model. */
static int
round_matches(catalog *cat, int steps)
{
	static uint32_t model[NAMES][STATES];
	uint32_t next = 0;
	char name[16];
	int step, ok = 1;

	memset(model, 0xff, sizeof (model));
	for (step = 0; step < steps && ok; step++) {
		uint32_t n = (uint32_t)(rng() % NAMES);
		uint32_t s = (uint32_t)(rng() % STATES), id, found;
		int len = snprintf(name, sizeof (name), "tag%u", n);

		if (model[n][s] == NONE)
			model[n][s] = next++;
		id = catalog_tag_id(cat, s, name, (size_t)len);
		found = catalog_find_tag(cat, s, name, (size_t)len);
		if (id != model[n][s] || found != id ||
		    cat->tags[id].state != s || catalog_ntags(cat) != next) {
			printf("# step %d: name %u state %u: id %u, find %u, "
			    "model %u\n", step, n, s, id, found, model[n][s]);
			ok = 0;
		}
	}
	return (ok);
}

static void
test_tag_ids(void)
{
	catalog *cat = catalog_new("test");

	CHECK("catalog_tag_id numbers (state, name) pairs in order of first "
	    "appearance, small states and large", round_matches(cat, 50000));
	catalog_drop_tags(cat);
	CHECK("catalog_tag_id numbers afresh after catalog_drop_tags",
	    round_matches(cat, 50000));
	catalog_free(cat);
}

int
main(void)
{
	test_tag_ids();
	return (unit_exit());
}
