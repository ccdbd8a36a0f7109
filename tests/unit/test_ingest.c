/*
 * Tests for src/ingest/ingest.c: every payload kind, and for each kind of bad
 * input the message and its exact line and column.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "store/store.h"
#include "unit.h"

typedef struct seen {
	char log[4096];
	size_t len;
} seen;

static void
record(void *ctx, catalog *cat, uint32_t entity, uint64_t time, uint32_t state,
    uint32_t tag_name)
{
	seen *s = ctx;
	const char *name = catalog_entity_name(cat, entity, NULL);
	uint32_t tag = tag_name == CATALOG_NO_TAG ? CATALOG_NO_TAG :
	    catalog_tag_id_named(cat, state, tag_name);

	if (s->len > sizeof (s->log) - 128)
		return;		/* the long tests only count */
	s->len += (size_t)snprintf(s->log + s->len, sizeof (s->log) - s->len,
	    "%s@%llu=%u", name, (unsigned long long)time, state);
	if (tag != CATALOG_NO_TAG)
		s->len += (size_t)snprintf(s->log + s->len,
		    sizeof (s->log) - s->len, "#%u", tag);
	s->log[s->len++] = ' ';
	s->log[s->len] = '\0';
}

static int
parse(const char *text, catalog **out, seen *s, sm_error *err,
    const ingest_options *opts)
{
	catalog *cat = catalog_new("t.out");
	int rv;

	memset(s, 0, sizeof (*s));
	memset(err, 0, sizeof (*err));
	rv = ingest_buffer("t.out", text, strlen(text), cat, opts, record, s,
	    err);
	if (out != NULL)
		*out = cat;
	else
		catalog_free(cat);
	return (rv);
}

#define META "{\"start\": [1700000000, 5], \"states\": {\"on\": " \
	"{\"value\": 0, \"color\": \"#00ff00\"}, \"off\": {\"value\": 1}}}\n"

static void
test_good(void)
{
	const char *text =
	    "{\"title\": \"demo\", \"host\": \"h1\"}\n"
	    "{\"start\": [1700000000, 5], \"entityKind\": \"Thread\"}"
	    "{\"states\": {\"on\": {\"value\": 0, \"color\": \"#00ff00\"},"
	    " \"off\": {\"value\": 1}}}\n"
	    "{\"entity\": \"b\", \"description\": \"the <b> thread\"}\n"
	    "{\"time\": \"10\", \"entity\": \"a\", \"state\": 0, "
	    "\"tag\": \"t1\"}\n"
	    "{\"state\": 0, \"tag\": \"t1\", \"pid\": 12, \"name\": \"x\"}\n"
	    "{\"time\": 20, \"entity\": \"b\", \"state\": 1}\n"
	    "{\"state\": 1, \"tag\": \"t2\", \"pid\": 1, \"x\": [], "
	    "\"pid\": 13}\n"
	    "{\"time\": \"30\", \"entity\": \"a\", \"state\": 1, "
	    "\"tag\": \"t2\"}\n"
	    "{\"state\": 0, \"tag\": \"t1\", \"pid\": 99}\n"
	    "{\"time\": \"35\", \"entity\": \"a\", \"event\": \"wakeup\", "
	    "\"target\": \"b\"}\n"
	    "  \t\r\n";
	catalog *cat;
	seen s;
	sm_error err;
	int rv = parse(text, &cat, &s, &err, NULL);

	CHECK_INT("ingest accepts every payload kind", rv, 0);
	if (rv != 0)
		error_print(&err, stdout);
	CHECK_STR("ingest data in file order, tags numbered by first use",
	    s.log, "a@10=0#0 b@20=1 a@30=1#1 ");
	CHECK_STR("ingest split metadata: title", cat->title, "demo");
	CHECK_STR("ingest split metadata: host", cat->host, "h1");
	CHECK_STR("ingest split metadata: entityKind", cat->entity_kind,
	    "Thread");
	CHECK_U64("ingest start", catalog_start_ns(cat),
	    1700000000ULL * 1000000000ULL + 5);
	CHECK_INT("ingest states", cat->nstates, 2);
	CHECK_STR("ingest state names by value", cat->states[1].name, "off");
	CHECK("ingest colour parsed", cat->states[0].color.g == 255 &&
	    cat->states[0].color.r == 0);
	CHECK("ingest generated colour for a state without one",
	    cat->states[1].color_text == NULL);
	CHECK_INT("ingest entities in order of first appearance (a "
	    "description counts)", catalog_nentities(cat), 2);
	CHECK_STR("ingest entity 0 is the described one",
	    catalog_entity_name(cat, 0, NULL), "b");
	CHECK_STR("ingest description", cat->descriptions[0],
	    "the <b> thread");
	CHECK_INT("ingest tags", catalog_ntags(cat), 2);
	CHECK_STR("ingest tag redefinition replaces members",
	    cat->tags[0].members, "\"pid\": 99");
	CHECK_STR("ingest tag defined after use, a member given twice kept "
	    "once with its last value", cat->tags[1].members,
	    "\"x\": [], \"pid\": 13");
	CHECK_U64("ingest events kept", cat->nevents, 1);
	CHECK("ingest event target", cat->nevents == 1 &&
	    cat->events[0].target != CATALOG_NO_ENTITY &&
	    cat->events[0].time == 35);
	CHECK_U64("ingest records counted after metadata", cat->nrecords, 8);
	CHECK_U64("ingest last time", cat->last_time, 30);
	catalog_free(cat);
}

