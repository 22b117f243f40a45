// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The control channel: an abstract Unix socket "@statickeys-control.<pid>"
 * and one thread that serves it, both made only when the program asks
 * (statickeys_control_start(), or STATICKEYS_CONTROL=1).  Who may use it is
 * decided by the kernel's word on the peer (SO_PEERCRED), never by what
 * the peer sends: root, or the process's own user while the process is
 * dumpable, which is what ptrace would allow (Documentation/control.rst
 * says where it differs).
 *
 * The thread sleeps in poll() with no timeout while nobody is connected.
 * Each connection has a deadline for its request, and its reply another;
 * up to CONTROL_CLIENTS are read at once, so that a slow peer delays no
 * other beyond its reply's time, and never one of the program's threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/control.h>
#include "control.h"
#include "control_internal.h"
#include "object_hooks.h"
#include "../lib/lifecycle.h"
#include "../lib/thread.h"
#include "../lib/warn.h"

#define CONTROL_CLIENTS		16	/* connections read at once */
#define CONTROL_DEADLINE_MS	2000	/* from accept() to the whole request */
#define CONTROL_REPLY_MS	1000	/* to send the reply */
#define CONTROL_BACKLOG		32

struct client {
	int fd;				/* -1: the slot is free */
	struct ucred cred;
	long long deadline;		/* CLOCK_MONOTONIC, in ms */
	size_t len;
	char buf[SK_CONTROL_LINE_MAX];
};

/*
 * control_lock orders start against fork(); the fds below are the
 * thread's, and a child of fork() closes its copies (control_child()).
 */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static int listen_fd = -1;
static struct client *clients;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * As ptrace_may_access() for a peer without CAP_SYS_PTRACE: its uid and
 * gid are each of ours (real, effective, saved) and we are dumpable.  uid
 * 0 stands for the capability, which SO_PEERCRED does not carry.
 */
static bool peer_may_control(const struct ucred *c)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (c->uid == 0)
		return true;
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return false;
	if (c->uid != ru || c->uid != eu || c->uid != su ||
	    c->gid != rg || c->gid != eg || c->gid != sg)
		return false;
	return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
}

/* Send @len bytes by @deadline; a peer that does not read loses them. */
static void send_all(int fd, const char *p, size_t len, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len) {
		long long left = deadline - now_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return;
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
}

static void client_close(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	c->len = 0;
}

/*
 * The reply has its own time: a peer that stops reading holds the thread
 * that long at most (other peers wait, the program's threads never do).
 */
static void client_reply_close(struct client *c, const char *text, size_t len)
{
	send_all(c->fd, text, len, now_ms() + CONTROL_REPLY_MS);
	client_close(c);
}

static void client_refuse(struct client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void client_refuse(struct client *c, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "error: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - 2 - n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	sk_warn("control: pid %d uid %d: %s", (int)c->cred.pid,
		(int)c->cred.uid, line + 7);
	strcpy(line + n, "\n");
	client_reply_close(c, line, (size_t)n + 1);
}

/* A whole line is in: parse, run, reply, close. */
static void client_request(struct client *c, size_t len)
{
	static struct sk_control_req req;	/* the thread's alone */
	char why[512], who[64];
	char *reply = NULL;
	size_t size = 0;
	FILE *out;

	if (sk_control_parse(c->buf, len, &req, why, sizeof(why))) {
		client_refuse(c, "%s", why);
		return;
	}
	snprintf(who, sizeof(who), "pid %d uid %d", (int)c->cred.pid,
		 (int)c->cred.uid);
	out = open_memstream(&reply, &size);
	if (!out) {
		client_refuse(c, "out of memory");
		return;
	}
	sk_control_run(out, &req, who);
	fclose(out);
	client_reply_close(c, reply, size);
	free(reply);
}

/* Readable: take what came, up to the line's end or the size cap. */
static void client_read(struct client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len,
			 MSG_DONTWAIT);
	char *nl;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->len)
			client_refuse(c, "the request ended without a newline");
		else
			client_close(c);
		return;
	}
	nl = memchr(c->buf + c->len, '\n', (size_t)n);
	c->len += (size_t)n;
	if (nl)
		client_request(c, (size_t)(nl - c->buf));
	else if (c->len == sizeof(c->buf))
		client_refuse(c, "request longer than %d bytes", SK_CONTROL_LINE_MAX - 1);
}

/*
 * Out of descriptors or memory, the pending connection stays readable:
 * stop accepting for a while instead of spinning.
 */
#define CONTROL_PAUSE_MS	100
static long long accept_paused_until;

