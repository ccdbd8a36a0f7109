#include "serve/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/duration.h"
#include "base/threads.h"
#include "base/util.h"
#include "serve/connections.h"
#include "serve/page.h"
#include "serve/request.h"

#define TOKEN_BYTES	16

struct server {
	struct MHD_Daemon *daemon;
	connections *conns;	/* the slow clients' rules */
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* the generation moved, or stopping */
	served *content;	/* under lock */
	uint64_t generation;	/* under lock */
	int stopping;		/* under lock */
	char token[2 * TOKEN_BYTES + 1];
	char host[80], localhost[80];
	const char *hosts[2];
	request_site site;
	char address[INET6_ADDRSTRLEN];
	unsigned port;
	char url[200];
};

/* What one request carries from the URI callback to its completion. */
typedef struct exchange {
	char *uri;		/* as sent: path and query */
	int seen;		/* the headers were (the first call) */
} exchange;

/* An answer on its way out, piece by piece (each freed once sent). */
typedef struct outgoing {
	viewport_piece *pieces;
	size_t n, next, off;
} outgoing;

/* An event stream's state. */
typedef struct stream {
	server *s;
	uint64_t sent;		/* the generation it last told */
	char buf[160];
	size_t len, off;	/* what is left of buf to send */
} stream;

/* ---- the token and the address ---- */

static int
make_token(char *out, sm_error *err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[TOKEN_BYTES];
	size_t got = 0, i;

	while (got < sizeof (raw)) {
		ssize_t n = getrandom(raw + got, sizeof (raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error_set(err, "cannot make a token: getrandom: %s",
			    strerror(errno));
			return (-1);
		}
		got += (size_t)n;
	}
	for (i = 0; i < sizeof (raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[2 * sizeof (raw)] = '\0';
	return (0);
}

/*
 * A socket listening on the address and port (0: any), its address as
 * inet_ntop writes it in s->address and its port in s->port.  Returns
 * the socket or -1 with err filled.
 */
static int
listen_on(server *s, const serve_options *o, int *v6, sm_error *err)
{
	const char *text = o->bind != NULL ? o->bind : "127.0.0.1";
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)(void *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)&ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof (ss));
	*v6 = 0;
	if (inet_pton(AF_INET, text, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)o->port);
		len = sizeof (*in4);
		if (in4->sin_addr.s_addr == htonl(INADDR_ANY))
			goto wildcard;
	} else if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)o->port);
		len = sizeof (*in6);
		*v6 = 1;
		if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
			goto wildcard;
	} else {
		error_set(err, "cannot serve on \"%.100s\": --bind takes an "
		    "IP address, such as 127.0.0.1 or ::1", text);
		return (-1);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		error_set(err, "cannot make a socket: %s", strerror(errno));
		return (-1);
	}
	(void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
	if (*v6)
		(void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
		    sizeof (one));
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(fd, SOMAXCONN) != 0) {
		error_set(err, "cannot listen on %s port %u: %s", text,
		    o->port, strerror(errno));
		close(fd);
		return (-1);
	}
	len = sizeof (ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		error_set(err, "cannot read the port: %s", strerror(errno));
		close(fd);
		return (-1);
	}
	if (*v6) {
		inet_ntop(AF_INET6, &in6->sin6_addr, s->address,
		    sizeof (s->address));
		s->port = ntohs(in6->sin6_port);
	} else {
		inet_ntop(AF_INET, &in4->sin_addr, s->address,
		    sizeof (s->address));
		s->port = ntohs(in4->sin_port);
	}
	return (fd);
wildcard:
	error_set(err, "cannot serve on every address (%s): the Host check "
	    "needs the one address clients use; give it with --bind", text);
	return (-1);
}

/* ---- requests ---- */

static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	exchange *x = xcalloc(1, sizeof (*x));

	(void) cls;
	(void) c;
	x->uri = xstrndup(uri, strlen(uri));
	return (x);
}

