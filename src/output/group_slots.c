#include "output/group_slots.h"

#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/path_escape.h"
#include "base/util.h"

typedef struct level {
	uint32_t rows;		/* entities directly in it */
	uint32_t kids;		/* levels directly in it */
} level;

uint32_t
group_slots_count(const catalog *cat, const uint32_t *ids, uint32_t n)
{
	/* A level is known by the level above and its own segment, so a
	 * deep path costs its length, not the square of it. */
	intern *levels = intern_new();
	level *lv = NULL;
	size_t cap = 0, nlevels = 0, key_cap = 0;
	char *key = NULL;
	uint32_t k, shown = 0;

	for (k = 0; k < n; k++) {
		size_t len, i, from = 0;
		const char *name = catalog_entity_name(cat, ids[k], &len);
		size_t last = path_last_separator(name, len);
		uint32_t up = UINT32_MAX;

		if (last == len || last == 0)
			continue;	/* at the top */
		i = path_next_separator(name, len, 0);
		if (i == 0)
			i = path_next_separator(name, len, 1);
		for (; i <= last; i = path_next_separator(name, len, i + 1)) {
			int added;
			uint32_t id;

			grow_array(&key, &key_cap, sizeof (up) + i - from, 1);
			memcpy(key, &up, sizeof (up));
			memcpy(key + sizeof (up), name + from, i - from);
			id = intern_add(levels, key, sizeof (up) + i - from,
			    &added);
			if (added) {
				grow_array(&lv, &cap, nlevels + 1,
				    sizeof (level));
				memset(&lv[id], 0, sizeof (level));
				nlevels++;
				if (up != UINT32_MAX)
					lv[up].kids++;
			}
			from = i;
			up = id;
			if (i == last)
				break;
		}
		lv[up].rows++;
	}
	for (k = 0; k < nlevels; k++)
		if (lv[k].rows > 0 || lv[k].kids != 1)
			shown++;
	free(lv);
	free(key);
	intern_free(levels);
	return (shown);
}
