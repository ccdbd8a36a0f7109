#include "serve/request.h"

#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/json.h"
#include "base/util.h"
#include "output/viewport.h"
#include "serve/page.h"

#define JSON_TYPE	"application/json; charset=utf-8"

/* A parameter of the query, decoded. */
typedef struct param {
	char *name, *value;	/* NUL-terminated, neither holds a NUL */
	size_t value_len;
} param;

typedef struct query {
	param p[REQUEST_MAX_PARAMS];
	size_t n;
} query;

/* ---- replies ---- */

static void
error_reply(request_reply *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
error_reply(request_reply *r, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	FILE *out;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof (msg), fmt, ap);
	va_end(ap);
	memset(r, 0, sizeof (*r));
	r->kind = REQUEST_ERROR;
	r->status = status;
	r->type = JSON_TYPE;
	if ((out = open_memstream(&r->body, &r->len)) == NULL)
		out_of_memory(0);
	fputs("{\"error\": ", out);
	json_write_string(out, msg, strlen(msg));
	fputs("}\n", out);
	if (fclose(out) != 0)
		out_of_memory(r->len);
}

const char *
request_body(request_reply *r)
{
	size_t i, at = 0;

	if (r->pieces != NULL) {
		free(r->body);
		r->body = xmalloc(r->len + 1);
		for (i = 0; i < r->npieces; i++) {
			memcpy(r->body + at, r->pieces[i].text,
			    r->pieces[i].len);
			at += r->pieces[i].len;
			free(r->pieces[i].text);
		}
		r->body[at] = '\0';
		free(r->pieces);
		r->pieces = NULL;
		r->npieces = 0;
	}
	return (r->body != NULL ? r->body : r->static_body);
}

void
request_reply_free(request_reply *r)
{
	size_t i;

	for (i = 0; i < r->npieces; i++)
		free(r->pieces[i].text);
	free(r->pieces);
	free(r->body);
	memset(r, 0, sizeof (*r));
}

/* ---- the URI ---- */

/*
 * Decodes len bytes of a query component (%XX escapes, '+' for a space)
 * into a new string.  Returns NULL for a bad escape or a NUL.
 */
static char *
decode(const char *s, size_t len, size_t *out_len)
{
	char *d = xmalloc(len + 1);
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= len)
				goto bad;
			hi = json_hex_digit((unsigned char)s[i + 1]);
			lo = json_hex_digit((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				goto bad;
			c = hi << 4 | lo;
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (c == '\0')
			goto bad;
		d[n++] = (char)c;
	}
	d[n] = '\0';
	*out_len = n;
	return (d);
bad:
	free(d);
	return (NULL);
}

static void
query_free(query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++) {
		free(q->p[i].name);
		free(q->p[i].value);
	}
	q->n = 0;
}

static const param *
query_get(const query *q, const char *name)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (strcmp(q->p[i].name, name) == 0)
			return (&q->p[i]);
	return (NULL);
}

/*
 * Splits uri into its path (*path, *path_len, pointing into uri) and its
 * query.  Returns NULL, or why the URI is malformed.
 */
static const char *
parse_uri(const char *uri, const char **path, size_t *path_len, query *q)
{
	size_t len = strlen(uri), i;
	const char *mark, *at;

	memset(q, 0, sizeof (*q));
	if (len > REQUEST_MAX_URI)
		return ("the URI is too long");
	if (uri[0] != '/')
		return ("the URI is not a path");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)uri[i];

		if (c <= ' ' || c >= 0x7f || c == '#')
			return ("the URI holds a character it may not");
	}
	mark = strchr(uri, '?');
	*path = uri;
	*path_len = mark != NULL ? (size_t)(mark - uri) : len;
	if (mark == NULL)
		return (NULL);
	for (at = mark + 1; *at != '\0';) {
		const char *end = strchr(at, '&'), *eq;
		size_t plen, name_len, value_len;
		param *p;

		plen = end != NULL ? (size_t)(end - at) : strlen(at);
		eq = memchr(at, '=', plen);
		if (q->n == REQUEST_MAX_PARAMS) {
			query_free(q);
			return ("too many parameters");
		}
		p = &q->p[q->n];
		name_len = eq != NULL ? (size_t)(eq - at) : plen;
		p->name = decode(at, name_len, &name_len);
		p->value = eq != NULL ? decode(eq + 1, plen - (size_t)(eq -
		    at) - 1, &value_len) : decode("", 0, &value_len);
		p->value_len = value_len;
		q->n++;
		if (p->name == NULL || p->value == NULL) {
			query_free(q);
			return ("a parameter has a bad %-escape or a NUL");
		}
		if (p->name[0] == '\0') {
			query_free(q);
			return ("a parameter has no name");
		}
		if (query_get(q, p->name) != p) {
			query_free(q);
			return ("a parameter is given twice");
		}
		if (end == NULL)
			break;
		at = end + 1;
		if (*at == '\0') {
			query_free(q);
			return ("the query ends with '&'");
		}
	}
	return (NULL);
}

