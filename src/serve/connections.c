#include "serve/connections.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

struct connection {
	connection *prev, *next;
	int fd;
	int family;		/* AF_INET, AF_INET6, or 0: unknown */
	unsigned char ip[16];	/* the client's address (4 bytes for IPv4) */
	int waiting;		/* for a whole request */
	int closing;		/* shut down here, not yet closed */
	uint64_t since;		/* when its wait began (CLOCK_MONOTONIC ns) */
	uint64_t order;		/* waits are numbered as they begin */
};

struct connections {
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* a wait began, or stopping */
	pthread_t reaper;
	connection *head;	/* every connection not yet closed */
	unsigned max, per_address;
	uint64_t request_ns;
	uint64_t next_order;
	int stopping;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/* Under the lock, as everything below. */
static void
begin_wait(connections *t, connection *c)
{
	c->waiting = 1;
	c->since = now_ns();
	c->order = t->next_order++;
	pthread_cond_signal(&t->wake);
}

static void
close_one(connection *c)
{
	c->closing = 1;
	(void) shutdown(c->fd, SHUT_RDWR);
}

static int
same_address(const connection *a, const connection *b)
{
	size_t len = a->family == AF_INET ? 4 : a->family == AF_INET6 ? 16 :
	    0;

	if (a->family == 0 || b->family == 0)
		return (a == b);	/* an unknown address is its own */
	return (a->family == b->family && memcmp(a->ip, b->ip, len) == 0);
}

/* Connections not being closed: all, or those from like's address. */
static unsigned
open_count(const connections *t, const connection *like)
{
	const connection *c;
	unsigned n = 0;

	for (c = t->head; c != NULL; c = c->next)
		if (!c->closing && (like == NULL || same_address(c, like)))
			n++;
	return (n);
}

/*
 * The connection that has waited longest (from like's address, unless
 * like is NULL), other than but; NULL if none is waiting.
 */
static connection *
longest_waiting(const connections *t, const connection *like,
    const connection *but)
{
	connection *c, *best = NULL;

	for (c = t->head; c != NULL; c = c->next)
		if (c->waiting && !c->closing && c != but &&
		    (like == NULL || same_address(c, like)) &&
		    (best == NULL || c->order < best->order))
			best = c;
	return (best);
}

/* The reaper: closes each connection whose wait passes the bound. */
static void *
reap(void *arg)
{
	connections *t = arg;

	pthread_mutex_lock(&t->lock);
	while (!t->stopping) {
		uint64_t now = now_ns(), first = UINT64_MAX;
		connection *c;

		for (c = t->head; c != NULL; c = c->next) {
			if (!c->waiting || c->closing)
				continue;
			if (c->since + t->request_ns <= now)
				close_one(c);
			else if (c->since + t->request_ns < first)
				first = c->since + t->request_ns;
		}
		if (first == UINT64_MAX) {
			pthread_cond_wait(&t->wake, &t->lock);
		} else {
			struct timespec until;

			until.tv_sec = (time_t)(first / 1000000000u);
			until.tv_nsec = (long)(first % 1000000000u);
			(void) pthread_cond_timedwait(&t->wake, &t->lock,
			    &until);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return (NULL);
}

connections *
connections_new(unsigned max, unsigned per_address, uint64_t request_ns,
    sm_error *err)
{
	connections *t = xcalloc(1, sizeof (*t));
	pthread_condattr_t ca;
	int e;

	t->max = max;
	t->per_address = per_address;
	t->request_ns = request_ns;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	if ((e = pthread_create(&t->reaper, NULL, reap, t)) != 0) {
		error_set(err, "cannot start the HTTP server's thread: %s",
		    strerror(e));
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->wake);
		free(t);
		return (NULL);
	}
	return (t);
}

connection *
connections_open(connections *t, int fd, const struct sockaddr *addr)
{
	connection *c = xcalloc(1, sizeof (*c)), *victim;

	c->fd = fd;
	if (addr != NULL && addr->sa_family == AF_INET) {
		const struct sockaddr_in *in4 = (const void *)addr;

		c->family = AF_INET;
		memcpy(c->ip, &in4->sin_addr, 4);
	} else if (addr != NULL && addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)addr;

		c->family = AF_INET6;
		memcpy(c->ip, &in6->sin6_addr, 16);
	}
	pthread_mutex_lock(&t->lock);
	c->next = t->head;
	if (t->head != NULL)
		t->head->prev = c;
	t->head = c;
	begin_wait(t, c);
	/*
	 * Its address's oldest waiting connection makes room, or it is
	 * refused (closed at once) when that address's others are all being
	 * answered: one address never holds more than per_address.
	 */
	if (open_count(t, c) > t->per_address &&
	    (victim = longest_waiting(t, c, NULL)) != NULL)
		close_one(victim);
	/* One slot is kept free, for whoever comes next. */
	if (!c->closing && open_count(t, NULL) >= t->max &&
	    (victim = longest_waiting(t, NULL, c)) != NULL)
		close_one(victim);
	pthread_mutex_unlock(&t->lock);
	return (c);
}

int
connections_answer(connections *t, connection *c)
{
	int ok;

	pthread_mutex_lock(&t->lock);
	ok = !c->closing;
	c->waiting = 0;
	pthread_mutex_unlock(&t->lock);
	return (ok);
}

void
connections_wait(connections *t, connection *c)
{
	pthread_mutex_lock(&t->lock);
	if (!c->closing)
		begin_wait(t, c);
	pthread_mutex_unlock(&t->lock);
}

void
connections_closed(connections *t, connection *c)
{
	pthread_mutex_lock(&t->lock);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		t->head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&t->lock);
	free(c);
}

void
connections_free(connections *t)
{
	if (t == NULL)
		return;
	pthread_mutex_lock(&t->lock);
	t->stopping = 1;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->reaper, NULL);
	while (t->head != NULL)
		connections_closed(t, t->head);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->wake);
	free(t);
}
