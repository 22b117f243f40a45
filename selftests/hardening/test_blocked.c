// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The blocked-SIGTRAP check where it cannot be made as usual: the first
 * change of a process (no write method chosen yet), a descriptor table
 * with no room for /proc/self/task, and a root without /proc.  A thread
 * that blocks SIGTRAP and runs a site holding INT3 takes the process down,
 * so each case runs in a child: a refused change leaves it alive, a change
 * let through without the check kills it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

DEFINE_STATIC_KEY_FALSE(k_blk);

SITE(s_blk, static_branch_unlikely(&k_blk))

static int (*volatile run_blk)(void) = s_blk;

static int stop, started;

/* A daemon's worker: every signal blocked, or none, running the site. */
static void *worker(void *arg)
{
	sigset_t all;

	if (arg) {
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		run_blk();
	return NULL;
}

static int start_worker(pthread_t *t, bool blocks)
{
	if (pthread_create(t, NULL, worker, blocks ? (void *)1 : NULL))
		return -1;
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

static void stop_worker(pthread_t t)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
}

/* stderr to a file of its own, read back by count(). */
static char errpath[] = "/tmp/sk-blocked-XXXXXX";

static int capture_stderr(void)
{
	int fd = open(errpath, O_WRONLY | O_TRUNC);

	if (fd < 0 || dup2(fd, 2) < 0)
		return -1;
	close(fd);
	return 0;
}

/* How many times @what stands in what the child printed. */
static int count(const char *what)
{
	char buf[16384], *p;
	int fd = open(errpath, O_RDONLY), n = 0;
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	for (p = buf; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Fill the descriptor table but @spare entries (of a table of 32). */
static int fill_descriptors(int spare)
{
	struct rlimit r = { 32, 32 };
	int fd, last[8], n = 0;

	if (setrlimit(RLIMIT_NOFILE, &r))
		return -1;
	while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		last[n++ % 8] = fd;
	if (errno != EMFILE || n < spare)
		return -1;
	while (spare--)
		close(last[--n % 8]);
	return 0;
}

/*
 * The child's exit status: a bit per thing that went wrong.  @spare
 * descriptors are left free (-1: the table is not filled).
 */
#define BAD(bit)	(1 << (bit))

struct blk_case {
	int spare;
	const char *method;	/* STATICKEYS_TEXT_POKE, or NULL */
	int err;		/* the error the change must return */
};

static int blk_child(void *arg)
{
	const struct blk_case *c = arg;
	pthread_t t;
	int bad = 0, err, i;

	if (capture_stderr())
		return 100;
	if (c->method)
		setenv("STATICKEYS_TEXT_POKE", c->method, 1);
	if (start_worker(&t, true))
		return 101;
	if (c->spare >= 0 && fill_descriptors(c->spare))
		return 102;
	for (i = 0; i < 3; i++) {
		static_branch_enable(&k_blk);
		err = statickeys_last_error();
		bad |= err != c->err ? BAD(0) : 0;
		bad |= static_key_enabled(&k_blk) ? BAD(1) : 0;
	}
	stop_worker(t);
	bad |= run_blk() ? BAD(2) : 0;
	return bad;
}

static const char *blk_bad(int st)
{
	static char buf[160];

	if (st == 0 || st > 99) {
		snprintf(buf, sizeof(buf), "%s", hard_status(st));
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s%s%s",
		 st & BAD(0) ? "wrong error; " : "",
		 st & BAD(1) ? "key changed; " : "",
		 st & BAD(2) ? "site jumps; " : "");
	return buf;
}

static void test_first_change(void)
{
	struct blk_case c = { -1, NULL, EBUSY };
	int st = hard_child(blk_child, &c, 20);
	int n = count("blocks SIGTRAP");

	tap_ok(st == 0, "first change of the process, a worker blocking every signal: refused with EBUSY (not as a write method's failure), key and site unchanged (%s)",
	       blk_bad(st));
	tap_ok(n == 3, "the worker is named once a refused change, not once a method tried: %d messages for 3 changes",
	       n);
}

/* 0 if STATICKEYS_TEXT_POKE=procmem writes code in a fresh process here. */
static int procmem_child(void *arg)
{
	(void)arg;
	setenv("STATICKEYS_TEXT_POKE", "procmem", 1);
	static_branch_enable(&k_blk);
	return strcmp(statickeys_text_poke_method(), "procmem") ? 1 : 0;
}

static void test_no_descriptor(void)
{
	struct blk_case one = { 1, "procmem", EMFILE };
	struct blk_case none = { 0, "mprotect", EMFILE };
	int st;

	/* The case needs procmem (under qemu-user it is the emulator's memory). */
	if (hard_child(procmem_child, NULL, 20))
		tap_skip("procmem cannot write code here (under qemu-user /proc/self/mem is the emulator's memory)",
			 "procmem with one descriptor free");
	else {
		st = hard_child(blk_child, &one, 20);
		tap_ok(st == 0, "procmem with one descriptor free (taken by /proc/self/mem): the check cannot read /proc/self/task, the change is refused with EMFILE, the process lives (%s)",
		       blk_bad(st));
	}
	st = hard_child(blk_child, &none, 20);
	tap_ok(st == 0, "mprotect with no descriptor free: the check cannot read /proc/self/task, the change is refused with EMFILE, the process lives (%s)",
	       blk_bad(st));
}

/*
 * A root without /proc (chroot, as root only): the masks cannot be read.
 * The change goes through (a worker that takes SIGTRAP survives it), and
 * the library says once that it could not look.
 */
static int noproc_child(void *arg)
{
	char dir[] = "/tmp/sk-noproc-XXXXXX";
	pthread_t t;
	int bad = 0, i;

	(void)arg;
	if (capture_stderr() || !mkdtemp(dir) || chroot(dir) || chdir("/"))
		return 100;
	if (start_worker(&t, false))
		return 101;
	for (i = 0; i < 3; i++) {
		static_branch_enable(&k_blk);
		bad |= statickeys_last_error() || !static_key_enabled(&k_blk) ? BAD(0) : 0;
		static_branch_disable(&k_blk);
	}
	stop_worker(t);
	return bad;
}

static void test_no_proc(void)
{
	int st, n;

	if (geteuid()) {
		tap_skip("chroot() needs root", "a root without /proc");
		tap_skip("chroot() needs root", "a root without /proc: said once");
		return;
	}
	st = hard_child(noproc_child, NULL, 20);
	n = count("cannot be read");
	tap_ok(st == 0, "a root without /proc, a worker that takes SIGTRAP: 3 changes go through (%s)",
	       hard_status(st));
	tap_ok(n == 1, "and the library says once that it could not see the threads' masks: %d messages",
	       n);
}

int main(void)
{
	const int checks = 6;
	int fd, i;

	tap_plan(checks);
#if !defined(SK_TEST_X86) || !defined(CONFIG_JUMP_LABEL)
	for (i = 0; i < checks; i++)
		tap_skip("x86 with CONFIG_JUMP_LABEL=y only: no other site ever traps",
			 "blocked SIGTRAP %d", i + 1);
	return tap_exit();
#endif
#ifdef __SANITIZE_THREAD__
	for (i = 0; i < checks; i++)
		tap_skip("ThreadSanitizer's own thread blocks every signal",
			 "blocked SIGTRAP %d", i + 1);
	return tap_exit();
#endif
	(void)i;
	fd = mkstemp(errpath);
	if (fd < 0)
		return tap_ok(0, "mkstemp %s", errpath), tap_exit();
	close(fd);
	test_first_change();
	test_no_descriptor();
	test_no_proc();
	unlink(errpath);
	return tap_exit();
}