/* ---- the checks ---- */

static int
host_ok(const request_site *site, const char *host)
{
	size_t i;

	if (host == NULL)
		return (0);
	for (i = 0; i < site->nhosts; i++)
		if (strcasecmp(host, site->hosts[i]) == 0)
			return (1);
	return (0);
}

/* In time independent of where the two differ (their lengths are public). */
static int
token_ok(const request_site *site, const param *given)
{
	size_t len = strlen(site->token), i;
	volatile unsigned char diff = 0;

	if (given == NULL || given->value_len != len)
		return (0);
	for (i = 0; i < len; i++)
		diff |= (unsigned char)(given->value[i] ^ site->token[i]);
	return (diff == 0);
}

static int
path_is(const char *path, size_t len, const char *route)
{
	return (strlen(route) == len && memcmp(path, route, len) == 0);
}

/* Every parameter is one the route takes (token, and those in names). */
static int
only(const query *q, const char *const *names, request_reply *r)
{
	size_t i, k;

	for (i = 0; i < q->n; i++) {
		int known = strcmp(q->p[i].name, "token") == 0;

		for (k = 0; names != NULL && names[k] != NULL; k++)
			known |= strcmp(q->p[i].name, names[k]) == 0;
		if (!known) {
			error_reply(r, 400, "unknown parameter \"%.40s\"",
			    q->p[i].name);
			return (0);
		}
	}
	return (1);
}

/* A decimal number of digits only, from min to max. */
static int
number(const query *q, const char *name, int required, uint64_t min,
    uint64_t max, uint64_t *out, request_reply *r)
{
	const param *p = query_get(q, name);
	uint64_t v = 0;
	size_t i;

	if (p == NULL) {
		if (required)
			error_reply(r, 400, "missing parameter %s", name);
		return (!required);
	}
	if (p->value_len == 0 || p->value_len > 19)
		goto bad;
	for (i = 0; i < p->value_len; i++) {
		if (p->value[i] < '0' || p->value[i] > '9')
			goto bad;
		v = v * 10 + (uint64_t)(p->value[i] - '0');
	}
	if (v < min || v > max)
		goto bad;
	*out = v;
	return (1);
bad:
	error_reply(r, 400, "%s must be a whole number from %" PRIu64 " to %"
	    PRIu64, name, min, max);
	return (0);
}

/*
 * Why a pattern is refused before it is compiled, or NULL: too long, a
 * back-reference (matching with those can take exponential time), more
 * than one bounded repetition or one over the limit (each copies the
 * pattern before it).
 */
static const char *
pattern_risk(const char *s, size_t len)
{
	size_t i, braces = 0;

	if (len > REQUEST_MAX_REGEX)
		return ("is too long");
	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len && s[i + 1] >= '1' &&
		    s[i + 1] <= '9')
			return ("has a back-reference");
		if (s[i] == '\\' && i + 1 < len) {
			i++;
			continue;
		}
		if (s[i] == '{') {
			unsigned long n = 0;
			size_t j = i + 1;

			if (++braces > 1)
				return ("has more than one {m,n}");
			for (; j < len && (s[j] == ',' || (s[j] >= '0' &&
			    s[j] <= '9')); j++) {
				if (s[j] == ',') {
					n = 0;
					continue;
				}
				n = n * 10 + (unsigned long)(s[j] - '0');
				if (n > REQUEST_MAX_REPEAT)
					return ("repeats more than the limit");
			}
		}
	}
	return (NULL);
}

/* ---- the routes ---- */

