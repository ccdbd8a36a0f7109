/*
 * request.h: one request to the live server, answered without touching
 * the network: every check a request must pass, the routes, their
 * parameters and the reply.  server.c hands it what libmicrohttpd read
 * off the socket; tests/fuzz/fuzz_serve.c hands it anything.
 *
 * The checks, in order; the first that fails is the answer:
 *
 *   403  the Host header is not exactly one of the site's names (a page
 *        of another site that reaches us through DNS rebinding names its
 *        own host); a request without one, or with two, names none
 *   400  the URI is not a path and a query of name=value pairs: a bad
 *        %-escape, a NUL, a name given twice or empty, a fragment, more
 *        than REQUEST_MAX_URI bytes or REQUEST_MAX_PARAMS pairs
 *   403  token=TOKEN is missing or wrong (compared in constant time)
 *   405  the method is not GET
 *   404  the path is not a route (paths are compared as sent, so no
 *        escape or dot segment reaches anything but a route)
 *   400  a parameter the route does not take, or a bad value
 *
 * Errors are one line of JSON: {"error": "..."}.  The routes:
 *
 *   /                     the page (page.h)
 *   /viewer.js, /viewer.css, /live.js
 *                         its assets
 *   /api/statemap         begin=NS&end=NS&width=PX, optionally
 *                         coalesce=N and entities=REGEX: the window's
 *                         answer (viewport.h) as the -T json document
 *                         with "n" in each rectangle and a "live" member
 *   /api/events           server-sent events, one "generation" event
 *                         whenever what is served changes (server.c)
 *
 * Values: begin and end are ns since the first trace's metadata start,
 * digits only (up to 2^63 - 1), begin < end; width 1 to
 * REQUEST_MAX_WIDTH; coalesce 1 to REQUEST_MAX_BUDGET (default: the
 * served budget); entities a POSIX extended regular expression of at
 * most REQUEST_MAX_REGEX bytes, without back-references and with at most
 * one {m,n} repetition of at most REQUEST_MAX_REPEAT (so that no pattern
 * is slow to compile or match).  '+' in a value is a space, as browsers
 * encode forms.
 */
#ifndef SM_REQUEST_H
#define SM_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "output/viewport.h"
#include "serve/served_traces.h"

#define REQUEST_MAX_URI		8192
#define REQUEST_MAX_PARAMS	16
#define REQUEST_MAX_WIDTH	16384
#define REQUEST_MAX_BUDGET	1000000
#define REQUEST_MAX_REGEX	256
#define REQUEST_MAX_REPEAT	100

/* Who the server is: what a request must name and hold. */
typedef struct request_site {
	const char *token;		/* hex */
	const char *const *hosts;	/* Host values accepted (any case) */
	size_t nhosts;
} request_site;

typedef enum request_kind {
	REQUEST_ERROR,		/* status 400, 403, 404 or 405 */
	REQUEST_PAGE,		/* the HTML page: send PAGE_POLICY with it */
	REQUEST_ASSET,
	REQUEST_ANSWER,		/* JSON */
	REQUEST_EVENTS		/* start an event stream (no body) */
} request_kind;

typedef struct request_reply {
	request_kind kind;
	int status;
	const char *type;	/* Content-Type */
	char *body;		/* malloc'd, or NULL: */
	const char *static_body; /* the body, or NULL: */
	viewport_piece *pieces;	/* an answer, to send piece by piece */
	size_t npieces;
	size_t len;		/* of the whole body */
	const char *allow;	/* for a 405: the Allow header */
} request_reply;

/*
 * Answers a request: method and uri as sent (the request line's target,
 * query included), host the Host header or NULL (none, or several).
 * content and generation are what is served at the moment.
 */
void request_answer(const request_site *site, const served *content,
    uint64_t generation, const char *method, const char *uri,
    const char *host, request_reply *out);

/* The whole body of the reply (pieces are joined into body first). */
const char *request_body(request_reply *r);

void request_reply_free(request_reply *r);

#endif
