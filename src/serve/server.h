/*
 * server.h: the live server: statemaps over HTTP, answered on threads of
 * their own (libmicrohttpd, a thread per connection) until stopped.
 *
 * What is answered is request.h's business; this is the transport.  The
 * server listens on one address (127.0.0.1 unless told otherwise; never
 * every address, as the Host check needs the one the clients use), makes
 * a token of 128 random bits (getrandom) that every request must carry,
 * and accepts as Host only ADDR:PORT (or localhost:PORT on a loopback
 * address).  It holds a reference to what it serves; replacing it bumps
 * the generation, which every open event stream (/api/events) is told.
 *
 * Its threads never run Lua and block every signal, so signals reach the
 * thread that started the server (a Ctrl-C at the REPL's prompt, the
 * sigwait of --serve).  At most SERVE_MAX_CONNECTIONS connections at a
 * time, at most SERVE_PER_ADDRESS of them from one client address; a
 * request must be in whole within SERVE_REQUEST_TIME seconds of its
 * connection's opening (or of its previous answer), however slowly it
 * trickles; and a new connection never finds the server full of
 * connections still waiting for their requests, as the longest waiting
 * makes room (connections.h has the rules).  So slow clients cannot keep
 * a request that arrives whole, as the token holder's page sends them,
 * from being answered.  A connection being answered is closed after
 * SERVE_IDLE seconds of silence; an event stream sends a comment every
 * SERVE_KEEPALIVE seconds, so that a client that went away is noticed.
 */
#ifndef SM_SERVER_H
#define SM_SERVER_H

#include <stdint.h>

#include "base/error.h"
#include "serve/served_traces.h"

#define SERVE_MAX_CONNECTIONS	64
#define SERVE_PER_ADDRESS	32	/* half: others always have room */
#define SERVE_REQUEST_TIME	10	/* seconds to send a whole request */
#define SERVE_IDLE		20	/* seconds a connection may idle */
#define SERVE_KEEPALIVE		15	/* less than SERVE_IDLE */

typedef struct serve_options {
	const char *bind;	/* an IPv4 or IPv6 address; NULL: 127.0.0.1 */
	unsigned port;		/* 0: a free one */
} serve_options;

typedef struct server server;

/*
 * Starts serving content (the server takes a reference of its own).
 * Returns NULL with err filled if the address is not one or cannot be
 * listened on.
 */
server *serve_start(const serve_options *o, served *content, sm_error *err);

/* http://ADDR:PORT/?token=TOKEN, valid until serve_stop. */
const char *serve_url(const server *s);

/* Whether o names the address and port s listens on (port 0: any). */
int serve_same_place(const server *s, const serve_options *o);

/* Serves content instead (a reference of its own); open pages hear. */
void serve_replace(server *s, served *content);

uint64_t serve_generation(server *s);

/* Ends every stream and connection, waits for the threads, frees s. */
void serve_stop(server *s);

#endif
