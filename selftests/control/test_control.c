// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The control channel (kernel/control.c) from outside: a target process
 * that opted in, and peers of other users that connect to it.  Who is
 * obeyed (root, the same user while dumpable) and who is refused (another
 * user, the same user of a process that is not dumpable); a process that
 * did not opt in has no thread and no socket; keys and queries change what
 * the target runs, read-only and private keys never; malformed, oversized,
 * partial and slow requests get an error and change nothing, while the
 * target's own threads run on; the idle thread wakes up never; fork().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <linux/dynamic_debug.h>
#include <linux/jump_label.h>
#include <statickeys/control.h>
#include "ctl.h"
#include "tap.h"

#define NOBODY	65534
#define OTHER	65533

DEFINE_STATIC_KEY_FALSE(ctl_key);
DEFINE_STATIC_KEY_FALSE_RO(ctl_ro_key);
DEFINE_STATIC_KEY_FALSE(ctl_private_key);

static volatile int dd_ran;

static void mark_ran(void)
{
	dd_ran = 1;
}

/* What the target's code does now: one bit per path. */
static __attribute__((noinline)) int run_paths(void)
{
	int r = 0;

	if (static_branch_unlikely(&ctl_key))
		r |= 1;
	if (static_branch_unlikely(&ctl_ro_key))
		r |= 2;
	if (static_branch_unlikely(&ctl_private_key))
		r |= 4;
#ifdef CONFIG_DYNAMIC_DEBUG
	dd_ran = 0;
	_dynamic_func_call_no_desc("control test site %d\n", mark_ran);
	if (dd_ran)
		r |= 8;
#endif
	return r;
}

struct target {
	pid_t pid;
	int cmd, res;		/* pipes to and from it */
	bool own_file;		/* it may open /proc/self/exe */
};

/* Count the threads of @pid named @comm (NULL: all of them). */
static int threads_named(pid_t pid, const char *comm, long *tid)
{
	char path[300], name[32];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		if (!comm) {
			n++;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid,
			 d->d_name);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) &&
		    !strncmp(name, comm, strlen(comm))) {
			n++;
			if (tid)
				*tid = atol(d->d_name);
		}
		if (f)
			fclose(f);
	}
	closedir(dir);
	return n;
}

/* Sockets among @pid's descriptors. */
static int sockets_of(pid_t pid)
{
	char path[300], link[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len > 0 && !strncmp(link, "socket:", 7))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * The threads of this test before any channel: 1, or more where an
 * emulator (qemu-user) runs threads of its own in the process.
 */
static int base_threads;

/* In a child of the target: no thread, no channel; then one of its own. */
static char forked_child_check(bool own)
{
	int fd = ctl_connect(getpid());
	int threads = threads_named(getpid(), NULL, NULL);

	if (fd >= 0)
		close(fd);
	if (threads > base_threads || threads_named(getpid(), "sk-control", NULL))
		return 't';		/* a thread more than before opting in */
	if (fd != -ECONNREFUSED)
		return 'c';		/* a channel at the child's name */
	if (!own)
		return 'y';
	if (statickeys_control_start() ||
	    threads_named(getpid(), "sk-control", NULL) != 1)
		return 's';		/* no channel of its own */
	fd = ctl_connect(getpid());
	if (fd < 0)
		return 's';
	close(fd);
	return 'y';
}

/*
 * 'L': a thread of the target keeps libctl_plug.so (a key and its site)
 * loaded until somebody opens its file, which a "set" does to find the
 * key's name while it looks the key up, and then unloads it at once and
 * loads it again: the worst moment for the set that is about to change
 * that key.  'l' stops it and answers whether every round worked.
 */
static pthread_t plug_thread;
static int plug_stop, plug_failed, plug_rounds;

/* Drop the events queued so far (our own dlopen() opened the file). */
static void plug_drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void *plug_loop(void *arg)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	(void)arg;
	if (fd < 0 || inotify_add_watch(fd, CTL_PLUG, IN_OPEN) < 0) {
		plug_failed = 1;
		return NULL;
	}
	while (!__atomic_load_n(&plug_stop, __ATOMIC_RELAXED)) {
		void *h = dlopen(CTL_PLUG, RTLD_NOW | RTLD_LOCAL);
		int (*site)(void) = h ? (int (*)(void))dlsym(h, "ctl_plug_site") : NULL;

		if (!site || site() < 0)
			plug_failed = 1;
		plug_drain(fd);
		while (!__atomic_load_n(&plug_stop, __ATOMIC_RELAXED) &&
		       poll(&pfd, 1, 50) == 0)
			;
		if (h)
			dlclose(h);
		plug_drain(fd);
		plug_rounds++;
	}
	close(fd);
	return NULL;
}

