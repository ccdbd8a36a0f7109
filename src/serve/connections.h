/*
 * connections.h: the live server's connections, as far as slow clients
 * go: which to close to make room for a new one, and the bound on the
 * time a request may take to arrive.  server.c tells it of each
 * connection libmicrohttpd opens and closes, of each request that is in
 * whole (to be answered) and of each answer sent (the connection then
 * waits for its next request).
 *
 * A connection waits for a request from when it opens, and again from the
 * end of each answer, until the whole request is in (its headers, and a
 * body if it sends one).  The rules:
 *
 *   - a connection that has waited request_ns is closed, however it
 *     trickles its bytes in (the idle timeout only ends silence), by a
 *     thread of this module's own;
 *   - a new connection from an address that then holds more than
 *     per_address closes the one from that address that has waited
 *     longest: the new one itself if all the others are being answered;
 *   - a new connection that fills the server (max connections) closes
 *     the one that has waited longest among the others, so that there is
 *     room for the next: connections held open, from any number of
 *     addresses, never keep out a request that arrives whole.
 *
 * So the token holder's page (its requests arrive whole as soon as they
 * connect) is answered however many slow clients there are; a connection
 * being answered is never closed here.  What no rule stops is a client
 * that opens new connections as fast as it can: those take turns with
 * everyone's.  Closing a connection is shutdown(2) of its socket, which
 * ends its thread's wait in libmicrohttpd as if the client had left (as
 * libmicrohttpd's own stop does); libmicrohttpd closes the socket only
 * after connections_closed, so the descriptor is still the connection's.
 *
 * Every function may be called from any thread.
 */
#ifndef SM_CONNECTIONS_H
#define SM_CONNECTIONS_H

#include <stdint.h>
#include <sys/socket.h>

#include "base/error.h"

typedef struct connections connections;
typedef struct connection connection;

/*
 * Starts keeping the rules (its thread inherits the caller's signal
 * mask).  Returns NULL with err filled if the thread cannot start.
 */
connections *connections_new(unsigned max, unsigned per_address,
    uint64_t request_ns, sm_error *err);

/*
 * A new connection on socket fd from addr (NULL: unknown, one address of
 * its own), waiting for its first request.  May close others, or it.
 */
connection *connections_open(connections *t, int fd,
    const struct sockaddr *addr);

/* Its request is in whole.  Returns 0 if it is being closed already. */
int connections_answer(connections *t, connection *c);

/* Its answer is sent: it waits for the next request. */
void connections_wait(connections *t, connection *c);

/* libmicrohttpd is done with it (its socket is still open); frees c. */
void connections_closed(connections *t, connection *c);

/* Stops the thread and frees t, once every connection is closed. */
void connections_free(connections *t);

#endif
