/*
 * Tests for src/store/catalog_file.c: a catalog with every kind of record
 * saved and loaded back the same (and saved again to the same bytes);
 * every shorter run of its bytes, and one byte more, refused; catalogs
 * that break the input's rules (no states, a colour that is none, two
 * states of one name, a tag of no state, events that end before they
 * start or whose members are not JSON, a start past 2^63 - 1 ns or a
 * time past it with the start, text that is not UTF-8) saved as they
 * are and refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/catalog_file.h"
#include "unit.h"

/* States named names[0..n-1], with colours (NULL: none). */
static void
set_states(catalog *cat, const char *const *names, const char *const *colours,
    uint32_t n)
{
	catalog_state *s = calloc(n, sizeof (*s));
	uint32_t i;

	for (i = 0; i < n; i++) {
		s[i].name = strdup(names[i]);
		s[i].name_len = strlen(names[i]);
		if (colours != NULL && colours[i] != NULL) {
			s[i].color_text = strdup(colours[i]);
			(void) color_parse(colours[i], strlen(colours[i]),
			    &s[i].color);
		}
	}
	catalog_set_states(cat, s, n);
}

static catalog *
full_catalog(void)
{
	static const char *const names[] = { "idle", "run", "wait" };
	static const char *const colours[] = { NULL, "#ff0000", "blue" };
	catalog *cat = catalog_new("full.out");
	uint32_t t;

	cat->title = strdup("a title");
	cat->entity_kind = strdup("CPU");
	cat->have_start = 1;
	cat->start_sec = 1700000000;
	cat->start_nsec = 123456789;
	set_states(cat, names, colours, 3);
	catalog_assign_colors(cat);
	(void) catalog_entity(cat, "cpu0", 4);
	(void) catalog_entity(cat, "cpu1", 4);
	(void) catalog_entity(cat, "", 0);
	catalog_set_description(cat, 0, "the first", 9);
	t = catalog_tag_id(cat, 1, "t1", 2);
	catalog_define_tag(cat, t, strdup("\"pid\": 12"));
	/* A tag used but never defined. */
	(void) catalog_tag_id(cat, 2, "t2", 2);
	catalog_add_event(cat, 100, "cpu0", 4, "send", 4, "cpu1", 4);
	catalog_set_event_extra(cat, 150, "m1", 2, "\"size\": 3", 9);
	catalog_add_event(cat, 200, "other", 5, "mark", 4, NULL, 0);
	catalog_set_event_extra(cat, CATALOG_NO_END, NULL, 0, NULL, 0);
	(void) intern_add(cat->value_strings, "on", 2, NULL);
	(void) intern_add(cat->value_strings, "off", 3, NULL);
	cat->nrecords = 42;
	cat->ndata = 37;
	cat->have_data = 1;
	cat->last_time = 999;
	return (cat);
}

static int
same_text(const char *a, const char *b)
{
	return (a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0);
}

static void
test_round_trip(void)
{
	catalog *cat = full_catalog(), *back;
	char *bytes, *again;
	size_t len, again_len, n;
	const catalog_event *ev;

	bytes = catalog_file_save(cat, &len);
	back = catalog_file_load(bytes, len, "back.out");
	CHECK("round trip: loads", back != NULL);
	if (back == NULL) {
		free(bytes);
		catalog_free(cat);
		return;
	}
	again = catalog_file_save(back, &again_len);
	CHECK("round trip: saved again to the same bytes", again_len == len &&
	    memcmp(again, bytes, len) == 0);
	CHECK_STR("round trip: named as asked", back->name, "back.out");
	CHECK("round trip: metadata", same_text(back->title, "a title") &&
	    back->host == NULL && same_text(back->entity_kind, "CPU") &&
	    back->have_start == 1 && back->start_sec == 1700000000 &&
	    back->start_nsec == 123456789);
	CHECK("round trip: states, colours as written and as drawn",
	    back->nstates == 3 && back->states[0].color_text == NULL &&
	    same_text(back->states[1].color_text, "#ff0000") &&
	    catalog_same_states(cat, back));
	CHECK_INT("round trip: states by name",
	    catalog_state_by_name(back, "wait", 4), 2);
	CHECK("round trip: entities and descriptions",
	    catalog_nentities(back) == 3 &&
	    same_text(catalog_entity_name(back, 1, &n), "cpu1") &&
	    same_text(back->descriptions[0], "the first") &&
	    back->descriptions[1] == NULL);
	CHECK("round trip: tags and their definitions",
	    catalog_ntags(back) == 2 &&
	    catalog_find_tag(back, 1, "t1", 2) == 0 &&
	    same_text(back->tags[0].members, "\"pid\": 12") &&
	    back->tags[1].members == NULL && back->tags[1].state == 2);
	ev = &back->events[0];
	CHECK("round trip: an event with a target, an end, an id, members",
	    back->nevents == 2 && ev->time == 100 &&
	    ev->target != CATALOG_NO_ENTITY &&
	    catalog_event_end(back, ev) == 150 &&
	    same_text(catalog_event_id(back, ev, &n), "m1") &&
	    same_text(catalog_event_members(back, ev, &n), "\"size\": 3"));
	ev = &back->events[1];
	CHECK("round trip: an event with none of them",
	    ev->target == CATALOG_NO_ENTITY &&
	    catalog_event_extra_of(back, ev) == NULL);
	CHECK("round trip: the strings of value entities, in order",
	    intern_count(back->value_strings) == 2 &&
	    same_text(intern_name(back->value_strings, 1, &n), "off"));
	CHECK("round trip: the counts of records", back->nrecords == 42 &&
	    back->ndata == 37 && back->have_data == 1 &&
	    back->last_time == 999);
	catalog_free(back);
	free(again);

	/* Cut anywhere, or with a byte more, it is no catalog. */
	for (n = 0; n < len; n++) {
		back = catalog_file_load(bytes, n, "cut.out");
		if (back != NULL)
			break;
	}
	CHECK("cut short anywhere: refused", n == len);
	catalog_free(back);
	again = malloc(len + 1);
	memcpy(again, bytes, len);
	again[len] = 0;
	back = catalog_file_load(again, len + 1, "long.out");
	CHECK("a byte more: refused", back == NULL);
	catalog_free(back);
	free(again);
	free(bytes);
	catalog_free(cat);
}