/* The connections.h record of libmicrohttpd's connection c. */
static connection *
record_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return (info != NULL ? info->socket_context : NULL);
}

/*
 * Each connection libmicrohttpd opens and closes, told to connections.h
 * (which may close others to make room for it).  Connections beyond
 * SERVE_MAX_CONNECTIONS wait in the kernel's queue, not refused.
 */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	server *s = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		fd = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		addr = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		*socket_context = connections_open(s->conns, fd->connect_fd,
		    addr != NULL ? addr->client_addr : NULL);
	} else if (*socket_context != NULL) {
		connections_closed(s->conns, *socket_context);
		*socket_context = NULL;
	}
}

static void
on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
    enum MHD_RequestTerminationCode why)
{
	server *s = cls;
	exchange *x = *req_cls;
	connection *conn;

	if (x != NULL) {
		free(x->uri);
		free(x);
		*req_cls = NULL;
	}
	/*
	 * An answer sent: the connection is kept for another request, whose
	 * time starts now.  (Any other end closes the connection.)
	 */
	if (why == MHD_REQUEST_TERMINATED_COMPLETED_OK &&
	    (conn = record_of(c)) != NULL)
		connections_wait(s->conns, conn);
}

typedef struct host_count {
	const char *value;
	int n;
} host_count;

static enum MHD_Result
count_host(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	host_count *h = cls;

	(void) kind;
	if (key != NULL && strcasecmp(key, "Host") == 0) {
		h->value = value;
		h->n++;
	}
	return (MHD_YES);
}

/* Waits for something to tell: a generation, a keepalive, the end. */
static ssize_t
read_events(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream *st = cls;
	server *s = st->s;
	size_t n;

	(void) pos;
	if (st->off == st->len) {
		struct timespec until;
		int timed_out = 0;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += SERVE_KEEPALIVE;
		pthread_mutex_lock(&s->lock);
		while (!s->stopping && st->sent == s->generation &&
		    !timed_out)
			timed_out = pthread_cond_timedwait(&s->changed,
			    &s->lock, &until) == ETIMEDOUT;
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			return (MHD_CONTENT_READER_END_OF_STREAM);
		}
		if (st->sent != s->generation) {
			st->len = (size_t)snprintf(st->buf, sizeof (st->buf),
			    "%sevent: generation\ndata: {\"generation\": %"
			    PRIu64 "}\n\n", st->sent == 0 ? "retry: 2000\n" :
			    "", s->generation);
			st->sent = s->generation;
		} else {
			st->len = (size_t)snprintf(st->buf, sizeof (st->buf),
			    ": keepalive\n\n");
		}
		st->off = 0;
		pthread_mutex_unlock(&s->lock);
	}
	n = st->len - st->off < max ? st->len - st->off : max;
	memcpy(buf, st->buf + st->off, n);
	st->off += n;
	return ((ssize_t)n);
}

static ssize_t
read_pieces(void *cls, uint64_t pos, char *buf, size_t max)
{
	outgoing *o = cls;
	size_t n = 0;

	(void) pos;
	while (n < max && o->next < o->n) {
		viewport_piece *p = &o->pieces[o->next];
		size_t take = p->len - o->off < max - n ? p->len - o->off :
		    max - n;

		memcpy(buf + n, p->text + o->off, take);
		n += take;
		o->off += take;
		if (o->off == p->len) {
			free(p->text);
			p->text = NULL;
			o->next++;
			o->off = 0;
		}
	}
	return (n > 0 ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM);
}

static void
free_pieces(void *cls)
{
	outgoing *o = cls;
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->pieces[i].text);
	free(o->pieces);
	free(o);
}