/* Members of a tag definition are written back as JSON: a key given
 * twice, at any depth, keeps its last value. */
static void
test_tag_members(void)
{
	const char *text = META
	    "{\"state\": 0, \"tag\": \"t\", \"x\": {\"k\": 1, \"j\": "
	    "[{\"a\": 1, \"a\": {\"b\": 2, \"b\": 3}}], \"k\": 2}, "
	    "\"y\": 1, \"x\": {\"k\": 3, \"k\": {}}}\n";
	catalog *cat;
	seen s;
	sm_error err;
	int rv = parse(text, &cat, &s, &err, NULL);

	CHECK_INT("ingest tag definition with nested members", rv, 0);
	CHECK_STR("ingest tag members: a key twice in a nested object keeps "
	    "its last value", cat->tags[0].members,
	    "\"y\": 1, \"x\": {\"k\":{}}");
	catalog_free(cat);
	text = META
	    "{\"state\": 0, \"tag\": \"t\", \"x\": {\"k\": 1, \"j\": "
	    "[{\"a\": 1, \"a\": {\"b\": 2, \"b\": 3}}], \"k\": 2}}\n";
	rv = parse(text, &cat, &s, &err, NULL);
	CHECK_STR("ingest tag members: keys twice in objects in arrays in "
	    "objects", rv == 0 ? cat->tags[0].members : "(error)",
	    "\"x\": {\"j\":[{\"a\":{\"b\":3}}],\"k\":2}");
	catalog_free(cat);
	/* Past 16 members a table counts the keys (records_last_uses). */
	text = META
	    "{\"state\": 0, \"tag\": \"t\", \"m1\": 1, \"m2\": 2, \"m3\": 3, "
	    "\"m4\": 4, \"m5\": 5, \"m6\": 6, \"m7\": 7, \"m8\": 8, \"m9\": 9, "
	    "\"m1\": 10, \"m10\": 11, \"m11\": 12, \"m12\": 13, \"m13\": 14, "
	    "\"m14\": 15, \"m15\": 16, \"m16\": {\"a\": 1, \"a\": 2}, "
	    "\"m9\": 17}\n";
	rv = parse(text, &cat, &s, &err, NULL);
	CHECK_STR("ingest tag members: keys twice among more than 16",
	    rv == 0 ? cat->tags[0].members : "(error)",
	    "\"m2\": 2, \"m3\": 3, \"m4\": 4, \"m5\": 5, \"m6\": 6, \"m7\": 7, "
	    "\"m8\": 8, \"m1\": 10, \"m10\": 11, \"m11\": 12, \"m12\": 13, "
	    "\"m13\": 14, \"m14\": 15, \"m15\": 16, \"m16\": {\"a\":2}, "
	    "\"m9\": 17");
	catalog_free(cat);
	text = META
	    "{\"state\": 0, \"tag\": \"t\", \"x\": 1, \"x\": 2, \"x\": 3}\n";
	rv = parse(text, &cat, &s, &err, NULL);
	CHECK_STR("ingest tag members: a key three times in a row keeps its "
	    "last value", rv == 0 ? cat->tags[0].members : "(error)",
	    "\"x\": 3");
	catalog_free(cat);
}

