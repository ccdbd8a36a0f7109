/*
 * records_tags.c: the records that describe what data refer to: tag
 * definitions (a tag's state and members, kept as JSON) and entity
 * descriptions, and the declarations (a "description" of null) that
 * number an entity or a tag without describing it.
 */
#include "ingest/records.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "ingest/records_deliver.h"
#include "ingest/records_internal.h"

/*
 * An entity description, or with a description of null an entity
 * declaration: the entity is numbered (if new) and its description, if
 * it has one, stays.  t:write declares so an entity that has no line of
 * its own in the file, to keep it in its place in the order.
 */
int
records_take_description(records *r, const json_value *obj,
    const records_fields *f)
{
	const json_value *allowed[] = { f->entity, f->description };
	uint32_t entity;

	if (records_only_members(r, f, "an entity description", allowed,
	    2) != 0 ||
	    records_need_member(r, obj, f->entity, "entity",
	    "entity description") != 0 ||
	    records_expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    (f->description->type != JSON_NULL &&
	    records_expect_type(r, f->description, JSON_STRING,
	    "description") != 0))
		return (-1);
	entity = records_entity(r, f->entity->str, f->entity->len);
	if (entity != CATALOG_NO_ENTITY && f->description->type == JSON_STRING)
		catalog_set_description(r->cat, entity, f->description->str,
		    f->description->len);
	return (0);
}

/*
 * A type declaration, {"entity": E, "type": "number"}: E is a number
 * entity whose numbers are doubles, integers made doubles, so that it
 * may have both (catalog_value_type).  An entity that has integers
 * already cannot be declared (its words are integers), nor one that has
 * states or strings.
 */
int
records_take_type_declaration(records *r, const records_fields *f)
{
	const json_value *t = f->other;
	uint32_t entity;
	uint8_t k;
	char q[96];

	if (records_expect_type(r, f->entity, JSON_STRING, "entity") != 0 ||
	    records_expect_type(r, t, JSON_STRING, "type") != 0)
		return (-1);
	if (t->len != 6 || memcmp(t->str, "number", 6) != 0)
		return (records_fail(r, t->offset, "type must be \"number\" "
		    "(the entity's numbers are doubles), not %s",
		    records_quoted(q, sizeof (q), t->str, t->len)));
	entity = records_entity(r, f->entity->str, f->entity->len);
	if (entity == CATALOG_NO_ENTITY)
		return (0);
	records_quoted(q, sizeof (q), f->entity->str, f->entity->len);
	k = r->kind[entity];
	if (k != RECORDS_NEW && k != RECORDS_VALUES && k != RECORDS_NUMBERS)
		return (records_fail(r, f->entity->offset, "entity %s has %s, "
		    "so it cannot be declared numeric", q,
		    k == RECORDS_STRINGS ? "string values" : "states"));
	if (catalog_value_type(r->cat, entity) == CATALOG_VALUES_INTEGER)
		return (records_fail(r, f->entity->offset, "entity %s is "
		    "declared numeric after its first integer: declare it "
		    "before its first number", q));
	catalog_set_value_type(r->cat, entity, CATALOG_VALUES_NUMBER);
	r->kind[entity] = RECORDS_NUMBERS;
	return (0);
}

/*
 * A tag declaration, {"state": S, "tag": T, "description": null}: the
 * tag is numbered (if new) as a datum naming it would number it, and
 * stays undefined unless a definition comes; a definition given before
 * stays.  t:write declares so the tags that no datum would number in
 * their order.
 */
int
records_take_tag_declaration(records *r, const json_value *obj,
    const records_fields *f)
{
	const json_value *allowed[] = { f->state, f->tag, f->description };
	uint32_t state;

	if (records_only_members(r, f, "a tag declaration", allowed, 3) != 0 ||
	    records_need_metadata(r, obj, "tag declaration") != 0 ||
	    records_parse_state(r, f->state, &state) != 0 ||
	    records_expect_type(r, f->tag, JSON_STRING, "tag") != 0 ||
	    records_expect_type(r, f->description, JSON_NULL,
	    "the \"description\" of a tag declaration") != 0)
		return (-1);
	if (!r->opts->ignore_tags)
		(void) catalog_tag_id(r->cat, state, f->tag->str, f->tag->len);
	return (0);
}

int
records_skip_state_tag(const json_value *m, const void *ctx)
{
	const records_fields *f = ctx;

	return (m == f->state || m == f->tag);
}

int
records_take_tag_definition(records *r, const json_value *obj,
    const records_fields *f)
{
	uint32_t state;
	char *members = NULL;
	size_t size = 0;
	FILE *out;

	if (records_need_metadata(r, obj, "tag definition") != 0 ||
	    records_parse_state(r, f->state, &state) != 0 ||
	    records_expect_type(r, f->tag, JSON_STRING, "tag") != 0)
		return (-1);
	if (r->opts->ignore_tags)
		return (0);
	if ((out = open_memstream(&members, &size)) == NULL) {
		error_set(r->err, "out of memory");
		return (-1);
	}
	(void) records_write_members(out, obj, records_skip_state_tag, f);
	fclose(out);
	catalog_define_tag(r->cat, catalog_tag_id(r->cat, state, f->tag->str,
	    f->tag->len), members);
	return (0);
}

int
records_deliver_tag_definition(records *r, uint32_t state, const char *tag,
    size_t tag_len, uint32_t tag_name, const char *members,
    size_t members_len)
{
	r->any_record = 1;
	r->cat->nrecords++;
	if (r->opts->ignore_tags)
		return (1);
	if (tag_name == CATALOG_NO_TAG)
		tag_name = catalog_tag_name(r->cat, tag, tag_len);
	catalog_define_tag(r->cat, catalog_tag_id_named(r->cat, state,
	    tag_name), xstrndup(members, members_len));
	return (1);
}