static void
statemap_answer(const served *content, uint64_t generation, const query *q,
    request_reply *r)
{
	static const char *const names[] = { "begin", "end", "width",
	    "coalesce", "entities", NULL };
	uint64_t begin = 0, end = 0, width = 0, budget = content->budget;
	const param *pat;
	viewport_query vq;
	viewport *v;
	regex_t re;
	char members[512];
	size_t i;
	int have_re = 0;

	if (!only(q, names, r) ||
	    !number(q, "begin", 1, 0, INT64_MAX, &begin, r) ||
	    !number(q, "end", 1, 1, INT64_MAX, &end, r) ||
	    !number(q, "width", 1, 1, REQUEST_MAX_WIDTH, &width, r) ||
	    !number(q, "coalesce", 0, 1, REQUEST_MAX_BUDGET, &budget, r))
		return;
	if (begin >= end) {
		error_reply(r, 400, "begin must be before end");
		return;
	}
	if ((pat = query_get(q, "entities")) != NULL) {
		const char *why = pattern_risk(pat->value, pat->value_len);
		int rc;

		if (why != NULL) {
			error_reply(r, 400, "entities %s", why);
			return;
		}
		if ((rc = regcomp(&re, pat->value, REG_EXTENDED | REG_NOSUB))
		    != 0) {
			char msg[128];

			regerror(rc, &re, msg, sizeof (msg));
			error_reply(r, 400, "entities is not a regular "
			    "expression: %s", msg);
			return;
		}
		have_re = 1;
	}
	vq.begin = begin;
	vq.end = end;
	vq.width = (unsigned)width;
	vq.budget = budget;
	vq.entities = have_re ? &re : NULL;
	v = viewport_compute(content->panels, content->n, &vq);
	snprintf(members, sizeof (members), "\"live\": {\"generation\": %"
	    PRIu64 ", \"begin\": %" PRIu64 ", \"end\": %" PRIu64 ", "
	    "\"width\": %u, \"coalesce\": %" PRIu64 ", \"transitions\": %"
	    PRIu64 ", \"rects\": %" PRIu64 ", \"exact\": %s}", generation,
	    begin, end, vq.width, budget, viewport_transitions(v),
	    viewport_rects(v), viewport_exact(v) ? "true" : "false");
	memset(r, 0, sizeof (*r));
	r->kind = REQUEST_ANSWER;
	r->status = 200;
	r->type = JSON_TYPE;
	r->npieces = viewport_json_pieces(v, members, &r->pieces);
	for (i = 0; i < r->npieces; i++)
		r->len += r->pieces[i].len;
	viewport_free(v);
	if (have_re)
		regfree(&re);
}

void
request_answer(const request_site *site, const served *content,
    uint64_t generation, const char *method, const char *uri,
    const char *host, request_reply *r)
{
	const char *path, *why, *asset, *type;
	size_t path_len, len;
	query q;

	memset(r, 0, sizeof (*r));
	if (!host_ok(site, host)) {
		error_reply(r, 403, "the Host header does not name this "
		    "server");
		return;
	}
	if ((why = parse_uri(uri, &path, &path_len, &q)) != NULL) {
		error_reply(r, 400, "%s", why);
		return;
	}
	if (!token_ok(site, query_get(&q, "token"))) {
		error_reply(r, 403, "a token=TOKEN parameter with the token "
		    "the server printed is needed");
	} else if (strcmp(method, "GET") != 0) {
		error_reply(r, 405, "only GET is answered");
		r->allow = "GET";
	} else if (path_is(path, path_len, "/api/statemap")) {
		statemap_answer(content, generation, &q, r);
	} else if (path_is(path, path_len, "/")) {
		if (only(&q, NULL, r)) {
			r->kind = REQUEST_PAGE;
			r->status = 200;
			r->type = "text/html; charset=utf-8";
			r->body = page_html(content, site->token, generation,
			    &r->len);
		}
	} else if (path_is(path, path_len, "/api/events")) {
		if (only(&q, NULL, r)) {
			r->kind = REQUEST_EVENTS;
			r->status = 200;
			r->type = "text/event-stream; charset=utf-8";
		}
	} else if (path_len < 64 && memchr(path, '\0', path_len) == NULL) {
		char name[64];

		memcpy(name, path, path_len);
		name[path_len] = '\0';
		if ((asset = page_asset(name, &len, &type)) == NULL) {
			error_reply(r, 404, "no such page");
		} else if (only(&q, NULL, r)) {
			r->kind = REQUEST_ASSET;
			r->status = 200;
			r->type = type;
			r->static_body = asset;
			r->len = len;
		}
	} else {
		error_reply(r, 404, "no such page");
	}
	query_free(&q);
}