static void
test_options(void)
{
	const char *text = META
	    "{\"time\": \"1\", \"entity\": \"cpu1\", \"state\": 0, "
	    "\"tag\": \"x\"}\n"
	    "{\"time\": \"2\", \"entity\": \"disk0\", \"state\": 1}\n"
	    "{\"time\": \"3\", \"entity\": \"cpu2\", \"state\": 1}\n"
	    "{\"time\": \"1\", \"entity\": \"disk0\", \"state\": 1}\n";
	ingest_options opts = { .ignore_tags = 1 };
	regex_t re;
	seen s;
	sm_error err;

	regcomp(&re, "^cpu", REG_EXTENDED | REG_NOSUB);
	opts.filter = &re;
	CHECK_INT("ingest with filter and ignore-tags",
	    parse(text, NULL, &s, &err, &opts), 0);
	/* disk0 goes backwards, but it is filtered out: no error. */
	CHECK_STR("ingest filter keeps matching entities, drops tags", s.log,
	    "cpu1@1=0 cpu2@3=1 ");
	regfree(&re);
}

typedef struct bad {
	const char *name;
	const char *text;
	uint64_t line, column;
	const char *message;	/* a substring of the message */
} bad;

static void
test_bad(void)
{
	static const bad cases[] = {
		{ "empty input", "", 1, 1, "empty input" },
		{ "whitespace only", "\n\n  ", 3, 3, "empty input" },
		{ "malformed JSON", META "{\"time\": \"1\", \"entity\": \"x\" "
		    "\"state\": 0}", 2, 29, "expected" },
		{ "ends mid-object", META "{\"time\": \"1\", \"ent", 2, 19,
		    "end of input" },
		{ "ends mid-string", META "{\"time\": \"1\", \"entity\": \"abc",
		    2, 29, "end of input" },
		{ "not an object", META "[1, 2]", 2, 1, "expected a JSON "
		    "object" },
		{ "unknown payload", META "{\"time\": \"1\", \"entity\": "
		    "\"x\", \"state\": 0}\n{\"foo\": 1}", 3, 2,
		    "unrecognized record: member \"foo\"" },
		{ "unexpected member in datum", META "{\"time\": \"1\", "
		    "\"entity\": \"x\", \"state\": 0, \"colour\": 1}", 2, 42,
		    "unexpected member \"colour\" in a datum" },
		{ "datum before metadata", "{\"time\": \"1\", \"entity\": "
		    "\"x\", \"state\": 0}", 1, 1, "before the metadata" },
		{ "missing start", "{\"states\": {\"a\": {\"value\": 0}}}\n"
		    "{\"time\": \"1\", \"entity\": \"x\", \"state\": 0}", 2, 1,
		    "\"start\"" },
		{ "missing states at the end", "{\"start\": [0, 0]}\n", 2, 1,
		    "without metadata field \"states\"" },
		{ "duplicate metadata field", "{\"title\": \"a\"}\n"
		    "{\"title\": \"b\"}", 2, 2, "field \"title\" is given "
		    "twice" },
		{ "duplicate member", "{\"title\": \"a\", \"title\": \"b\"}",
		    1, 16, "appears twice" },
		{ "state value out of range", "{\"start\": [0, 0], "
		    "\"states\": {\"a\": {\"value\": 1}}}", 1, 45,
		    "values must be 0 to 0" },
		{ "duplicate state value", "{\"start\": [0, 0], \"states\": "
		    "{\"a\": {\"value\": 0}, \"b\": {\"value\": 0}}}", 1, 64,
		    "which state \"a\" already has" },
		{ "state value 2^31", "{\"start\": [0, 0], \"states\": "
		    "{\"a\": {\"value\": 2147483648}}}", 1, 45,
		    "values must be 0 to 0" },
		{ "bad colour", "{\"start\": [0, 0], \"states\": {\"a\": "
		    "{\"value\": 0, \"color\": \"reddish\"}}}", 1, 57,
		    "\"reddish\" of state \"a\" is not a colour" },
		{ "undefined state", META "{\"time\": \"1\", \"entity\": "
		    "\"x\", \"state\": 2}", 2, 39, "state 2 is not defined" },
		{ "time backwards", META "{\"time\": \"9\", \"entity\": "
		    "\"x\", \"state\": 0}\n{\"time\": \"8\", \"entity\": "
		    "\"x\", \"state\": 0}", 3, 10,
		    "time 8 for entity \"x\" is before its previous time 9" },
		{ "fractional time", META "{\"time\": \"1.5\", \"entity\": "
		    "\"x\", \"state\": 0}", 2, 10, "time \"1.5\" is not" },
		{ "negative time", META "{\"time\": -1, \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "time -1 is not" },
		{ "exponent time", META "{\"time\": 1e3, \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "time 1e3 is not" },
		{ "time beyond 64 bits", META "{\"time\": "
		    "\"18446744073709551616\", \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "below 2^63" },
		{ "time of 2^63 (string)", META "{\"time\": "
		    "\"9223372036854775808\", \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "below 2^63" },
		{ "time of 2^63 (number)", META "{\"time\": "
		    "9223372036854775808, \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "below 2^63" },
		{ "19-digit time above 2^63", META "{\"time\": "
		    "\"9999999999999999999\", \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "below 2^63" },
		{ "a start past 2^63 - 1 ns", "{\"start\": [9223372036, "
		    "854775808], \"states\": {\"a\": {\"value\": 0}}}",
		    1, 11, "is past 2^63 - 1 ns since the epoch" },
		{ "a time past 2^63 - 1 ns with the start", "{\"start\": "
		    "[9223372036, 854775800], \"states\": {\"a\": "
		    "{\"value\": 0}}}\n{\"time\": \"7\", \"entity\": "
		    "\"x\", \"state\": 0}\n{\"time\": 8, \"entity\": "
		    "\"x\", \"state\": 0}", 3, 10, "time 8 after \"start\" "
		    "[9223372036, 854775800] is past 2^63 - 1 ns" },
		{ "empty time", META "{\"time\": \"\", \"entity\": \"x\", "
		    "\"state\": 0}", 2, 10, "time \"\" is not" },
		{ "entity not a string", META "{\"time\": \"1\", \"entity\": "
		    "7, \"state\": 0}", 2, 25, "entity must be a string" },
		{ "event end not a time", META "{\"time\": \"5\", \"entity\": "
		    "\"x\", \"event\": \"send\", \"end\": \"soon\"}", 2, 54,
		    "end \"soon\" is not a non-negative integer" },
		{ "event end a boolean", META "{\"time\": \"5\", \"entity\": "
		    "\"x\", \"event\": \"send\", \"end\": true}", 2, 54,
		    "end must be a string of digits or a number but is a "
		    "boolean" },
		{ "event end before its time", META "{\"time\": \"9\", "
		    "\"entity\": \"x\", \"event\": \"send\", \"end\": 8}", 2,
		    54, "end 8 is before time 9" },
		{ "event end twice", META "{\"time\": \"5\", \"entity\": "
		    "\"x\", \"event\": \"send\", \"end\": 6, \"end\": 7}", 2,
		    57, "member \"end\" appears twice" },
		{ "event id a number", META "{\"time\": \"5\", \"entity\": "
		    "\"x\", \"event\": \"send\", \"id\": 17}", 2, 53,
		    "the event's \"id\" must be a string but is a number" },
		{ "event id empty", META "{\"time\": \"5\", \"entity\": "
		    "\"x\", \"event\": \"send\", \"id\": \"\"}", 2, 53,
		    "the event's \"id\" is empty" },
		{ "event id twice", META "{\"time\": \"5\", \"id\": \"a\", "
		    "\"entity\": \"x\", \"event\": \"send\", \"id\": \"b\"}",
		    2, 58, "member \"id\" appears twice" },
		{ "line and column count characters", META "\n  {\"entity\": "
		    "\"\xc3\xa9\xc3\xa9\", \"description\": 5}", 3, 35,
		    "description must be a string" },
	};
	size_t i;

	for (i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		const bad *c = &cases[i];
		seen s;
		sm_error err;
		char name[128];
		int rv = parse(c->text, NULL, &s, &err, NULL);

		snprintf(name, sizeof (name), "ingest error: %s", c->name);
		UNIT_REPORT(rv != 0 && err.line == c->line &&
		    err.column == c->column &&
		    strstr(err.message, c->message) != NULL &&
		    strcmp(err.file, "t.out") == 0, name,
		    "got rv %d at %llu:%llu \"%s\", want %llu:%llu \"%s\"",
		    rv, (unsigned long long)err.line,
		    (unsigned long long)err.column, err.message,
		    (unsigned long long)c->line,
		    (unsigned long long)c->column, c->message);
	}
}

/*
 * Message events: an end, an id and any other members, kept as a tag
 * definition's are (a member given twice keeps its last value); plain
 * events keep no extra at all.
 */
static void
test_message_events(void)
{
	const char *text = META
	    "{\"time\": \"12\", \"entity\": \"node1/worker-3\", "
	    "\"event\": \"send\", \"target\": \"node2/io-1\", "
	    "\"end\": \"30\", \"id\": \"node1|node2|U(MSG):17\", "
	    "\"type\": \"MSG\", \"seq\": 1, \"seq\": 17, \"tag\": \"t\"}\n"
	    "{\"time\": 14, \"entity\": \"a\", \"event\": \"wakeup\"}\n"
	    "{\"time\": 15, \"entity\": \"a\", \"event\": \"receive\", "
	    "\"id\": \"node1|node2|U(MSG):17\", \"end\": null}\n";
	catalog *cat;
	seen s;
	sm_error err;
	int rv = parse(text, &cat, &s, &err, NULL);
	size_t len;
	const char *members;

	CHECK_INT("ingest message events", rv, 0);
	CHECK_U64("ingest message events kept", cat->nevents, 3);
	CHECK_U64("ingest message event end", catalog_event_end(cat,
	    &cat->events[0]), 30);
	CHECK_STR("ingest message event id", catalog_event_id(cat,
	    &cat->events[0], &len), "node1|node2|U(MSG):17");
	members = catalog_event_members(cat, &cat->events[0], &len);
	CHECK_STR("ingest message event members, a member twice kept last",
	    members, "\"type\": \"MSG\", \"seq\": 17, \"tag\": \"t\"");
	CHECK("ingest plain event has no extra",
	    catalog_event_extra_of(cat, &cat->events[1]) == NULL);
	CHECK("ingest receive: one id for both, a null end is none",
	    cat->events[2].extra != CATALOG_NO_EXTRA &&
	    cat->event_extras[cat->events[2].extra].id ==
	    cat->event_extras[cat->events[0].extra].id &&
	    catalog_event_end(cat, &cat->events[2]) == CATALOG_NO_END &&
	    catalog_event_members(cat, &cat->events[2], &len) == NULL);
	catalog_free(cat);
}

static void
test_file(void)
{
	char path[] = "/tmp/test_ingest_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	catalog *cat = catalog_new(path);
	seen s;
	sm_error err;
	int i, rv;

	fputs(META, fp);
	for (i = 0; i < 1000; i++)
		fprintf(fp, "{\"time\": \"%d\", \"entity\": \"e%d\", "
		    "\"state\": %d}\n", i, i % 3, i % 2);
	fclose(fp);
	memset(&s, 0, sizeof (s));
	rv = ingest_file(path, cat, NULL, record, &s, &err);
	CHECK_INT("ingest_file reads a mapped file", rv, 0);
	CHECK_U64("ingest_file data count", cat->ndata, 1000);
	catalog_free(cat);
	unlink(path);

	cat = catalog_new("/nonexistent");
	rv = ingest_file("/nonexistent/x.out", cat, NULL, record, &s, &err);
	CHECK("ingest_file: missing file is an error naming it", rv != 0 &&
	    strstr(err.message, "cannot open") != NULL &&
	    strcmp(err.file, "/nonexistent/x.out") == 0);
	catalog_free(cat);
}

/*
 * The most states a trace may have: their names are indexed as they are
 * read (a linear search for duplicates made this 8 s), and found by name.
 */
static void
test_many_states(void)
{
	size_t cap = 64 + (size_t)STORE_MAX_STATES * 40, len = 0;
	char *text = malloc(cap);
	catalog *cat;
	seen s;
	sm_error err;
	uint32_t i;
	int rv;

	len += (size_t)snprintf(text + len, cap - len,
	    "{\"start\": [0, 0], \"states\": {");
	for (i = 0; i < STORE_MAX_STATES; i++)
		len += (size_t)snprintf(text + len, cap - len,
		    "%s\"state %u\": {\"value\": %u}", i > 0 ? ", " : "",
		    STORE_MAX_STATES - 1 - i, STORE_MAX_STATES - 1 - i);
	snprintf(text + len, cap - len, "}}\n");
	rv = parse(text, &cat, &s, &err, NULL);
	CHECK_INT("ingest 65535 states", rv, 0);
	CHECK("ingest indexes every state's name",
	    cat->state_names != NULL &&
	    intern_count(cat->state_names) == STORE_MAX_STATES);
	CHECK_INT("ingest finds a state by name",
	    catalog_state_by_name(cat, "state 40000", 11), 40000);
	CHECK_INT("ingest: no state by a name not given",
	    catalog_state_by_name(cat, "state 65535", 11), -1);
	catalog_free(cat);
	free(text);
}

int
main(void)
{
	test_good();
	test_many_states();
	test_tag_members();
	test_options();
	test_bad();
	test_message_events();
	test_file();
	return (unit_exit());
}
