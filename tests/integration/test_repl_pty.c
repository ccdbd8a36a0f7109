/*
 * test_repl_pty.c: the REPL on a terminal (src/cli/repl.c with GNU
 * readline), driven through a pseudo-terminal: the banner and prompts,
 * results, multi-line statements, Tab completion, errors, Ctrl-C during a
 * long loop, at a continuation prompt and while an -E chunk writes a
 * file before the prompt, Ctrl-D, and the history file across sessions.
 *
 * The program is $SM (tests/run sets it; ./statemap-lua otherwise), run
 * from the top of the tree.  Every step waits for a pattern in the output
 * with a generous timeout (a slow machine or ASan only makes it slower,
 * never wrong); nothing sleeps for a fixed time.  Keys are sent only once
 * the prompt is back: while a statement runs the terminal is in cooked
 * mode (so that Ctrl-C is a signal), and a Ctrl-D typed ahead then would
 * be the line discipline's end of file, not a key for readline.  TERM=dumb and an empty
 * INPUTRC keep readline's output plain and the user's settings out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#define TIMEOUT_MS	30000
#define TRACE		"examples/data/db-threads.out"

typedef struct session {
	pid_t pid;
	int master;
	char out[1 << 16];	/* everything it wrote (truncated beyond) */
	size_t len;
	size_t seen;		/* expect() searches from here */
	int eof;
} session;

static char home[] = "/tmp/test_repl_pty.XXXXXX";

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Reads what is there, waiting at most ms; 0 at end of output. */
static int
pump(session *s, int ms)
{
	struct pollfd p = { s->master, POLLIN, 0 };
	char buf[4096];
	ssize_t n;

	if (s->eof)
		return (0);
	if (poll(&p, 1, ms) <= 0)
		return (1);
	n = read(s->master, buf, sizeof (buf));
	if (n <= 0) {		/* EIO once the child has closed the terminal */
		s->eof = 1;
		return (0);
	}
	if ((size_t)n > sizeof (s->out) - 1 - s->len)
		n = (ssize_t)(sizeof (s->out) - 1 - s->len);
	memcpy(s->out + s->len, buf, (size_t)n);
	s->len += (size_t)n;
	s->out[s->len] = '\0';
	return (1);
}

/* Waits until pattern appears after what earlier calls matched. */
static int
expect(session *s, const char *pattern)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	char *at;

	for (;;) {
		if ((at = strstr(s->out + s->seen, pattern)) != NULL) {
			s->seen = (size_t)(at - s->out) + strlen(pattern);
			return (1);
		}
		if (now_ms() >= deadline || !pump(s, (int)(deadline - now_ms())))
			break;
	}
	if ((at = strstr(s->out + s->seen, pattern)) != NULL) {
		s->seen = (size_t)(at - s->out) + strlen(pattern);
		return (1);
	}
	return (0);
}

static void
send(session *s, const char *text)
{
	size_t len = strlen(text);

	if (write(s->master, text, len) != (ssize_t)len)
		perror("write to the terminal");
}