static void client_accept(void)
{
	struct client *c = NULL;
	socklen_t len = sizeof(struct ucred);
	unsigned int i;
	int fd;

	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			accept_paused_until = now_ms() + CONTROL_PAUSE_MS;
		return;
	}
	for (i = 0; i < CONTROL_CLIENTS && !c; i++)
		if (clients[i].fd < 0)
			c = &clients[i];
	if (!c) {		/* never: the socket is not polled when full */
		close(fd);
		return;
	}
	c->fd = fd;
	c->len = 0;
	c->deadline = now_ms() + CONTROL_DEADLINE_MS;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len)) {
		c->cred = (struct ucred){ .pid = 0, .uid = -1, .gid = -1 };
		client_refuse(c, "the peer's credentials cannot be read");
	} else if (!peer_may_control(&c->cred)) {
		client_refuse(c, "permission denied: uid %d may not control process %d (root, or its own user while it is dumpable)",
			      (int)c->cred.uid, (int)getpid());
	}
}

static void *control_thread(void *arg)
{
	struct pollfd pfd[1 + CONTROL_CLIENTS];
	unsigned int i, busy;
	long long now, timeout;

	(void)arg;
	for (;;) {
		busy = 0;
		timeout = -1;		/* idle: sleep until someone connects */
		now = now_ms();
		for (i = 0; i < CONTROL_CLIENTS; i++) {
			struct client *c = &clients[i];

			pfd[1 + i] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
			if (c->fd < 0)
				continue;
			busy++;
			if (timeout < 0 || c->deadline - now < timeout)
				timeout = c->deadline - now > 0 ? c->deadline - now : 0;
		}
		/* Every slot taken: the others wait in the backlog. */
		pfd[0] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		if (busy == CONTROL_CLIENTS)
			pfd[0].events = 0;
		if (accept_paused_until > now) {
			pfd[0].events = 0;
			if (timeout < 0 || accept_paused_until - now < timeout)
				timeout = accept_paused_until - now;
		}
		if (poll(pfd, 1 + CONTROL_CLIENTS, (int)timeout) < 0)
			continue;
		now = now_ms();
		for (i = 0; i < CONTROL_CLIENTS; i++) {
			struct client *c = &clients[i];

			if (c->fd < 0)
				continue;
			if (pfd[1 + i].revents)
				client_read(c);
			else if (now >= c->deadline)
				client_refuse(c, "no whole request within %d ms",
					      CONTROL_DEADLINE_MS);
		}
		if (pfd[0].revents & POLLIN)
			client_accept();
	}
	return NULL;
}

static int control_bind(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, n;

	/* Abstract: sun_path[0] is NUL and the name is not terminated. */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "statickeys-control.%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) ||
	    listen(fd, CONTROL_BACKLOG)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

SK_EXPORT int statickeys_control_start(void)
{
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&control_lock);
	if (listen_fd >= 0)
		goto out;
	if (!clients) {
		clients = calloc(CONTROL_CLIENTS, sizeof(*clients));
		if (!clients) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < CONTROL_CLIENTS; i++)
		clients[i].fd = -1;
	ret = control_bind();
	if (ret < 0)
		goto out;
	listen_fd = ret;
	ret = sk_thread_start(control_thread, "sk-control");
	if (ret) {
		close(listen_fd);
		listen_fd = -1;
	}
out:
	pthread_mutex_unlock(&control_lock);
	return ret;
}

/*
 * ---- fork(): the child has no thread, so no channel ----
 *
 * control_lock and the private keys' lock are leaves: nothing is locked
 * while they are held.  Their entry is at the bottom level, so prepare
 * takes them after every other lock of the fork (a thread that forks
 * holding jump_label_mutex never waits for them while another forking
 * thread holds one and waits for jump_label_mutex).
 */

static void control_prepare(void)
{
	pthread_mutex_lock(&control_lock);
	sk_control_private_prepare();
}

static void control_parent(void)
{
	sk_control_private_parent();
	pthread_mutex_unlock(&control_lock);
}

/*
 * The child closes its copies of the socket and of the connections (a
 * peer waits for the parent's reply, not the child's), and may open a
 * channel of its own, under its own pid, with statickeys_control_start().
 */
static void control_child(void)
{
	unsigned int i;

	sk_control_private_child();
	if (listen_fd >= 0) {
		close(listen_fd);
		listen_fd = -1;
		for (i = 0; i < CONTROL_CLIENTS; i++)
			if (clients[i].fd >= 0)
				client_close(&clients[i]);
	}
	pthread_mutex_init(&control_lock, NULL);
}

SK_LIFECYCLE(control, SK_LC_CONTROL, control_prepare, control_parent,
	     control_child);

/* STATICKEYS_CONTROL=1: open the channel once the program has registered. */
static void control_object_ready(const struct statickeys_object *d,
				 bool main_program)
{
	const char *env;
	int err;

	(void)d;
	if (!main_program)
		return;
	env = secure_getenv("STATICKEYS_CONTROL");
	if (!env || !*env || !strcmp(env, "0"))
		return;
	if (strcmp(env, "1")) {
		sk_warn("STATICKEYS_CONTROL=%s: not 1 or 0: no control channel", env);
		return;
	}
	err = statickeys_control_start();
	if (err)
		sk_warn("STATICKEYS_CONTROL=1: no control channel: %s", strerror(-err));
}

SK_OBJECT_HOOK(control_object_hook) = {
	.order = SK_HOOK_LAST,
	.ready = control_object_ready,
};
