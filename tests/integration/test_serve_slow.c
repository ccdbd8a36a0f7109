/*
 * test_serve_slow.c: the live server ($SM --serve) against clients that
 * hold its connections without ever finishing a request, over real
 * sockets on the loopback.  Each part checks a promise of
 * statemap-lua(1), "LIVE ZOOM", stated as an order or a count:
 *
 *   room    more slow connections than the server's 64 (70 from
 *           127.0.0.1, 40 from 127.0.0.2), each a request line that
 *           never ends and grows by a byte every 100 ms, so that no idle
 *           timeout ends it; STATEMAP_SERVE_REQUEST_TIME is an hour, so
 *           the bound on a request's time closes none of them either.
 *           A request with the token, from 127.0.0.1 like most of them,
 *           is answered with the page, and so is a second one; then the
 *           server holds at most 32 of them from each address and at
 *           most 63 in all, and still some from each address (they were
 *           closed to make room, not all dropped).
 *   bound   STATEMAP_SERVE_REQUEST_TIME=300ms; 60 connections (fewer
 *           than the limits above, so that none is closed to make room)
 *           that trickle a byte every 50 ms, far more often than the
 *           idle timeout of 20 s, and one that sends nothing.  The server
 *           closes every one of them, without an answer.
 *
 * Before the server bounded a request's time and made room, no wait of
 * either part ever ended.  Waits poll for what they wait for, and give up
 * with a failure after GUARD_MS, a safety net far beyond what any machine
 * needs; nothing asserts how long anything took.  A source address of
 * 127.0.0.2 needs nothing but Linux's loopback (all of 127/8); where it
 * cannot be bound, its part is skipped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#define TRACE		"tests/browser/plain.out"
#define GUARD_MS	120000
#define MAX_CONNECTIONS	64	/* SERVE_MAX_CONNECTIONS */
#define PER_ADDRESS	32	/* SERVE_PER_ADDRESS */
#define ROOM_A		70	/* slow connections from 127.0.0.1 */
#define ROOM_B		40	/* and from 127.0.0.2 */
#define BOUND_EACH	30	/* trickling ones from each address */

typedef struct server {
	pid_t pid;
	int err;		/* its standard error, a file */
	char errname[32];
	char port[8];
	char token[40];
} server;

/* A client connection that never finishes its request. */
typedef struct slow {
	int fd;
	int open;		/* not yet closed by the server */
	size_t got;		/* bytes the server sent on it */
} slow;

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * Starts $SM --serve on the trace with STATEMAP_SERVE_REQUEST_TIME set to
 * request_time, and reads its port and token from its first line.  Its
 * standard error goes to a file, which is shown if it fails (a sanitizer's
 * report, say) and which a pipe nobody reads would not hold.
 */
