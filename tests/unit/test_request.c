/*
 * Tests for src/serve/request.c (and the page of src/serve/page.c): every check a
 * request to the live server must pass, in order, with the status and
 * the one-line JSON error of each; parameters at and past their limits;
 * the routes' replies.  No network: request_answer is called directly.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "serve/page.h"
#include "serve/request.h"
#include "serve/served_traces.h"
#include "unit.h"
#define RANDTRACE_WITH_TRACE
#include "randtrace.h"

#define TOKEN	"0123456789abcdef0123456789abcdef"

static const char *const hosts[] = { "127.0.0.1:8080", "localhost:8080" };
static const request_site site = { TOKEN, hosts, 2 };
static served *content;

static trace *
load(const char *text)
{
	char path[] = "/tmp/test_request_XXXXXX";
	FILE *f = randtrace_create(path, "test_request");

	fputs(text, f);
	return (randtrace_load(f, path));
}

static served *
serve_text(const char *text)
{
	trace *d = load(text);
	served_options o;
	sm_error err;
	served *s;

	memset(&o, 0, sizeof (o));
	s = served_new(&d, 1, &o, &err);
	trace_release(d);
	return (s);
}

/* The status of a GET of uri with a good Host. */
static int
status_of(const char *method, const char *uri, const char *host,
    request_reply *r)
{
	request_answer(&site, content, 7, method, uri, host, r);
	return (r->status);
}

/* Whether an error reply is one line of {"error": "..."}. */
static int
one_line_error(request_reply *r)
{
	json_arena *a = json_arena_new();
	json_error err;
	const json_value *v;
	const char *body = request_body(r);
	int ok;

	v = json_parse_document(a, body, r->len, &err);
	ok = v != NULL && v->type == JSON_OBJECT && v->len == 1 &&
	    json_object_get(v, "error") != NULL &&
	    json_object_get(v, "error")->type == JSON_STRING &&
	    memchr(body, '\n', r->len) == body + r->len - 1 &&
	    r->kind == REQUEST_ERROR;
	json_arena_free(a);
	return (ok);
}

/* Checks that uri gets status (and, for an error, a JSON line). */
static void
expect(const char *name, const char *method, const char *uri,
    const char *host, int status)
{
	request_reply r;
	int got = status_of(method, uri, host, &r);

	UNIT_REPORT(got == status && (status == 200 || one_line_error(&r)),
	    name, "%s %s gives %d (%s), want %d", method, uri, got,
	    got == 200 ? "a reply" : request_body(&r), status);
	request_reply_free(&r);
}

static void
test_order_of_checks(void)
{
	expect("request: the page", "GET", "/?token=" TOKEN, hosts[0], 200);
	expect("request: localhost names the server too", "GET",
	    "/?token=" TOKEN, "LocalHost:8080", 200);
	expect("request: another Host is refused (DNS rebinding)", "GET",
	    "/?token=" TOKEN, "evil.example:8080", 403);
	expect("request: another port is another host", "GET",
	    "/?token=" TOKEN, "127.0.0.1:8081", 403);
	expect("request: no Host (or two) is refused", "GET",
	    "/?token=" TOKEN, NULL, 403);
	expect("request: a Host check comes before the URI's", "GET",
	    "/?token=%zz", "evil.example", 403);
	expect("request: no token", "GET", "/", hosts[0], 403);
	expect("request: a wrong token", "GET",
	    "/?token=0123456789abcdef0123456789abcdee", hosts[0], 403);
	expect("request: a token too short", "GET",
	    "/?token=0123456789abcdef", hosts[0], 403);
	expect("request: a token too long", "GET", "/?token=" TOKEN "0",
	    hosts[0], 403);
	expect("request: an empty token", "GET", "/?token=", hosts[0], 403);
	expect("request: the token check comes before the method", "POST",
	    "/?token=bad", hosts[0], 403);
	expect("request: POST is not answered", "POST", "/?token=" TOKEN,
	    hosts[0], 405);
	expect("request: HEAD is not answered", "HEAD", "/?token=" TOKEN,
	    hosts[0], 405);
	expect("request: an unknown path", "GET", "/etc/passwd?token=" TOKEN,
	    hosts[0], 404);
	expect("request: no dot segments", "GET",
	    "/api/../viewer.js?token=" TOKEN, hosts[0], 404);
	expect("request: no escapes in paths", "GET",
	    "/viewer%2ejs?token=" TOKEN, hosts[0], 404);
	expect("request: an unknown path needs the token first", "GET",
	    "/etc/passwd", hosts[0], 403);
	expect("request: the assets", "GET", "/viewer.js?token=" TOKEN,
	    hosts[0], 200);
	expect("request: the style sheet", "GET", "/viewer.css?token=" TOKEN,
	    hosts[0], 200);
	expect("request: the live script", "GET", "/live.js?token=" TOKEN,
	    hosts[0], 200);
	expect("request: the events", "GET", "/api/events?token=" TOKEN,
	    hosts[0], 200);
	expect("request: a parameter the page does not take", "GET",
	    "/?token=" TOKEN "&x=1", hosts[0], 400);
}