/* Whether cat, saved as it is, is refused on loading. */
static int
refused(catalog *cat)
{
	size_t len;
	char *bytes = catalog_file_save(cat, &len);
	catalog *back = catalog_file_load(bytes, len, "bad.out");
	int r = back == NULL;

	catalog_free(back);
	free(bytes);
	catalog_free(cat);
	return (r);
}

static void
test_refused(void)
{
	static const char *const one[] = { "s" };
	static const char *const two[] = { "s", "s" };
	static const char *const nocolour[] = { "not a colour" };
	catalog *cat;

	CHECK("refused: no states", refused(catalog_new("x")));
	cat = catalog_new("x");
	set_states(cat, one, nocolour, 1);
	CHECK("refused: a colour that is none", refused(cat));
	cat = catalog_new("x");
	set_states(cat, two, NULL, 2);
	CHECK("refused: two states of one name", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	(void) catalog_tag_id(cat, 3, "t", 1);
	CHECK("refused: a tag of a state there is not", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	catalog_add_event(cat, 100, "e", 1, "k", 1, NULL, 0);
	catalog_set_event_extra(cat, 99, NULL, 0, NULL, 0);
	CHECK("refused: an event that ends before it starts", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	catalog_add_event(cat, 100, "e", 1, "k", 1, NULL, 0);
	catalog_set_event_extra(cat, CATALOG_NO_END, NULL, 0, "\"a\": <", 6);
	CHECK("refused: an event's members that are not JSON as written",
	    refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	catalog_add_event(cat, 100, "e", 1, "k", 1, NULL, 0);
	catalog_set_event_extra(cat, CATALOG_NO_END, "", 0, NULL, 0);
	CHECK("refused: an event's empty id", refused(cat));
	/* A start, and the times after it, as the ingest reads them. */
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	cat->start_sec = 9223372037;
	CHECK("refused: a start past 2^63 - 1 ns", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	cat->start_sec = 9223372036;
	cat->start_nsec = 854775800;
	cat->last_time = 8;
	CHECK("refused: a last time past what the start allows",
	    refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	cat->start_sec = 9223372036;
	cat->start_nsec = 854775800;
	catalog_add_event(cat, 7, "e", 1, "k", 1, NULL, 0);
	catalog_set_event_extra(cat, 8, NULL, 0, NULL, 0);
	CHECK("refused: an event's end past what the start allows",
	    refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	cat->start_sec = 9223372036;
	cat->start_nsec = 854775800;
	cat->last_time = 7;
	catalog_add_event(cat, 7, "e", 1, "k", 1, NULL, 0);
	CHECK("a start 7 ns short of 2^63 with times up to 7 is fine",
	    !refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	CHECK("a catalog of one state is fine", !refused(cat));
	/* Text that is not UTF-8, as only bytes changed on disk can be. */
	{
		static const char *const bad[] = { "s\xff" };

		cat = catalog_new("x");
		set_states(cat, bad, NULL, 1);
		CHECK("refused: a state name not UTF-8", refused(cat));
	}
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	(void) catalog_entity(cat, "cpu\xed\xa0\x80", 6);
	CHECK("refused: an entity name with a surrogate", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	cat->title = strdup("ti\xc0\x80tle");
	CHECK("refused: a title with an overlong NUL", refused(cat));
	cat = catalog_new("x");
	set_states(cat, one, NULL, 1);
	(void) catalog_entity(cat, "e\xef\xbf\xbe", 4);
	CHECK("a noncharacter is valid UTF-8: kept", !refused(cat));
}

int
main(void)
{
	test_round_trip();
	test_refused();
	return (unit_exit());
}