static struct MHD_Response *
make_response(server *s, request_reply *r)
{
	struct MHD_Response *resp;

	if (r->kind == REQUEST_EVENTS) {
		stream *st = xcalloc(1, sizeof (*st));

		st->s = s;
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
		    sizeof (st->buf), read_events, st, free);
	} else if (r->pieces != NULL) {
		outgoing *o = xcalloc(1, sizeof (*o));

		o->pieces = r->pieces;
		o->n = r->npieces;
		resp = MHD_create_response_from_callback(r->len, 64 * 1024,
		    read_pieces, o, free_pieces);
		if (resp == NULL) {
			free(o);
			return (NULL);
		}
		r->pieces = NULL;	/* the response has them */
		r->npieces = 0;
	} else if (r->body != NULL) {
		resp = MHD_create_response_from_buffer(r->len, r->body,
		    MHD_RESPMEM_MUST_FREE);
		if (resp != NULL)
			r->body = NULL;		/* MHD frees it */
	} else {
		resp = MHD_create_response_from_buffer(r->len,
		    (void *)(uintptr_t)r->static_body, MHD_RESPMEM_PERSISTENT);
	}
	if (resp == NULL)
		return (NULL);
	MHD_add_response_header(resp, "Content-Type", r->type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Cross-Origin-Resource-Policy",
	    "same-origin");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Content-Security-Policy",
	    r->kind == REQUEST_PAGE ? PAGE_POLICY :
	    "default-src 'none'; frame-ancestors 'none'");
	if (r->allow != NULL)
		MHD_add_response_header(resp, "Allow", r->allow);
	return (resp);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **req_cls)
{
	server *s = cls;
	exchange *x = *req_cls;
	host_count host = { NULL, 0 };
	request_reply reply;
	struct MHD_Response *resp;
	connection *conn;
	served *content;
	uint64_t generation;
	enum MHD_Result rv;
	unsigned status;

	(void) url;
	(void) version;
	(void) upload;
	if (x == NULL)
		return (MHD_NO);
	/*
	 * Answered once the whole request is in (a body nobody asked for is
	 * dropped): an answer queued earlier would close the connection.
	 */
	if (!x->seen || *upload_size != 0) {
		x->seen = 1;
		*upload_size = 0;
		return (MHD_YES);
	}
	/*
	 * The request is in: from now on it is being answered, which no
	 * bound on a request's time and no newcomer ends.
	 */
	if ((conn = record_of(c)) != NULL &&
	    !connections_answer(s->conns, conn))
		return (MHD_NO);
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &host);
	pthread_mutex_lock(&s->lock);
	content = served_retain(s->content);
	generation = s->generation;
	pthread_mutex_unlock(&s->lock);
	request_answer(&s->site, content, generation, method, x->uri,
	    host.n == 1 ? host.value : NULL, &reply);
	served_release(content);
	resp = make_response(s, &reply);
	status = (unsigned)reply.status;
	request_reply_free(&reply);
	if (resp == NULL)
		return (MHD_NO);
	rv = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return (rv);
}

/* ---- the server ---- */

/*
 * How long a request may take to arrive: SERVE_REQUEST_TIME seconds, or
 * $STATEMAP_SERVE_REQUEST_TIME (for tests, which would not wait that
 * long: a TIME such as 300ms, up to a day).
 */
static uint64_t
request_time(void)
{
	const char *text = getenv("STATEMAP_SERVE_REQUEST_TIME");
	int64_t ns;

	if (text == NULL || text[0] == '\0')
		return ((uint64_t)SERVE_REQUEST_TIME * 1000000000u);
	if (!duration_parse(text, &ns, NULL) || ns <= 0 ||
	    ns > (int64_t)86400 * 1000000000) {
		fprintf(stderr, "statemap-lua: STATEMAP_SERVE_REQUEST_TIME="
		    "\"%.40s\" is not a time up to a day (such as 300ms): "
		    "ignored\n", text);
		return ((uint64_t)SERVE_REQUEST_TIME * 1000000000u);
	}
	return ((uint64_t)ns);
}