static void
test_uri(void)
{
	static const char *const bad[] = {
		"/?token=" TOKEN "&token=" TOKEN,	/* twice */
		"/?token=" TOKEN "&",			/* trailing & */
		"/?token=" TOKEN "&&x=1",		/* empty pair */
		"/?=1&token=" TOKEN,			/* no name */
		"/?token=" TOKEN "&x=%4",		/* short escape */
		"/?token=" TOKEN "&x=%zz",		/* bad escape */
		"/?token=" TOKEN "&x=%00",		/* a NUL */
		"/?token=" TOKEN "#frag",		/* a fragment */
		"/?token=" TOKEN "&x=\x01",		/* a control */
		"/?token=" TOKEN "&x=\xc3\xa9",		/* not ASCII */
		"*",					/* not a path */
		"http://127.0.0.1:8080/?token=" TOKEN,	/* absolute */
		"/?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13"
		    "&n=14&o=15&p=16&token=" TOKEN,	/* too many */
		NULL
	};
	char *longer = malloc(REQUEST_MAX_URI + 64);
	size_t i;
	int all = 1;

	for (i = 0; bad[i] != NULL; i++) {
		request_reply r;

		if (status_of("GET", bad[i], hosts[0], &r) != 400 ||
		    !one_line_error(&r)) {
			printf("  %s: %d %s\n", bad[i], r.status,
			    request_body(&r));
			all = 0;
		}
		request_reply_free(&r);
	}
	CHECK("request: malformed URIs get 400 and a JSON line", all);
	strcpy(longer, "/?token=" TOKEN "&x=");
	memset(longer + strlen(longer), 'a', REQUEST_MAX_URI);
	longer[REQUEST_MAX_URI + 10] = '\0';
	expect("request: a URI too long", "GET", longer, hosts[0], 400);
	free(longer);
	/* Escapes and '+' decode: the token may come escaped. */
	expect("request: an escaped token", "GET",
	    "/?%74oken=0123456789abcdef0123456789abcde%66", hosts[0], 200);
}

#define API	"/api/statemap?token=" TOKEN