static int
server_start(server *s, const char *request_time)
{
	const char *sm = getenv("SM") != NULL ? getenv("SM") :
	    "./statemap-lua";
	static const char prefix[] = "statemap-lua: serving http://127.0.0.1:";
	long long deadline = now_ms() + GUARD_MS;
	char line[300], *p;
	ssize_t len = 0;

	memset(s, 0, sizeof (*s));
	strcpy(s->errname, "/tmp/test_serve_slow.XXXXXX");
	if ((s->err = mkstemp(s->errname)) < 0) {
		perror("mkstemp");
		return (0);
	}
	fflush(stdout);
	if ((s->pid = fork()) < 0) {
		perror("fork");
		return (0);
	}
	if (s->pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(s->err, 2);
		setenv("STATEMAP_SERVE_REQUEST_TIME", request_time, 1);
		execl(sm, sm, "--serve", "--no-cache", TRACE, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		len = pread(s->err, line, sizeof (line) - 1, 0);
		line[len > 0 ? len : 0] = '\0';
		if (strchr(line, '\n') != NULL ||
		    len == (ssize_t)sizeof (line) - 1 || now_ms() >= deadline ||
		    waitpid(s->pid, NULL, WNOHANG) != 0)
			break;
		poll(NULL, 0, 20);
	}
	if (strncmp(line, prefix, sizeof (prefix) - 1) != 0 ||
	    sscanf(line + sizeof (prefix) - 1, "%7[0-9]", s->port) != 1 ||
	    (p = strstr(line, "token=")) == NULL ||
	    sscanf(p + 6, "%32[0-9a-f]", s->token) != 1) {
		printf("FAIL the server did not start: \"%s\"\n", line);
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		close(s->err);
		unlink(s->errname);
		return (0);
	}
	return (1);
}

/*
 * Stops it with SIGTERM: its exit status, or -1; anything it wrote after
 * its first line is shown.
 */
static int
server_stop(server *s)
{
	char buf[4096];
	ssize_t n;
	off_t at;
	int status, first = 1;

	kill(s->pid, SIGTERM);
	if (waitpid(s->pid, &status, 0) != s->pid)
		status = -1;
	for (at = 0; (n = pread(s->err, buf, sizeof (buf), at)) > 0; at += n) {
		char *from = buf;

		if (first && (from = memchr(buf, '\n', (size_t)n)) != NULL)
			from++;
		else if (first)
			from = buf + n;
		first = 0;
		fwrite(from, 1, (size_t)(buf + n - from), stdout);
	}
	close(s->err);
	unlink(s->errname);
	return (status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * A connection to the server from the address from (NULL if that address
 * cannot be bound here: errno is EADDRNOTAVAIL), non-blocking once made.
 */
static int
connect_from(const server *s, const char *from)
{
	struct sockaddr_in src, dst;
	int fd;

	memset(&src, 0, sizeof (src));
	src.sin_family = AF_INET;
	inet_pton(AF_INET, from, &src.sin_addr);
	dst = src;
	dst.sin_port = htons((unsigned short)atoi(s->port));
	inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return (-1);
	if (bind(fd, (struct sockaddr *)&src, sizeof (src)) != 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof (dst)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return (-1);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return (fd);
}

/* Whether the server has closed c (reading whatever it sent). */
static int
slow_check(slow *c)
{
	char buf[4096];
	ssize_t n;

	while (c->open) {
		n = recv(c->fd, buf, sizeof (buf), MSG_DONTWAIT);
		if (n > 0) {
			c->got += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR))
			break;
		c->open = 0;	/* end of file, or reset */
	}
	return (!c->open);
}

/* One more byte of a request line that never ends. */
static void
slow_trickle(slow *c)
{
	if (c->open && send(c->fd, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    errno != EAGAIN && errno != EWOULDBLOCK)
		c->open = 0;
	slow_check(c);
}

/* Opens n slow connections from the address; 0 if it cannot be bound. */
static int
slow_open(const server *s, const char *from, slow *c, int n)
{
	static const char start[] = "GET /?t";
	int i;

	for (i = 0; i < n; i++) {
		if ((c[i].fd = connect_from(s, from)) < 0) {
			if (i == 0 && errno == EADDRNOTAVAIL)
				return (0);
			printf("FAIL cannot connect from %s: %s\n", from,
			    strerror(errno));
			exit(1);
		}
		c[i].open = 1;
		c[i].got = 0;
		if (send(c[i].fd, start, sizeof (start) - 1, MSG_NOSIGNAL) < 0)
			c[i].open = 0;
	}
	return (1);
}

static int
slow_count_open(slow *c, int n)
{
	int i, open = 0;

	for (i = 0; i < n; i++)
		open += !slow_check(&c[i]);
	return (open);
}

static void
slow_close(slow *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(c[i].fd);
}

/* Trickles a byte on every open connection of both sets. */
static void
trickle_all(slow *a, int na, slow *b, int nb)
{
	int i;

	for (i = 0; i < na; i++)
		slow_trickle(&a[i]);
	for (i = 0; i < nb; i++)
		slow_trickle(&b[i]);
}

/*
 * Asks for the page with the token on a new connection from 127.0.0.1,
 * trickling a byte on every slow connection every 100 ms until the whole
 * answer is in.  Returns the answer (static), or NULL past the guard.
 */
static const char *
ask_page(const server *s, slow *a, int na, slow *b, int nb)
{
	static char answer[1 << 20];
	char request[300];
	long long deadline = now_ms() + GUARD_MS;
	size_t len = 0;
	int fd, n;

	n = snprintf(request, sizeof (request), "GET /?token=%s HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%s\r\nConnection: close\r\n\r\n", s->token,
	    s->port);
	if ((fd = connect_from(s, "127.0.0.1")) < 0 ||
	    send(fd, request, (size_t)n, MSG_NOSIGNAL) != n) {
		printf("FAIL cannot ask for the page: %s\n", strerror(errno));
		return (NULL);
	}
	while (now_ms() < deadline) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t got;

		if (poll(&pf, 1, 100) <= 0) {
			trickle_all(a, na, b, nb);
			continue;
		}
		got = recv(fd, answer + len, sizeof (answer) - 1 - len, 0);
		if (got > 0)
			len += (size_t)got;
		if (got <= 0 || len == sizeof (answer) - 1) {
			close(fd);
			answer[len] = '\0';
			return (answer);
		}
	}
	close(fd);
	return (NULL);
}

static int
is_page(const char *answer)
{
	return (answer != NULL &&
	    strncmp(answer, "HTTP/1.1 200 ", 13) == 0 &&
	    strstr(answer, "id=\"statemap-live\"") != NULL);
}

static void
test_room(void)
{
	static slow a[ROOM_A], b[ROOM_B];
	long long deadline;
	const char *answer;
	int nb = ROOM_B, open_a, open_b, settled = 0;
	server s;

	if (!server_start(&s, "3600s")) {
		printf("FAIL room: no server\n");
		return;
	}
	slow_open(&s, "127.0.0.1", a, ROOM_A);
	if (!slow_open(&s, "127.0.0.2", b, ROOM_B)) {
		SKIP("room: from 127.0.0.2", "that address cannot be bound "
		    "here: every slow connection is from 127.0.0.1");
		nb = 0;
	}
	answer = ask_page(&s, a, ROOM_A, b, nb);
	UNIT_REPORT(is_page(answer), "room: the token's page is answered "
	    "while slow connections fill the server",
	    "no page: %.60s", answer != NULL ? answer : "(the guard ran out)");
	answer = ask_page(&s, a, ROOM_A, b, nb);
	UNIT_REPORT(is_page(answer), "room: and again, on a new connection",
	    "no page: %.60s", answer != NULL ? answer : "(the guard ran out)");
	/* Those closed to make room are closed as the server gets to them. */
	deadline = now_ms() + GUARD_MS;
	do {
		open_a = slow_count_open(a, ROOM_A);
		open_b = slow_count_open(b, nb);
		if (open_a <= PER_ADDRESS && open_b <= PER_ADDRESS &&
		    open_a + open_b <= MAX_CONNECTIONS - 1) {
			settled = 1;
			break;
		}
		poll(NULL, 0, 100);
		trickle_all(a, ROOM_A, b, nb);
	} while (now_ms() < deadline);
	UNIT_REPORT(settled, "room: the server holds at most 32 slow "
	    "connections from one address and 63 in all", "it holds %d from "
	    "127.0.0.1 and %d from 127.0.0.2", open_a, open_b);
	UNIT_REPORT(open_a > 0 && (nb == 0 || open_b > 0), "room: and still "
	    "holds slow ones from each address", "it holds %d from 127.0.0.1 "
	    "and %d from 127.0.0.2", open_a, open_b);
	slow_close(a, ROOM_A);
	slow_close(b, nb);
	CHECK_INT("room: the server stops with status 0", server_stop(&s), 0);
}

static void
test_bound(void)
{
	static slow a[BOUND_EACH + 1], b[BOUND_EACH];
	long long deadline = now_ms() + GUARD_MS;
	int na = BOUND_EACH, nb = BOUND_EACH, open = 0, i, answered = 0;
	slow *silent = &a[BOUND_EACH];
	server s;

	if (!server_start(&s, "300ms")) {
		printf("FAIL bound: no server\n");
		return;
	}
	if (!slow_open(&s, "127.0.0.2", b, BOUND_EACH))
		nb = 0;
	slow_open(&s, "127.0.0.1", a, BOUND_EACH);
	/* And one that connects and sends nothing at all. */
	if ((silent->fd = connect_from(&s, "127.0.0.1")) < 0) {
		printf("FAIL bound: cannot connect: %s\n", strerror(errno));
		exit(1);
	}
	silent->open = 1;
	while (now_ms() < deadline) {
		for (i = 0; i < na; i++)
			slow_trickle(&a[i]);
		for (i = 0; i < nb; i++)
			slow_trickle(&b[i]);
		open = slow_count_open(a, na + 1) + slow_count_open(b, nb);
		if (open == 0)
			break;
		poll(NULL, 0, 50);
	}
	for (i = 0; i < na + 1; i++)
		answered += a[i].got > 0;
	for (i = 0; i < nb; i++)
		answered += b[i].got > 0;
	UNIT_REPORT(open == 0, "bound: every connection that trickles a "
	    "request it never finishes is closed by the server",
	    "%d of %d are still open", open, na + nb + 1);
	CHECK_INT("bound: without an answer", answered, 0);
	slow_close(a, na + 1);
	slow_close(b, nb);
	CHECK_INT("bound: the server stops with status 0", server_stop(&s), 0);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	test_room();
	test_bound();
	return (unit_exit());
}