/* Starts $SM with args on a new terminal of 80 columns. */
static int
start(session *s, const char *xdg_state, char *const args[])
{
	const char *sm = getenv("SM") != NULL ? getenv("SM") : "./statemap-lua";
	char *argv[16];
	struct winsize ws = { 24, 80, 0, 0 };
	int i, slave;
	char *name;

	memset(s, 0, sizeof (*s));
	argv[0] = (char *)sm;
	for (i = 0; args[i] != NULL && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if ((s->master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 ||
	    grantpt(s->master) != 0 || unlockpt(s->master) != 0 ||
	    (name = ptsname(s->master)) == NULL) {
		perror("pseudo-terminal");
		return (0);
	}
	fflush(stdout);
	if ((s->pid = fork()) < 0) {
		perror("fork");
		return (0);
	}
	if (s->pid == 0) {
		setsid();
		if ((slave = open(name, O_RDWR)) < 0)
			_exit(126);
		ioctl(slave, TIOCSWINSZ, &ws);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		close(s->master);
		setenv("TERM", "dumb", 1);
		setenv("INPUTRC", "/dev/null", 1);
		setenv("HOME", home, 1);
		if (xdg_state != NULL)
			setenv("XDG_STATE_HOME", xdg_state, 1);
		else
			unsetenv("XDG_STATE_HOME");
		execv(sm, argv);
		_exit(127);
	}
	return (1);
}

/* Waits for the child to exit (reading its output meanwhile); its exit
 * status, or -1 if it had to be killed or died of a signal. */
static int
finish(session *s)
{
	long long deadline = now_ms() + TIMEOUT_MS;
	int status;
	pid_t r;

	while ((r = waitpid(s->pid, &status, WNOHANG)) == 0 &&
	    now_ms() < deadline) {
		if (!pump(s, 100))
			deadline = deadline < now_ms() + TIMEOUT_MS ? deadline :
			    now_ms() + TIMEOUT_MS;
		if (s->eof) {
			r = waitpid(s->pid, &status, 0);
			break;
		}
	}
	if (r == 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &status, 0);
		close(s->master);
		return (-1);
	}
	while (pump(s, 0) && !s->eof)
		;
	close(s->master);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The output since the last match, for failure messages. */
static const char *
rest(const session *s)
{
	size_t n = s->len - s->seen;

	return (s->out + s->seen + (n > 300 ? n - 300 : 0));
}

#define CHECK_EXIT(s, name)						\
	UNIT_REPORT(finish(s) == 0, (name),				\
	    "not exit status 0; its output's end: \"%s\"", rest(s))

#define EXPECT(s, name, pattern)					\
	UNIT_REPORT(expect((s), (pattern)), (name),			\
	    "no \"%s\" in the output; its end: \"%s\"", (pattern), rest(s))

static char *
read_file(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return (NULL);
	n = fread(buf, 1, sizeof (buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (buf);
}

static void
test_session(void)
{
	static session s;
	char *args[] = { "-i", TRACE, NULL };
	char path[256];
	const char *hist;

	if (!start(&s, NULL, args))
		return;
	EXPECT(&s, "banner names the help", "help() lists the API");
	EXPECT(&s, "banner says what was loaded",
	    "\"PostgreSQL\", 32 entities, 6 states, 19037 records");
	EXPECT(&s, "first prompt", "> ");

	send(&s, "6 * 7\r");
	EXPECT(&s, "an expression prints its value", "\r\n42\r\n> ");

	send(&s, "for i = 1, 3 do\r");
	EXPECT(&s, "an incomplete statement asks for more", ">> ");
	send(&s, "io.write(i * 11, ' ')\r");
	EXPECT(&s, "and again", ">> ");
	send(&s, "end\r");
	EXPECT(&s, "the whole statement runs", "11 22 33 > ");

	send(&s, "t:slic\t");
	EXPECT(&s, "Tab completes a method", "t:slice");
	send(&s, "\025");	/* Ctrl-U: drop the line */
	send(&s, "t:ent\t");
	EXPECT(&s, "Tab completes a common prefix", "it");
	/* A second Tab, which cannot extend the word, lists them. */
	send(&s, "\t");
	EXPECT(&s, "then lists the methods", "t:entities  t:entity");
	send(&s, "\025");
	send(&s, "statemap.form\t");
	EXPECT(&s, "Tab completes a table field", "statemap.format_ns");
	send(&s, "\025");
	send(&s, "stat\t");
	EXPECT(&s, "Tab completes a global", "statemap");
	send(&s, "\025");
	send(&s, "t:entity(\"402\t");
	EXPECT(&s, "Tab completes an entity name", "t:entity(\"4027\"");
	send(&s, ")\r");
	EXPECT(&s, "and the call runs", "<entity \"4027\": 432 transitions>");
	EXPECT(&s, "prompt", "\n> ");

	send(&s, "error('bo' .. 'om')\r");
	EXPECT(&s, "an error prints", "boom");
	EXPECT(&s, "and the prompt comes back", "\n> ");

	send(&s, "for i = 1, math.huge do "
	    "if i == 1 then print('loop' .. 'ing') end end\r");
	EXPECT(&s, "a long loop runs", "looping");
	send(&s, "\003");
	EXPECT(&s, "Ctrl-C interrupts it", "interrupted");
	EXPECT(&s, "and gives the prompt back", "> ");
	send(&s, "6 * 8\r");
	EXPECT(&s, "the session goes on", "\r\n48\r\n> ");

	send(&s, "x = (\r");
	EXPECT(&s, "continuation prompt", ">> ");
	send(&s, "\003");
	EXPECT(&s, "Ctrl-C drops the statement", "\n> ");
	send(&s, "x\r");
	EXPECT(&s, "of which nothing is left", "\r\nnil\r\n> ");

	send(&s, "\004");
	CHECK_EXIT(&s, "Ctrl-D exits with status 0");

	snprintf(path, sizeof (path), "%s/.statemap_lua_history", home);
	hist = read_file(path);
	CHECK("history is saved in ~/.statemap_lua_history",
	    hist != NULL && strstr(hist, "6 * 7\n") != NULL &&
	    strstr(hist, "t:entity(\"4027\")\n") != NULL);
}

/* The history comes back in the next session; XDG_STATE_HOME moves it. */
static void
test_history(void)
{
	static session s;
	char *args[] = { "--interactive", NULL };
	char state[256], path[300];
	const char *hist;

	if (!start(&s, NULL, args))
		return;
	EXPECT(&s, "no trace: a prompt all the same", "> ");
	send(&s, "\020\020\r");	/* Ctrl-P twice: "6 * 8", from before */
	EXPECT(&s, "the last session's history is there", "\r\n48\r\n> ");
	send(&s, "\004");
	CHECK_EXIT(&s, "exit");

	snprintf(state, sizeof (state), "%s/state", home);
	if (!start(&s, state, args))
		return;
	EXPECT(&s, "prompt", "> ");
	send(&s, "2 ^ 10\r");
	EXPECT(&s, "result", "\r\n1024.0\r\n> ");
	send(&s, "\004");
	CHECK_EXIT(&s, "exit");
	snprintf(path, sizeof (path), "%s/statemap-lua/history", state);
	hist = read_file(path);
	CHECK("with XDG_STATE_HOME, the history is in "
	    "$XDG_STATE_HOME/statemap-lua/history",
	    hist != NULL && strcmp(hist, "2 ^ 10\n") == 0);
}

/* -i SCRIPT FILE: the script runs, then the prompt. */
static void
test_script(void)
{
	static session s;
	char script[300];
	char *args[] = { "-i", script, TRACE, NULL };
	FILE *f;

	snprintf(script, sizeof (script), "%s/setup.lua", home);
	if ((f = fopen(script, "w")) == NULL)
		return;
	fputs("busy = t:sorted('on-cpu')[1].name\n", f);
	fclose(f);
	if (!start(&s, NULL, args))
		return;
	EXPECT(&s, "banner after the script", "help()");
	EXPECT(&s, "prompt", "> ");
	send(&s, "busy\r");
	EXPECT(&s, "the script's globals are there", "\r\n\"4137\"\r\n> ");
	send(&s, "\004");
	CHECK_EXIT(&s, "exit");
}

/* The names in dir that begin with prefix. */
static int
count_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return (-1);
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return (n);
}

/*
 * -i -E CODE FILE: Ctrl-C while the chunk writes a file (held there by
 * STATEMAP_DEBUG=hold-output) stops it, leaves no file, and the prompt
 * comes, as after a statement interrupted at the prompt.
 */
static void
test_interrupt_before_prompt(void)
{
	static session s;
	char code[300];
	char *args[] = { "-i", "--no-cache", "-E", code, TRACE, NULL };

	snprintf(code, sizeof (code), "t:write('%s/w.out')", home);
	setenv("STATEMAP_DEBUG", "hold-output", 1);
	if (!start(&s, NULL, args)) {
		unsetenv("STATEMAP_DEBUG");
		return;
	}
	unsetenv("STATEMAP_DEBUG");
	EXPECT(&s, "the chunk writes the file", "holding");
	send(&s, "\003");
	EXPECT(&s, "Ctrl-C stops the writing", "t:write: interrupted");
	EXPECT(&s, "then the banner, of the trace loaded",
	    "\"PostgreSQL\", 32 entities");
	EXPECT(&s, "and the prompt", "> ");
	CHECK("no file is left, nor its temporary file",
	    count_named(home, "w.out") == 0 &&
	    count_named(home, ".w.out") == 0);
	send(&s, "#t:entities()\r");
	EXPECT(&s, "the session goes on", "\r\n32\r\n> ");
	send(&s, "\004");
	CHECK_EXIT(&s, "Ctrl-D exits with status 0");
}

int
main(void)
{
	char cmd[300];

	if (mkdtemp(home) == NULL) {
		perror("mkdtemp");
		return (1);
	}
	test_session();
	test_history();
	test_script();
	test_interrupt_before_prompt();
	snprintf(cmd, sizeof (cmd), "rm -rf '%s'", home);
	if (system(cmd) != 0)
		printf("FAIL cannot remove %s\n", home);
	return (unit_exit());
}