static void
test_parameters(void)
{
	static const struct { const char *query; int status; } cases[] = {
		{ "&begin=0&end=100&width=10", 200 },
		{ "&begin=0&end=9223372036854775807&width=16384", 200 },
		{ "&begin=0&end=100&width=10&coalesce=1", 200 },
		{ "&begin=0&end=100&width=10&coalesce=1000000", 200 },
		{ "&begin=0&end=100&width=10&entities=%5Ea", 200 },
		{ "&begin=0&end=100&width=10&entities=a%7B3%7D", 200 },
		{ "&end=100&width=10", 400 },
		{ "&begin=0&width=10", 400 },
		{ "&begin=0&end=100", 400 },
		{ "&begin=0&end=100&width=0", 400 },
		{ "&begin=0&end=100&width=16385", 400 },
		{ "&begin=0&end=100&width=-1", 400 },
		{ "&begin=0&end=100&width=1e3", 400 },
		{ "&begin=0&end=100&width=+5", 400 },
		{ "&begin=0&end=100&width=%205", 400 },
		{ "&begin=0&end=100&width=", 400 },
		{ "&begin=0&end=100&width=0x10", 400 },
		{ "&begin=100&end=100&width=10", 400 },
		{ "&begin=101&end=100&width=10", 400 },
		{ "&begin=0&end=9223372036854775808&width=10", 400 },
		{ "&begin=0&end=99999999999999999999&width=10", 400 },
		{ "&begin=0&end=0&width=10", 400 },
		{ "&begin=0&end=100&width=10&coalesce=0", 400 },
		{ "&begin=0&end=100&width=10&coalesce=1000001", 400 },
		{ "&begin=0&end=100&width=10&entities=(", 400 },
		{ "&begin=0&end=100&width=10&entities=(a)%5C1", 400 },
		{ "&begin=0&end=100&width=10&entities=a%7B101%7D", 400 },
		{ "&begin=0&end=100&width=10&entities=a%7B1%7Db%7B2%7D", 400 },
		{ "&begin=0&end=100&width=10&entities=a%7B1,1000%7D", 400 },
		{ "&begin=0&end=100&width=10&bogus=1", 400 },
		{ "&begin=0&end=100&width=10&Begin=1", 400 },
		{ NULL, 0 }
	};
	char uri[600], pattern[400];
	size_t i;
	int all = 1;

	for (i = 0; cases[i].query != NULL; i++) {
		request_reply r;
		int got;

		snprintf(uri, sizeof (uri), API "%s", cases[i].query);
		got = status_of("GET", uri, hosts[0], &r);
		if (got != cases[i].status ||
		    (got != 200 && !one_line_error(&r))) {
			printf("  %s: %d %s\n", cases[i].query, got,
			    got == 200 ? "" : request_body(&r));
			all = 0;
		}
		request_reply_free(&r);
	}
	CHECK("request: parameters are checked at and past their limits", all);
	memset(pattern, 'a', REQUEST_MAX_REGEX + 1);
	pattern[REQUEST_MAX_REGEX + 1] = '\0';
	snprintf(uri, sizeof (uri), API "&begin=0&end=9&width=9&entities=%s",
	    pattern);
	expect("request: a pattern too long", "GET", uri, hosts[0], 400);
	pattern[REQUEST_MAX_REGEX] = '\0';
	snprintf(uri, sizeof (uri), API "&begin=0&end=9&width=9&entities=%s",
	    pattern);
	expect("request: a pattern as long as allowed", "GET", uri, hosts[0],
	    200);
}

static void
test_answer(void)
{
	request_reply r;
	json_arena *a = json_arena_new();
	json_error err;
	const json_value *v, *live, *ents;

	status_of("GET", API "&begin=0&end=10&width=100", hosts[0], &r);
	CHECK("request: an answer comes in pieces, to be sent as they are",
	    r.pieces != NULL && r.npieces > 2 && r.body == NULL);
	request_body(&r);
	v = json_parse_document(a, r.body, r.len, &err);
	live = v != NULL ? json_object_get(v, "live") : NULL;
	ents = v != NULL ? json_object_get(json_object_get(v,
	    "statemaps")->child, "entities") : NULL;
	CHECK("request: an answer is the -T json document and \"live\"",
	    r.status == 200 && r.kind == REQUEST_ANSWER && live != NULL &&
	    ents != NULL && ents->len == 3 &&
	    strstr(r.type, "application/json") == r.type);
	CHECK("request: \"live\" says the generation, and that it is exact",
	    live != NULL && json_object_get(live, "exact")->type == JSON_TRUE &&
	    strncmp(json_object_get(live, "generation")->str, "7", 1) == 0);
	CHECK("request: each rectangle says how many transitions it is",
	    strstr(r.body, "\"n\": 1}") != NULL);
	request_reply_free(&r);
	json_arena_reset(a);
	status_of("GET", API "&begin=0&end=10&width=100&entities=%5Eb%24",
	    hosts[0], &r);
	request_body(&r);
	v = json_parse_document(a, r.body, r.len, &err);
	ents = v != NULL ? json_object_get(json_object_get(v,
	    "statemaps")->child, "entities") : NULL;
	CHECK("request: entities=REGEX keeps those it matches",
	    ents != NULL && ents->len == 1);
	request_reply_free(&r);
	json_arena_reset(a);
	status_of("GET", API "&begin=0&end=10&width=100&coalesce=1",
	    hosts[0], &r);
	request_body(&r);
	v = json_parse_document(a, r.body, r.len, &err);
	live = v != NULL ? json_object_get(v, "live") : NULL;
	CHECK("request: a smaller budget merges",
	    live != NULL &&
	    json_object_get(live, "exact")->type == JSON_FALSE);
	request_reply_free(&r);
	json_arena_free(a);
}