static bool plug_loop_start(void)
{
	plug_stop = 0;
	return !pthread_create(&plug_thread, NULL, plug_loop, NULL);
}

static int plug_loop_stop(void)
{
	__atomic_store_n(&plug_stop, 1, __ATOMIC_RELAXED);
	pthread_join(plug_thread, NULL);
	return plug_failed;
}

/* The target's descriptors taken by 'M', given back by 'm'. */
static int spare_fds[65536];
static int nr_spare_fds;

static int exhaust_fds(void)
{
	int fd;

	while (nr_spare_fds < (int)(sizeof(spare_fds) / sizeof(spare_fds[0])) &&
	       (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		spare_fds[nr_spare_fds++] = fd;
	return errno == EMFILE ? nr_spare_fds : -1;
}

static void release_fds(void)
{
	while (nr_spare_fds)
		close(spare_fds[--nr_spare_fds]);
}

static void target_main(uid_t uid, int dumpable, int cmd, int res)
{
	char c;
	int self;

	if (ctl_become(uid) || prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0))
		_exit(3);
	statickeys_control_private(&ctl_private_key.key);
	/*
	 * Keys are named from the program's file, which a process always
	 * reaches through /proc/self/exe; but qemu-user opens that link by
	 * the program's name, which the new user may be refused ('U').
	 */
	self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (self >= 0)
		close(self);
	c = statickeys_control_start() ? 'E' : self >= 0 ? 'R' : 'U';
	if (write(res, &c, 1) != 1)
		_exit(3);
	while (read(cmd, &c, 1) == 1) {
		if (c == 'r') {
			c = (char)('0' + run_paths());
		} else if (c == 'L') {
			c = plug_loop_start() ? 'y' : 'n';
		} else if (c == 'l') {
			c = (char)('0' + plug_loop_stop());
		} else if (c == 'M') {
			/* Every descriptor taken: the channel's accept() fails. */
			c = exhaust_fds() > 0 ? 'y' : 'n';
		} else if (c == 'm') {
			release_fds();
			c = 'y';
		} else if (c == 'f' || c == 'F') {
			bool own = c == 'F';
			pid_t p;
			int st;
			int pfd[2];

			if (pipe(pfd))
				_exit(3);
			p = fork();
			if (p == 0) {
				c = forked_child_check(own);
				if (write(pfd[1], &c, 1) != 1)
					_exit(3);
				_exit(0);
			}
			close(pfd[1]);
			if (read(pfd[0], &c, 1) != 1)
				c = 'n';
			close(pfd[0]);
			waitpid(p, &st, 0);
		} else {
			_exit(0);
		}
		if (write(res, &c, 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static bool target_start(struct target *t, uid_t uid, int dumpable)
{
	int to[2], from[2];
	char c = 0;

	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return false;
	fflush(NULL);
	t->pid = fork();
	if (t->pid == 0) {
		close(to[1]);
		close(from[0]);
		target_main(uid, dumpable, to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	t->cmd = to[1];
	t->res = from[0];
	if (read(t->res, &c, 1) != 1)
		return false;
	t->own_file = c != 'U';
	return c == 'R' || c == 'U';
}

/* The target's answer to @c ('r': the paths it runs, as '0' + bits). */
static int target_ask(struct target *t, char c)
{
	if (write(t->cmd, &c, 1) != 1 || read(t->res, &c, 1) != 1)
		return -1;
	return c;
}

static void target_stop(struct target *t)
{
	int st;

	close(t->cmd);
	close(t->res);
	waitpid(t->pid, &st, 0);
}

/* ---- peers ---- */

struct peer {
	pid_t pid;
	int out;		/* the reply comes here */
};

enum peer_end { PEER_CLOSE_NOTHING, PEER_SHUT_WR };

/*
 * A peer as @uid sends @len bytes of @req, then (PEER_SHUT_WR) says it
 * has no more, and reads the whole reply, which it passes on.
 */
static void peer_start(struct peer *p, pid_t target, uid_t uid,
		       const char *req, size_t len, enum peer_end end)
{
	int out[2];

	if (pipe2(out, O_CLOEXEC))
		abort();
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0) {
		static char reply[1 << 16];
		ssize_t n;
		int fd;

		close(out[0]);
		if (ctl_become(uid))
			_exit(3);
		fd = ctl_connect(target);
		if (fd < 0) {
			dprintf(out[1], "connect: %s\n", strerror(-fd));
			_exit(0);
		}
		/* The server may close before taking it all (1 MiB). */
		while (len && (n = send(fd, req, len, MSG_NOSIGNAL)) > 0) {
			req += n;
			len -= (size_t)n;
		}
		if (end == PEER_SHUT_WR)
			shutdown(fd, SHUT_WR);
		n = ctl_read_all(fd, reply, sizeof(reply));
		if (write(out[1], reply, (size_t)n) != n)
			_exit(3);
		_exit(0);
	}
	close(out[1]);
	p->out = out[0];
}

static const char *peer_finish(struct peer *p, char *buf, size_t size)
{
	int st;

	ctl_read_all(p->out, buf, size);
	close(p->out);
	waitpid(p->pid, &st, 0);
	return buf;
}

static char reply[1 << 16];

static const char *ask(pid_t target, uid_t uid, const char *req)
{
	struct peer p;

	peer_start(&p, target, uid, req, strlen(req), PEER_CLOSE_NOTHING);
	return peer_finish(&p, reply, sizeof(reply));
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The reply's closing "ok" line (its only line when the table is empty). */
static bool closes_ok(const char *r)
{
	return starts(r, "ok ") || strstr(r, "\nok ");
}

static void show(const char *what, const char *s)
{
	tap_diag("%s: %.300s", what, s);
}

#ifdef CONFIG_JUMP_LABEL
#define HAVE_SITES 1
#else
#define HAVE_SITES 0
#endif

/* "set ctl_key on" as @uid: obeyed (the target runs the path) or not. */
static bool set_obeyed(struct target *t, uid_t uid)
{
	const char *r = ask(t->pid, uid, "set ctl_key on\n");
	bool obeyed = HAVE_SITES && t->own_file ?
		      !strcmp(r, "ok ctl_key on\n") && target_ask(t, 'r') == '1' :
		      starts(r, "error: no key ctl_key");

	if (!obeyed)
		show("reply", r);
	else if (HAVE_SITES && !t->own_file)
		tap_diag("the target cannot open its own /proc/self/exe (qemu-user opens it by name, closed to its user): the request passed the permission check and reached the key lookup, which has no names");
	ask(t->pid, 0, "set ctl_key off\n");
	return obeyed;
}

static bool refused(struct target *t, uid_t uid)
{
	const char *r = ask(t->pid, uid, "set ctl_key on\n");
	bool ok = starts(r, "error: permission denied: uid ") &&
		  target_ask(t, 'r') == '0';

	if (!ok)
		show("reply", r);
	return ok;
}

static void test_not_opted_in(void)
{
	int fd = ctl_connect(getpid());

	base_threads = threads_named(getpid(), NULL, NULL);
	tap_diag("threads of this process, which did not opt in: %d", base_threads);
	tap_ok(base_threads >= 1 && !threads_named(getpid(), "sk-control", NULL) &&
	       sockets_of(getpid()) == 0 && fd == -ECONNREFUSED,
	       "a process that did not opt in: no control thread, no socket, nothing at @statickeys-control.%d",
	       (int)getpid());
	if (fd >= 0)
		close(fd);
}

static void test_permissions(void)
{
	struct target t;

	tap_ok(target_start(&t, 0, 1) &&
	       threads_named(t.pid, "sk-control", NULL) == 1 &&
	       threads_named(t.pid, NULL, NULL) == base_threads + 1 &&
	       sockets_of(t.pid) == 1,
	       "statickeys_control_start(): one more thread, \"sk-control\", and one socket");
	tap_ok(refused(&t, NOBODY), "a peer of another user (uid %d) is refused, nothing changes",
	       NOBODY);
	target_stop(&t);

	tap_ok(target_start(&t, NOBODY, 1) && set_obeyed(&t, 0),
	       "a privileged peer (uid 0) is obeyed by a process of uid %d", NOBODY);
	tap_ok(set_obeyed(&t, NOBODY), "a peer of the same user is obeyed while the process is dumpable");
	tap_ok(refused(&t, OTHER), "a peer of a third user (uid %d) is refused", OTHER);
	target_stop(&t);

	tap_ok(target_start(&t, NOBODY, 0) && refused(&t, NOBODY),
	       "a peer of the same user is refused when the process is not dumpable");
	tap_ok(set_obeyed(&t, 0), "root is obeyed by a process that is not dumpable");
	target_stop(&t);
}

static void test_requests(struct target *t)
{
	const char *r;
	bool ok;

	r = ask(t->pid, 0, "keys\n");
	ok = HAVE_SITES ? strstr(r, "\n key ") || starts(r, " key ") : true;
	ok = ok && (!HAVE_SITES || strstr(r, " ctl_key symtab ")) && closes_ok(r);
	tap_ok(ok, "keys: the table, each line after one space, then \"ok N keys\"");
	if (!ok)
		show("reply", r);

	tap_ok(set_obeyed(t, 0) && target_ask(t, 'r') == '0',
	       HAVE_SITES ? "set ctl_key on: the site runs the new path; off: the old one again"
			  : "set ctl_key on without sites (CONFIG_JUMP_LABEL=n): \"no key\"");

	r = ask(t->pid, 0, "set ctl_ro_key on\n");
	ok = HAVE_SITES ? !strcmp(r, "error: key ctl_ro_key is read-only\n")
			: starts(r, "error: no key ctl_ro_key");
	tap_ok(ok && target_ask(t, 'r') == '0', "a read-only key is refused and stays off");
	if (!ok)
		show("reply", r);

	r = ask(t->pid, 0, "set ctl_private_key on\n");
	ok = HAVE_SITES ? !strcmp(r, "error: key ctl_private_key is private\n")
			: starts(r, "error: no key ctl_private_key");
	tap_ok(ok && target_ask(t, 'r') == '0',
	       "a key marked with statickeys_control_private() is refused and stays off");
	if (!ok)
		show("reply", r);

#ifdef CONFIG_DYNAMIC_DEBUG
	r = ask(t->pid, 0, "dyndbg format \"control test site\" +p\n");
	ok = !strcmp(r, "ok 1 sites matched\n") && target_ask(t, 'r') == '8';
	tap_ok(ok, "dyndbg QUERY: the query runs, the pr_debug() site runs its call");
	if (!ok)
		show("reply", r);
	r = ask(t->pid, 0, "sites\n");
	ok = strstr(r, "test_control.c:") && strstr(r, "]run_paths =p \"control test site %d\\n\"\n") &&
	     strstr(r, "\nok ");
	tap_ok(ok, "sites: each site as the kernel's control file shows it, with its flags");
	if (!ok)
		show("reply", r);
	r = ask(t->pid, 0, "dyndbg bogus control +_\n");
	ok = starts(r, "error: dyndbg: ") && strstr(r, "bogus") &&
	     target_ask(t, 'r') == '8';
	tap_ok(ok, "a wrong query: an error naming the word, nothing changed");
	if (!ok)
		show("reply", r);
	ask(t->pid, 0, "dyndbg format \"control test site\" -p\n");
	tap_ok(target_ask(t, 'r') == '0', "dyndbg -p: the site is quiet again");
#else
	for (int i = 0; i < 4; i++)
		tap_skip("CONFIG_DYNAMIC_DEBUG=n", "dyndbg %d", i);
#endif
}

static void test_hostile(struct target *t)
{
	static const struct {
		const char *req;
		size_t len;
		const char *error;
	} bad[] = {
		{ "frobnicate\n", 11, "error: unknown request \"frobnicate\"" },
		{ "set\n", 4, "error: set: no key name" },
		{ "set ctl_key maybe\n", 18, "error: set ctl_key: \"maybe\" is not on or off" },
		{ "set ctl_key on now\n", 19, "error: set: one key and one state" },
		{ "set ctl-key on\n", 15, "error: set: \"ctl-key\" is not a key name" },
		{ "set ctl_key\0on\n", 15, "error: byte 0x00 at offset 11" },
		{ "set ctl_key on\r\n", 16, "error: byte 0x0d at offset 14" },
		{ "\n", 1, "error: empty request" },
		{ "dyndbg   \n", 10, "error: dyndbg: no query" },
		{ "keys please\n", 12, "error: keys takes no argument" },
	};
	char buf[4096];
	struct peer p, slow, fast;
	unsigned int i, good = 0;
	char *big;
	bool ok;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		peer_start(&p, t->pid, 0, bad[i].req, bad[i].len, PEER_CLOSE_NOTHING);
		peer_finish(&p, buf, sizeof(buf));
		if (starts(buf, bad[i].error) && !strchr(buf, '\n')[1])
			good++;
		else
			show(bad[i].error, buf);
	}
	tap_ok(good == i && target_ask(t, 'r') == '0',
	       "%u malformed requests: each a one-line error saying what is wrong, nothing changed", i);

	big = malloc(1 << 20);
	memset(big, 'a', 1 << 20);
	memcpy(big, "set ctl_key on ", 15);
	peer_start(&p, t->pid, 0, big, 1 << 20, PEER_CLOSE_NOTHING);
	peer_finish(&p, buf, sizeof(buf));
	ok = !strcmp(buf, "error: request longer than 4095 bytes\n");
	tap_ok(ok && target_ask(t, 'r') == '0',
	       "a request of 1 MiB: refused after 4 KiB, nothing changed");
	if (!ok)
		show("reply", buf);
	free(big);

	peer_start(&p, t->pid, 0, "set ctl_key on", 14, PEER_SHUT_WR);
	peer_finish(&p, buf, sizeof(buf));
	ok = !strcmp(buf, "error: the request ended without a newline\n");
	tap_ok(ok && target_ask(t, 'r') == '0',
	       "a request without its newline, then EOF: refused, nothing changed");
	if (!ok)
		show("reply", buf);

	/*
	 * Half a line, then silence: while it waits, the target's thread
	 * answers and another peer is served; at the deadline the slow peer
	 * gets its error.  No time is measured: the order of events is.
	 */
	peer_start(&slow, t->pid, 0, "set ctl_key o", 13, PEER_CLOSE_NOTHING);
	ok = target_ask(t, 'r') == '0';
	peer_start(&fast, t->pid, 0, "keys\n", 5, PEER_CLOSE_NOTHING);
	peer_finish(&fast, reply, sizeof(reply));
	ok = ok && closes_ok(reply);
	/* fork() with the slow connection open: the child has none of it. */
	ok = ok && target_ask(t, 'f') == 'y';
	tap_ok(ok, "while a peer sends half a line and sleeps, the program's thread runs and forks, and another peer is served");
	peer_finish(&slow, buf, sizeof(buf));
	ok = starts(buf, "error: no whole request within ") && target_ask(t, 'r') == '0';
	tap_ok(ok, "the slow peer gets an error at its deadline, nothing changed");
	if (!ok)
		show("reply", buf);
}

/* 100 peers at once, each with a whole request: every one answered. */
static void test_many(struct target *t)
{
	enum { N = 100 };
	struct peer p[N];
	unsigned int i, good = 0;
	const char *buf;

	for (i = 0; i < N; i++)
		peer_start(&p[i], t->pid, 0, i % 2 ? "sites\n" : "set ctl_private_key on\n",
			   i % 2 ? 6 : 23, PEER_CLOSE_NOTHING);
	for (i = 0; i < N; i++) {
		char *last;

		peer_finish(&p[i], reply, sizeof(reply));
		/* The last line: after the last newline but the final one. */
		last = reply + strlen(reply);
		if (last > reply)
			last--;
		while (last > reply && last[-1] != '\n')
			last--;
		buf = last && last != reply ? last : reply;
		good += i % 2 ? starts(buf, "ok ") || starts(buf, "error: this library has no dynamic debug")
			      : starts(buf, "error: ");
	}
	tap_ok(good == N && target_ask(t, 'r') == '0',
	       "%d peers at once: each answered (%u), the private key still off", N, good);
}

/* The server thread's count of sleeps, from /proc. */
static long voluntary_switches(pid_t pid, long tid)
{
	char path[96], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Its CPU time, utime + stime in clock ticks, from /proc. */
static long cpu_ticks(pid_t pid, long tid)
{
	unsigned long utime, stime;
	char path[96], line[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", (int)pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* After the name: state, then fields 4 to 13, then utime, stime. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &utime, &stime) != 2)
		return -1;
	return (long)(utime + stime);
}

static void test_idle(struct target *t)
{
	long tid = 0, before, after, ticks0, ticks1;

	threads_named(t->pid, "sk-control", &tid);
	/*
	 * The last peer's close may still be on its way back to poll():
	 * first a moment without a switch, then the idle interval.
	 */
	for (int i = 0; i < 20; i++) {
		before = voluntary_switches(t->pid, tid);
		usleep(50 * 1000);
		if (voluntary_switches(t->pid, tid) == before)
			break;
	}
	before = voluntary_switches(t->pid, tid);
	ticks0 = cpu_ticks(t->pid, tid);
	usleep(300 * 1000);
	after = voluntary_switches(t->pid, tid);
	ticks1 = cpu_ticks(t->pid, tid);
	tap_diag("idle 300 ms: the control thread's voluntary context switches %ld -> %ld, CPU time %ld -> %ld ticks",
		 before, after, ticks0, ticks1);
	tap_ok(before >= 0 && after == before,
	       "the idle control thread never wakes up (voluntary context switches unchanged)");
}

/*
 * The program out of descriptors: a peer connects, the channel's accept()
 * fails with EMFILE and the connection stays pending.  The thread must
 * not spin on it (it stops accepting for CONTROL_PAUSE_MS, 100 ms, at a
 * time), and serves the peer once descriptors are free again.  Judged by
 * the thread's CPU ticks over 500 ms: a spinning thread takes them all.
 */
static void test_out_of_fds(struct target *t)
{
	long tid = 0, ticks0, ticks1, wake0, wake1;
	struct rlimit lim;
	struct peer p;
	bool served;

	threads_named(t->pid, "sk-control", &tid);
	/* A soft limit the target can fill quickly. */
	lim = (struct rlimit){ 256, 256 };
	if (prlimit(t->pid, RLIMIT_NOFILE, &lim, NULL) ||
	    target_ask(t, 'M') != 'y') {
		tap_skip("cannot lower the target's descriptor limit", "out of descriptors");
		return;
	}
	peer_start(&p, t->pid, 0, "keys\n", 5, PEER_SHUT_WR);
	usleep(50 * 1000);
	ticks0 = cpu_ticks(t->pid, tid);
	wake0 = voluntary_switches(t->pid, tid);
	usleep(500 * 1000);
	ticks1 = cpu_ticks(t->pid, tid);
	wake1 = voluntary_switches(t->pid, tid);
	target_ask(t, 'm');
	served = closes_ok(peer_finish(&p, reply, sizeof(reply)));
	tap_diag("out of descriptors for 500 ms: the control thread's CPU %ld -> %ld ticks, voluntary switches %ld -> %ld",
		 ticks0, ticks1, wake0, wake1);
	tap_ok(ticks0 >= 0 && ticks1 - ticks0 <= 5 && wake1 - wake0 <= 12 && served,
	       "out of descriptors, the channel waits instead of spinning (%ld ticks, %ld wake-ups in 500 ms) and serves the pending peer once some are free",
	       ticks1 - ticks0, wake1 - wake0);
}

/*
 * A key's object unloaded between the lookup of a "set" and the change:
 * the target loads and unloads a plugin with a key in a loop while peers
 * set that key, on and off, as fast as they can.  Every reply must be the
 * change done or "no key" (the plugin was out), and the target must live.
 */
static void test_unload_race(struct target *t)
{
	int i, done = 0, absent = 0, other = 0;
	char last[256] = "";
	const char *r;
	int st;

	if (!HAVE_SITES) {
		tap_skip("no sites: keys are not found by name", "set while the key's object is unloaded");
		return;
	}
	if (target_ask(t, 'L') != 'y') {
		tap_ok(0, "the target starts its load/unload loop");
		return;
	}
	for (i = 0; i < 300 && waitpid(t->pid, &st, WNOHANG) == 0; i++) {
		r = ask(t->pid, 0, i % 2 ? "set ctl_plug_key off\n" :
					   "set ctl_plug_key on\n");
		if (starts(r, "ok ctl_plug_key "))
			done++;
		else if (starts(r, "error: no key ctl_plug_key"))
			absent++;
		else {
			other++;
			snprintf(last, sizeof(last), "%s", r);
		}
	}
	tap_diag("300 sets, the plugin unloaded as each looks its key up: %d done, %d while it was out, %d else%s%s",
		 done, absent, other, other ? ": " : "", last);
	tap_ok(i == 300 && target_ask(t, 'l') == '0' && other == 0 && done > 0,
	       "a key whose object is unloaded and loaded again meanwhile: each set is done or finds no key, the program lives (%d, %d)",
	       done, absent);
}

/*
 * Another process binds the name first: the program's start fails with
 * EADDRINUSE, and statickeys-keys refuses the socket it reaches, which
 * the pid it was given does not hold.
 */
static void test_squatter(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *runner = getenv("RUNNER");
	int go[2], back[2], fd, n, st, ret = 0;
	char cmd[600], out[600] = "";
	bool tool_ok = false;
	pid_t p;
	FILE *f;

	if (pipe2(go, O_CLOEXEC) || pipe2(back, O_CLOEXEC))
		abort();
	fflush(NULL);
	p = fork();
	if (p == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		ret = statickeys_control_start();
		if (write(back[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
		_exit(read(go[0], &c, 1) < 0);
	}
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "statickeys-control.%d", (int)p);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) ||
	    listen(fd, 4) || write(go[1], "g", 1) != 1 ||
	    read(back[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = 1;
	snprintf(cmd, sizeof(cmd), "%s %s %d --set ctl_key=on 2>&1",
		 runner ? runner : "", KEYS_TOOL, (int)p);
	f = popen(cmd, "r");
	if (f) {
		n = (int)fread(out, 1, sizeof(out) - 1, f);
		out[n > 0 ? n : 0] = '\0';
		tool_ok = pclose(f) != 0 && strstr(out, "is held by process") &&
			  strstr(out, ": not used");
	}
	close(go[1]);
	waitpid(p, &st, 0);
	close(fd);
	close(go[0]);
	close(back[0]);
	close(back[1]);
	tap_ok(ret == -EADDRINUSE, "a name another process holds: statickeys_control_start() returns -EADDRINUSE");
	tap_ok(tool_ok, "statickeys-keys refuses a socket that the pid it was given does not hold");
	if (!tool_ok)
		show("statickeys-keys", out);
}

int main(void)
{
	const char *runner;
	struct target t;
	int c;

	tap_plan(29);
	if (geteuid()) {
		for (int i = 0; i < 27; i++)
			tap_skip("needs root to run peers of other users", "control %d", i);
		return tap_exit();
	}
	test_not_opted_in();
	test_permissions();
	test_squatter();
	if (!target_start(&t, 0, 1))
		abort();
	test_requests(&t);
	test_hostile(&t);
	test_many(&t);
	test_idle(&t);
	test_out_of_fds(&t);
	test_unload_race(&t);
	c = target_ask(&t, 'f');
	tap_ok(c == 'y' && set_obeyed(&t, 0),
	       "fork(): the child has no control thread and no channel; the parent still serves");
	if (c != 'y')
		tap_diag("the child said '%c' (t: a thread, c: a channel)", c);
	/* qemu-user 7.2 aborts on a thread created in such a child. */
	runner = getenv("RUNNER");
	if (runner && *runner) {
		tap_skip("under an emulator: qemu-user aborts on pthread_create() in a child of a threaded process",
			 "fork(): the child opens a channel of its own");
	} else {
		c = target_ask(&t, 'F');
		tap_ok(c == 'y', "fork(): the child opens a channel of its own with statickeys_control_start()");
		if (c != 'y')
			tap_diag("the child said '%c' (s: none of its own)", c);
	}
	target_stop(&t);
	return tap_exit();
}
