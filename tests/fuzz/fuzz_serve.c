/*
 * libFuzzer harness for the live server's request handling
 * (src/serve/request.c, and through it src/output/viewport.c and src/serve/page.c): the
 * input is "METHOD\nHOST\nURI" (HOST "-" for none), answered over three
 * small stacked traces (tags, zero-length intervals, hostile names, the
 * last a slice whose window begins after 0).
 * Whatever comes in, the answer must be one of the statuses request.h
 * lists; an error must be one line of {"error": "..."}; an answer must
 * be JSON with "statemaps" and "live"; a Host that is not the server's
 * must get 403.  Crashes, leaks, hangs and undefined behaviour are
 * findings too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "serve/request.h"
#include "serve/served_traces.h"
#include "trace/trace.h"

#define TOKEN	"0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char *const hosts[] = { "127.0.0.1:8080", "localhost:8080" };
static const request_site site = { TOKEN, hosts, 2 };
static served *content;
static json_arena *arena;

/*
 * A trace built in memory: three entities, three states, twenty tags;
 * its window [begin, end of data).
 */
static trace *
sample(uint64_t start_sec, uint32_t seed, uint64_t begin)
{
	static const char *const names[] = { "cpu0", "</script><b>",
	    "]]>\"&'" };
	trace *d = calloc(1, sizeof (*d));
	catalog *cat = catalog_new("fuzz.out");
	uint64_t t = 0;
	uint32_t i, e;

	cat->have_start = 1;
	cat->start_sec = start_sec;
	cat->nstates = 3;
	cat->states = calloc(3, sizeof (catalog_state));
	cat->states[0].name = strdup("idle");
	cat->states[0].name_len = 4;
	cat->states[1].name = strdup("<run>");
	cat->states[1].name_len = 5;
	cat->states[2].name = strdup("io");
	cat->states[2].name_len = 2;
	catalog_assign_colors(cat);
	catalog_index_states(cat);
	for (e = 0; e < 3; e++)
		catalog_entity(cat, names[e], strlen(names[e]));
	catalog_set_description(cat, 1, "a \"description\"", 16);
	d->cat = cat;
	d->st = store_new(3);
	for (i = 0; i < 300; i++) {
		uint32_t x = i * 2654435761u + seed * 40503u, tag = STORE_NONE;
		uint32_t state = (x >> 7) % 3;
		char name[8];

		e = (x >> 11) % 3;
		t += (x >> 17) % 4 == 0 ? 0 : 1 + (x >> 19) % 97;
		if (state == 2) {
			snprintf(name, sizeof (name), "t%u", (x >> 3) % 20);
			tag = catalog_tag_id(cat, 2, name, strlen(name));
		}
		store_append(d->st, e, t, state, tag);
		if (i % 40 == 0)
			catalog_add_event(cat, t, names[e], strlen(names[e]),
			    "wake", 4, names[(e + 1) % 3],
			    strlen(names[(e + 1) % 3]));
	}
	cat->last_time = t;
	d->begin = begin < t ? begin : 0;
	d->end = t;
	store_finish(d->st, d->begin, t);
	return (d);
}

static void
init(void)
{
	trace *t[3];
	served_options o;
	sm_error err;
	int i;

	setenv("STATEMAP_THREADS", "1", 1);
	t[0] = sample(10, 0, 0);
	t[1] = sample(9, 3, 0);		/* a second earlier: stacked */
	t[2] = sample(10, 7, 5000);	/* a slice */
	memset(&o, 0, sizeof (o));
	o.budget = 40;
	content = served_new(t, 3, &o, &err);
	for (i = 0; i < 3; i++)
		trace_release(t[i]);
	arena = json_arena_new();
	if (content == NULL)
		abort();
}

/* The line of data from *at to the next newline (or the end). */
static char *
line(const unsigned char *data, size_t size, size_t *at, int last)
{
	size_t from = *at, to = from;
	char *s;

	while (to < size && (last || data[to] != '\n'))
		to++;
	s = malloc(to - from + 1);
	memcpy(s, data + from, to - from);
	s[to - from] = '\0';	/* a NUL inside ends it, as in C */
	*at = to < size ? to + 1 : to;
	return (s);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t at = 0;
	char *method, *host, *uri;
	const char *h;
	request_reply r;
	json_error err;
	const json_value *v;

	if (content == NULL)
		init();
	method = line(data, size, &at, 0);
	host = line(data, size, &at, 0);
	uri = line(data, size, &at, 1);
	h = strcmp(host, "-") == 0 ? NULL : host;
	request_answer(&site, content, 3, method, uri, h, &r);
	switch (r.status) {
	case 200: case 400: case 403: case 404: case 405:
		break;
	default:
		abort();
	}
	if (h == NULL || (strcasecmp(h, hosts[0]) != 0 &&
	    strcasecmp(h, hosts[1]) != 0))
		if (r.status != 403)
			abort();
	json_arena_reset(arena);
	if (r.kind == REQUEST_ERROR) {
		const char *body = request_body(&r);

		v = json_parse_document(arena, body, r.len, &err);
		if (v == NULL || v->type != JSON_OBJECT || v->len != 1 ||
		    json_object_get(v, "error") == NULL ||
		    memchr(body, '\n', r.len) != body + r.len - 1)
			abort();
	} else if (r.kind == REQUEST_ANSWER) {
		request_body(&r);
		v = json_parse_document(arena, r.body, r.len, &err);
		if (v == NULL || json_object_get(v, "statemaps") == NULL ||
		    json_object_get(v, "live") == NULL)
			abort();
	} else if (r.kind == REQUEST_PAGE) {
		if (strstr(r.body, "id=\"statemap-live\"") == NULL)
			abort();
	}
	request_reply_free(&r);
	free(method);
	free(host);
	free(uri);
	return (0);
}