/* Every <script> of the page is a data block or an asset. */
static int
scripts_ok(const char *page)
{
	const char *at = page;

	while ((at = strstr(at, "<script")) != NULL) {
		if (strncmp(at, "<script type=\"application/json\"", 31) != 0 &&
		    strncmp(at, "<script src=\"/", 14) != 0)
			return (0);
		at++;
	}
	return (1);
}

static void
test_page(void)
{
	request_reply r;
	served *hostile;
	const char *asset, *type;
	size_t len;

	status_of("GET", "/?token=" TOKEN, hosts[0], &r);
	CHECK("request: the page is HTML",
	    r.kind == REQUEST_PAGE && strstr(r.type, "text/html") == r.type &&
	    strncmp(r.body, "<!DOCTYPE html>", 15) == 0);
	CHECK("request: the page tells the viewer it is live",
	    strstr(r.body, "<script type=\"application/json\" "
	    "id=\"statemap-live\">{\"version\": 1, \"api\": \"/api/statemap\", "
	    "\"events\": \"/api/events\", \"token\": \"" TOKEN "\", "
	    "\"generation\": 7, \"begin\": 0, \"end\": 10,") != NULL);
	CHECK("request: the page holds the first window's statemap and data",
	    strstr(r.body, "<svg ") != NULL &&
	    strstr(r.body, "id=\"statemap-data\"") != NULL &&
	    strstr(r.body, "<?xml") == NULL);
	CHECK("request: the page's scripts are assets, none inline",
	    scripts_ok(r.body) &&
	    strstr(r.body, "<script src=\"/viewer.js?token=" TOKEN "\">") !=
	    NULL && strstr(r.body, "id=\"statemap-viewer\"") == NULL);
	request_reply_free(&r);
	asset = page_asset("/viewer.js", &len, &type);
	CHECK("request: the viewer asset is the viewer, adapted",
	    asset != NULL && len > 1000 && strstr(asset, "statemapViewer") &&
	    strcmp(type, "text/javascript; charset=utf-8") == 0);
	CHECK("request: no other asset", page_asset("/", &len, &type) ==
	    NULL && page_asset("/viewer.jsx", &len, &type) == NULL);

	hostile = serve_text("{\"start\": [0, 0], \"title\": \"</title>"
	    "<script>alert(1)</script>\", \"states\": {\"<b>\": "
	    "{\"value\": 0}}}\n"
	    "{\"time\": \"1\", \"entity\": \"</script><script>alert(2)"
	    "</script>\", \"state\": 0}\n"
	    "{\"time\": \"5\", \"entity\": \"]]><script>alert(3)</script>\", "
	    "\"state\": 0}\n");
	request_answer(&site, hostile, 1, "GET", "/?token=" TOKEN, hosts[0],
	    &r);
	CHECK("request: names from the trace stay text in the page",
	    r.status == 200 && strstr(r.body, "alert") != NULL &&
	    strstr(r.body, "<script>alert") == NULL &&
	    strstr(r.body, "</title><script") == NULL && scripts_ok(r.body));
	request_reply_free(&r);
	served_release(hostile);
}

int
main(void)
{
	content = serve_text("{\"start\": [0, 0], \"title\": \"t\", "
	    "\"states\": {\"x\": {\"value\": 0}, \"y\": {\"value\": 1}}}\n"
	    "{\"time\": \"0\", \"entity\": \"a\", \"state\": 0}\n"
	    "{\"time\": \"1\", \"entity\": \"b\", \"state\": 1}\n"
	    "{\"time\": \"2\", \"entity\": \"c\", \"state\": 0}\n"
	    "{\"time\": \"4\", \"entity\": \"a\", \"state\": 1}\n"
	    "{\"time\": \"6\", \"entity\": \"b\", \"state\": 0}\n"
	    "{\"time\": \"10\", \"entity\": \"c\", \"state\": 1}\n");
	/* Answers name each send's receives: matched once, when served. */
	CHECK("served: each panel's messages are matched once",
	    content != NULL && content->panels[0].received != NULL);
	test_order_of_checks();
	test_uri();
	test_parameters();
	test_answer();
	test_page();
	served_release(content);
	return (unit_exit());
}