server *
serve_start(const serve_options *o, served *content, sm_error *err)
{
	server *s = xcalloc(1, sizeof (*s));
	pthread_condattr_t ca;
	sigset_t all, old;
	int fd, v6, loopback;

	if (make_token(s->token, err) != 0 ||
	    (fd = listen_on(s, o, &v6, err)) < 0) {
		free(s);
		return (NULL);
	}
	loopback = strcmp(s->address, "127.0.0.1") == 0 ||
	    strcmp(s->address, "::1") == 0;
	snprintf(s->host, sizeof (s->host), v6 ? "[%s]:%u" : "%s:%u",
	    s->address, s->port);
	snprintf(s->localhost, sizeof (s->localhost), "localhost:%u",
	    s->port);
	snprintf(s->url, sizeof (s->url), "http://%s/?token=%s", s->host,
	    s->token);
	s->hosts[0] = s->host;
	s->hosts[1] = s->localhost;
	s->site.token = s->token;
	s->site.hosts = s->hosts;
	s->site.nhosts = loopback ? 2 : 1;
	s->content = served_retain(content);
	s->generation = 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->changed, &ca);
	pthread_condattr_destroy(&ca);
	(void) threads_count();	/* read once, before any thread asks */
	/*
	 * An answer's buffers are megabytes, made and freed by threads that
	 * come and go: from a fixed threshold on they are mapped and given
	 * back when freed, rather than kept in each thread's malloc arena
	 * (glibc raises the threshold to the largest block freed, and what
	 * the arenas keep would grow with the connections).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	/* The server's threads (and theirs) inherit a mask of every signal. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->conns = connections_new(SERVE_MAX_CONNECTIONS, SERVE_PER_ADDRESS,
	    request_time(), err);
	if (s->conns != NULL)
		s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
		    MHD_USE_THREAD_PER_CONNECTION | (v6 ? MHD_USE_IPv6 : 0), 0,
		    NULL, NULL, on_request, s,
		    MHD_OPTION_LISTEN_SOCKET, fd,
		    MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
		    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		    MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		    MHD_OPTION_CONNECTION_LIMIT,
		    (unsigned)SERVE_MAX_CONNECTIONS,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE,
		    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536,
		    MHD_OPTION_STRICT_FOR_CLIENT, 1,
		    MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (s->daemon == NULL) {
		if (s->conns != NULL)
			error_set(err, "cannot start the HTTP server on %s",
			    s->host);
		connections_free(s->conns);
		close(fd);
		served_release(s->content);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->changed);
		free(s);
		return (NULL);
	}
	return (s);
}

const char *
serve_url(const server *s)
{
	return (s->url);
}

int
serve_same_place(const server *s, const serve_options *o)
{
	char probe[sizeof (struct in6_addr)], mine[sizeof (struct in6_addr)];
	const char *text = o->bind != NULL ? o->bind : "127.0.0.1";
	int family = strchr(s->address, ':') != NULL ? AF_INET6 : AF_INET;

	if (o->port != 0 && o->port != s->port)
		return (0);
	if (inet_pton(family, text, probe) != 1 ||
	    inet_pton(family, s->address, mine) != 1)
		return (0);
	return (memcmp(probe, mine, family == AF_INET ? 4 : 16) == 0);
}

void
serve_replace(server *s, served *content)
{
	served *old;

	served_retain(content);
	pthread_mutex_lock(&s->lock);
	old = s->content;
	s->content = content;
	s->generation++;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	served_release(old);
}

uint64_t
serve_generation(server *s)
{
	uint64_t g;

	pthread_mutex_lock(&s->lock);
	g = s->generation;
	pthread_mutex_unlock(&s->lock);
	return (g);
}

void
serve_stop(server *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_broadcast(&s->changed);
	pthread_mutex_unlock(&s->lock);
	MHD_stop_daemon(s->daemon);	/* joins every thread, closes the socket */
	connections_free(s->conns);	/* every connection is closed by now */
	served_release(s->content);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
	free(s);
}
