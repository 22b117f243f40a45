// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The library inside processes as real programs are: a daemon that closes
 * every descriptor, plugins loaded while keys change, counts moved by many
 * threads at once, deferred keys in an object that goes away, a program
 * with its own SIGTRAP handler, and a sandbox that takes away the means to
 * serialize.  Each case runs in a child with a deadline.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

DEFINE_STATIC_KEY_FALSE(k_first);	/* chooses the write method */
DEFINE_STATIC_KEY_FALSE(k_fd);
DEFINE_STATIC_KEY_FALSE(k_count);
DEFINE_STATIC_KEY_DEFERRED_FALSE(k_deferred, 1);
DEFINE_STATIC_KEY_FALSE_RO(k_ro);
DEFINE_STATIC_KEY_FALSE(k_trap);
DEFINE_STATIC_KEY_FALSE(k_sync);
DEFINE_STATIC_KEY_FALSE(k_cancel);
DEFINE_STATIC_KEY_FALSE(k_sig);
DEFINE_STATIC_KEY_FALSE(k_blk);

SITE(s_first, static_branch_unlikely(&k_first))
SITE(s_fd, static_branch_unlikely(&k_fd))
SITE(s_count, static_branch_unlikely(&k_count))
SITE(s_deferred, static_branch_unlikely(&k_deferred.key))
SITE(s_ro, static_branch_unlikely(&k_ro))
SITE(s_trap, static_branch_unlikely(&k_trap))
SITE(s_sync, static_branch_unlikely(&k_sync))
SITE(s_cancel, static_branch_unlikely(&k_cancel))
SITE(s_sig, static_branch_unlikely(&k_sig))
SITE(s_blk, static_branch_unlikely(&k_blk))

static int (*volatile run_first)(void) = s_first;
static int (*volatile run_fd)(void) = s_fd;
static int (*volatile run_ro)(void) = s_ro;
static int (*volatile run_trap)(void) = s_trap;
static int (*volatile run_count)(void) = s_count;
static int (*volatile run_deferred)(void) = s_deferred;
static int (*volatile run_sync)(void) = s_sync;
static int (*volatile run_cancel)(void) = s_cancel;
static int (*volatile run_sig)(void) = s_sig;
static int (*volatile run_blk)(void) = s_blk;

/* Bits a child sets in its exit status, one per thing that went wrong. */
#define BAD(bit)	(1 << (bit))

static bool procmem(void)
{
	static_branch_enable(&k_first);
	static_branch_disable(&k_first);
	if (run_first() || run_ro() || run_trap())
		return false;
	return !strcmp(statickeys_text_poke_method(), "procmem");
}

/* ---- 1. descriptors closed (and reused) under the library ---- */

/* arg: NULL, "reuse" (a file takes the number), "procmem" (the program's own /proc/self/mem, read-only) */
static int fd_child(void *arg)
{
	bool reuse = arg != NULL;
	bool own = reuse && !strcmp(arg, "procmem");
	char path[] = "/tmp/statickeys-fd-XXXXXX";
	struct stat st;
	int fd = -1, lib = -1, bad = 0;

	if (!procmem())
		return 77;
	hard_held_fd("mem", &lib);
	/* What a daemon does at start-up: close everything above stderr. */
	if (syscall(SYS_close_range, 3U, ~0U, 0))
		return 78;
	if (own) {
		fd = open("/proc/self/mem", O_RDONLY);
	} else if (reuse) {
		fd = mkstemp(path);
		unlink(path);
	}
	/* on the number of the library's /proc/self/mem descriptor */
	if (fd >= 0 && lib >= 0 && fd != lib) {
		if (dup2(fd, lib) != lib)
			return 79;
		close(fd);
		fd = lib;
	}
	static_branch_enable(&k_fd);
	if (statickeys_last_error() || !static_key_enabled(&k_fd))
		bad |= BAD(0);
	if (run_fd() != 1)
		bad |= BAD(1);
	static_branch_disable(&k_fd);
	if (statickeys_last_error() || run_fd() != 0)
		bad |= BAD(2);
	if (reuse && !own && (fstat(fd, &st) || st.st_size != 0))
		bad |= BAD(3);	/* instruction bytes went into the file */
	if (own && fcntl(fd, F_GETFD) < 0)
		bad |= BAD(4);	/* the program's descriptor was closed */
	return bad;
}

static void test_descriptors(void)
{
	int st = hard_child(fd_child, NULL, 20);

	if (st == 77 || st == 78) {
		tap_skip(st == 77 ? "write method is not procmem here" :
			 "close_range() not available",
			 "descriptor closed under the library: next change works");
		tap_skip(st == 77 ? "write method is not procmem here" :
			 "close_range() not available",
			 "descriptor number reused by a file: the file is untouched");
		tap_skip(st == 77 ? "write method is not procmem here" :
			 "close_range() not available",
			 "the program's own /proc/self/mem on that number");
		return;
	}
	tap_ok(st == 0, "descriptor closed under the library: next change works and flips the site (%s)",
	       hard_status(st));
	st = hard_child(fd_child, "reuse", 20);
	tap_ok(st == 0, "descriptor number reused by a file: the file is untouched, the site flips (%s)",
	       hard_status(st));
	st = hard_child(fd_child, "procmem", 20);
	tap_ok(st == 0, "the program's own read-only /proc/self/mem on that number: changes work, its descriptor stays (%s)",
	       hard_status(st));
}

/*
 * closefrom() between two changes: the next change opens one of each
 * again, the change after it opens nothing (the same numbers are held).
 */
static int reopen_child(void *arg)
{
	int m0 = -1, t0 = -1, m1 = -1, t1 = -1, bad = 0, task;

	(void)arg;
	if (!procmem())
		return 77;
	/* /proc/self/task is held only where unshare(CLONE_VM) is refused. */
	task = unshare(CLONE_VM) && errno != EINVAL;
	if (hard_held_fd("mem", &m0) != 1 || hard_held_fd("task", &t0) != task)
		bad |= BAD(0);	/* not held between changes */
	if (syscall(SYS_close_range, 3U, ~0U, 0))
		return 78;
	static_branch_enable(&k_fd);
	if (statickeys_last_error() || run_fd() != 1)
		bad |= BAD(1);
	if (hard_held_fd("mem", &m0) != 1 || hard_held_fd("task", &t0) != task)
		bad |= BAD(2);	/* not reopened, or opened twice */
	static_branch_disable(&k_fd);
	if (statickeys_last_error() || run_fd() != 0)
		bad |= BAD(3);
	if (hard_held_fd("mem", &m1) != 1 || hard_held_fd("task", &t1) != task ||
	    m1 != m0 || t1 != t0)
		bad |= BAD(4);	/* opened again though nothing was closed */
	return bad;
}

/*
 * A fork() child changes a key: its own code flips, the parent's does not
 * (a write through the parent's descriptor would land in the parent).
 */
static int fork_writer(void *arg)
{
	(void)arg;
	static_branch_enable(&k_fd);
	return statickeys_last_error() || run_fd() != 1;
}

static int fork_child_case(void *arg)
{
	int bad = 0;

	(void)arg;
	if (!procmem())
		return 77;
	if (tap_fork(fork_writer, NULL) != 0)
		bad |= BAD(0);
	if (run_fd() != 0 || static_key_enabled(&k_fd))
		bad |= BAD(1);	/* the child wrote into the parent */
	static_branch_enable(&k_fd);
	if (statickeys_last_error() || run_fd() != 1)
		bad |= BAD(2);
	static_branch_disable(&k_fd);
	return bad;
}

/* exec: the new program finds none of the library's descriptors. */

static int exec_child(void *arg)
{
	(void)arg;
	if (!procmem())
		return 77;
	hard_exec_self("test_process", "count-held");
	return 79;
}

static void test_held_descriptors(void)
{
	int st = hard_child(reopen_child, NULL, 20);

	if (st == 77 || st == 78) {
		tap_skip("write method is not procmem here, or no close_range()",
			 "closefrom() between two changes costs a reopen");
		tap_skip("write method is not procmem here",
			 "a fork() child never writes through the parent's descriptor");
		tap_skip("write method is not procmem here",
			 "exec leaks no descriptor");
		return;
	}
	tap_ok(st == 0, "two descriptors held between changes; closefrom() between two changes costs one reopen of each, and nothing after (%s)",
	       hard_status(st));
	st = hard_child(fork_child_case, NULL, 20);
	tap_ok(st == 0, "a fork() child's change flips its own code, never the parent's (%s)",
	       hard_status(st));
	st = hard_child(exec_child, NULL, 20);
	tap_ok(st == 0, "exec after a change: the new program holds none of the library's descriptors (%s)",
	       hard_status(st));
}

/* ---- 2. the loader's lock ---- */

static volatile int stop_loading;

static void *load_loop(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 400 && !stop_loading; i++) {
		void *h = dlopen(HARD_PLUGIN, RTLD_NOW | RTLD_LOCAL);

		if (!h)
			return (void *)1;
		dlclose(h);
	}
	return NULL;
}

/*
 * A refused change names the key (the loader is asked for its symbol) while
 * another thread's dlopen()/dlclose() runs the plugin's constructor and
 * destructor, which take the library's lock with the loader's held.
 */
static int loader_child(void *arg)
{
	pthread_t t;
	void *ret;
	int i;

	(void)arg;
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	if (pthread_create(&t, NULL, load_loop, NULL))
		return 3;
	for (i = 0; i < 400; i++) {
		static_branch_enable(&k_ro);	/* refused: read-only */
		statickeys_seal();
	}
	pthread_join(t, &ret);
	return ret ? 4 : 0;
}

static void test_loader_lock(void)
{
	int st = hard_child(loader_child, NULL, 60);

	tap_ok(st == 0, "refusals naming keys while plugins load and unload: no deadlock (%s)",
	       hard_status(st));
}

/* ---- 3. reference counts ---- */

#define COUNT_LOOPS	100000

static void *fast_user(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < COUNT_LOOPS; i++)
		if (static_key_fast_inc_not_disabled(&k_count.key))
			static_key_slow_dec(&k_count.key);
	return NULL;
}

static void *slow_user(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < COUNT_LOOPS / 4; i++) {
		static_branch_inc(&k_count);
		static_branch_dec(&k_count);
	}
	return NULL;
}

static void *deferred_user(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < COUNT_LOOPS / 10; i++) {
		static_branch_inc(&k_deferred.key);
		static_branch_slow_dec_deferred(&k_deferred);
	}
	return NULL;
}

static void test_counts(void)
{
	pthread_t t[4];
	int i, n, wait;

	static_branch_inc(&k_count);		/* the test's own reference */
	pthread_create(&t[0], NULL, fast_user, NULL);
	pthread_create(&t[1], NULL, fast_user, NULL);
	pthread_create(&t[2], NULL, slow_user, NULL);
	pthread_create(&t[3], NULL, slow_user, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	n = static_key_count(&k_count.key);
	tap_ok(n == 1, "fast and slow increments from 4 threads: count %d, expected 1", n);
	static_branch_dec(&k_count);
	tap_ok(statickeys_last_error() == 0 && !static_key_enabled(&k_count) &&
	       run_count() == 0,
	       "the test's own reference drops last: key off, site off (error %d)",
	       statickeys_last_error());

	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, deferred_user, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* Delayed by 1 ms: flush, then give the worker a bounded while. */
	static_key_deferred_flush(&k_deferred);
	for (wait = 0; wait < 2000 && static_key_count(&k_deferred.key.key);
	     wait++)
		usleep(1000);
	n = static_key_count(&k_deferred.key.key);
	tap_ok(n == 0 && run_deferred() == 0,
	       "deferred keys used from 3 threads: count %d and site off once every user left",
	       n);
}

/* ---- 6. deferred work in an object that goes away ---- */

static int unload_child(void *arg)
{
	void (*use)(void);
	void *h;

	(void)arg;
	h = dlopen(HARD_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 2;
	use = (void (*)(void))dlsym(h, "plugin_use_and_drop");
	if (!use)
		return 3;
	use();			/* a decrement now pending for 50 ms */
	dlclose(h);		/* ... in memory that is unmapped now */
	usleep(200 * 1000);	/* the worker would have run it by now */
	h = dlopen(HARD_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 4;
	dlclose(h);
	return 0;
}

static void test_deferred_unload(void)
{
	int st = hard_child(unload_child, NULL, 20);

	tap_ok(st == 0, "dlclose() with a delayed decrement pending in the object: the process lives on (%s)",
	       hard_status(st));
}

/* ---- 7. the program's own SIGTRAP handler ---- */

static volatile int h0_calls, h_calls;
static struct sigaction h_old;

static void h0(int sig)
{
	(void)sig;
	h0_calls++;
}

/* A polite handler: it passes what it does not own to its predecessor. */
static void h(int sig, siginfo_t *info, void *uc)
{
	h_calls++;
	hard_chain(&h_old, sig, info, uc);
}

static int chain_child(void *arg)
{
	struct sigaction sa;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h0;
	sigaction(SIGTRAP, &sa, NULL);
	static_branch_enable(&k_trap);		/* the library installs itself */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &h_old);	/* ... and is replaced */
	static_branch_disable(&k_trap);		/* ... and installs itself again */
	raise(SIGTRAP);				/* a trap nobody patched */
	return (h_calls == 1 ? 0 : BAD(0)) | (h0_calls == 1 ? 0 : BAD(1)) |
	       (!statickeys_last_error() ? 0 : BAD(2));
}

#define NR_COMPONENTS	24

static volatile int comp_calls[NR_COMPONENTS];
static struct sigaction comp_old[NR_COMPONENTS];

/* Component @i's handler: counts, then passes to the predecessor it saved. */
#define COMPONENT(i)							\
static void comp_##i(int sig, siginfo_t *info, void *uc)		\
{									\
	comp_calls[i]++;						\
	if (comp_old[i].sa_flags & SA_SIGINFO)				\
		comp_old[i].sa_sigaction(sig, info, uc);		\
	else if (comp_old[i].sa_handler == h0)				\
		h0(sig);						\
}
#define C4(a, b, c, d)	COMPONENT(a) COMPONENT(b) COMPONENT(c) COMPONENT(d)
C4(0, 1, 2, 3) C4(4, 5, 6, 7) C4(8, 9, 10, 11) C4(12, 13, 14, 15)
C4(16, 17, 18, 19) C4(20, 21, 22, 23)

static void (*const comps[NR_COMPONENTS])(int, siginfo_t *, void *) = {
	comp_0, comp_1, comp_2, comp_3, comp_4, comp_5, comp_6, comp_7,
	comp_8, comp_9, comp_10, comp_11, comp_12, comp_13, comp_14, comp_15,
	comp_16, comp_17, comp_18, comp_19, comp_20, comp_21, comp_22, comp_23,
};

/*
 * Many components each install a chaining handler once, with a key change
 * after each, and the last one re-asserts its handler after every change:
 * one raise() runs each handler once, the first program handler last.
 */
static int components_child(void *arg)
{
	struct sigaction sa;
	int i, bad = 0;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h0;
	sigaction(SIGTRAP, &sa, NULL);
	for (i = 0; i < NR_COMPONENTS; i++) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = comps[i];
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGTRAP, &sa, &comp_old[i]);
		static_branch_enable(&k_trap);
		static_branch_disable(&k_trap);
	}
	for (i = 0; i < 5; i++) {	/* the last component re-asserts */
		sigaction(SIGTRAP, &sa, NULL);
		static_branch_enable(&k_trap);
		static_branch_disable(&k_trap);
	}
	raise(SIGTRAP);
	for (i = 0; i < NR_COMPONENTS; i++)
		bad += comp_calls[i] != 1;
	return bad + (h0_calls != 1);
}

static void test_trap_chain(void)
{
	int st = hard_child(chain_child, NULL, 20);

	tap_ok(st == 0, "a foreign SIGTRAP reaches each of the program's chained handlers exactly once (%s)",
	       hard_status(st));
	h0_calls = 0;
	st = hard_child(components_child, NULL, 20);
	tap_ok(st == 0, "%d components' chained handlers, one re-asserted 5 times: each runs once per trap (%s)",
	       NR_COMPONENTS, hard_status(st));
}

/*
 * A plugin that installs a SIGTRAP handler when it is loaded and puts its
 * predecessor back when it is unloaded, with key changes in between: while
 * it is loaded a trap reaches it and then the program's handler; once it is
 * gone, only the program's handler, before the next key change and after.
 * The disposition it puts back is the library's as the C library reported
 * it (on i386, glibc keeps SA_RESTORER but passes no restorer).
 */
static int plugin_trap_child(void *arg)
{
	struct sigaction sa;
	int (*calls)(void);
	int bad = 0;
	void *p;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h0;
	sigaction(SIGTRAP, &sa, NULL);
	static_branch_enable(&k_trap);		/* the library over h0 */
	p = dlopen(HARD_TRAP_PLUGIN, RTLD_NOW);	/* the plugin over it */
	calls = p ? (int (*)(void))dlsym(p, "trap_plugin_calls") : NULL;
	if (!calls)
		return BAD(7);
	static_branch_disable(&k_trap);		/* the library over the plugin */
	raise(SIGTRAP);
	bad |= calls() == 1 ? 0 : BAD(0);
	bad |= h0_calls == 1 ? 0 : BAD(1);
	dlclose(p);				/* the plugin puts the library back */
	raise(SIGTRAP);				/* as it put it, no change since */
	bad |= h0_calls == 2 ? 0 : BAD(2);
	static_branch_enable(&k_trap);
	raise(SIGTRAP);
	bad |= h0_calls == 3 ? 0 : BAD(3);
	return bad;
}

/*
 * What a foreign SIGTRAP must do with the library's handler installed, the
 * same as without it: @base is the program's disposition before the first
 * key change, @late a polite handler installed after it (or none), @how
 * raise() or an int3 in the program's own code.
 */
struct trap_case {
	const char *what;
	void (*base)(int);
	bool late, int3;
	int status;		/* the child's, as without the library */
};

static const struct trap_case trap_cases[] = {
	{ "SIG_DFL, raise(): killed by SIGTRAP", SIG_DFL, false, false, 128 + SIGTRAP },
	{ "SIG_IGN, raise(): ignored", SIG_IGN, false, false, 0 },
	{ "SIG_IGN, an int3: killed by SIGTRAP (the kernel forces it)", SIG_IGN, false, true, 128 + SIGTRAP },
	{ "a chaining handler installed after the library's, over SIG_DFL, raise(): it runs once, the process lives",
	  SIG_DFL, true, false, 0 },
	{ "the same, an int3: it runs once, the thread goes on after the int3",
	  SIG_DFL, true, true, 0 },
};

static int trap_case_child(void *arg)
{
	const struct trap_case *c = arg;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = c->base;
	sigaction(SIGTRAP, &sa, NULL);
	static_branch_enable(&k_trap);		/* the library over @base */
	static_branch_disable(&k_trap);
	if (c->late) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = h;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGTRAP, &sa, &h_old);
	}
#ifdef SK_TEST_X86
	if (c->int3)
		__asm__ volatile("int3");
	else
#endif
		raise(SIGTRAP);
	return c->late && h_calls != 1 ? 1 : 0;
}

static void test_foreign_traps(void)
{
	size_t i;
	int st;

	st = hard_child(plugin_trap_child, NULL, 20);
	tap_ok(st == 0, "a plugin's SIGTRAP handler, put back at dlclose(): the next trap reaches the program's only (%s)",
	       hard_status(st));
	for (i = 0; i < sizeof(trap_cases) / sizeof(trap_cases[0]); i++) {
#ifndef SK_TEST_X86
		if (trap_cases[i].int3) {
			/* arm64's BRK is not stepped over: a handler meets it again */
			tap_skip("x86 only: an int3 the thread goes on after",
				 "foreign SIGTRAP, %s", trap_cases[i].what);
			continue;
		}
#endif
		st = hard_child(trap_case_child, (void *)&trap_cases[i], 20);
		tap_ok(st == trap_cases[i].status, "foreign SIGTRAP, %s (%s)",
		       trap_cases[i].what, hard_status(st));
	}
}

/* ---- cancellation in the middle of a change ---- */

static void *cancel_toggler(void *arg)
{
	(void)arg;
	for (;;) {
		static_branch_enable(&k_cancel);
		static_branch_disable(&k_cancel);
	}
	return NULL;
}

static int cancel_child(void *arg)
{
	pthread_t t;
	pid_t pid;
	int st;

	(void)arg;
	if (pthread_create(&t, NULL, cancel_toggler, NULL))
		return 2;
	usleep(20000);
	pthread_cancel(t);
	pthread_join(t, NULL);	/* a hang here is the failure */
	static_branch_enable(&k_cancel);
	if (statickeys_last_error() || run_cancel() != 1)
		return 3;
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 4;
	static_branch_disable(&k_cancel);
	return statickeys_last_error() || run_cancel() != 0 ? 5 : 0;
}

static void test_cancel(void)
{
	int st = hard_child(cancel_child, NULL, 20);

	tap_ok(st == 0, "a toggling thread cancelled mid-change: it stops, and changes and fork() work after (%s)",
	       hard_status(st));
}

/* ---- sites run from a signal handler ---- */

static volatile int sig_stop;
static volatile unsigned long sig_runs;

static void usr1(int sig)
{
	(void)sig;
	run_sig();
	sig_runs++;
}

static void *sig_runner(void *arg)
{
	(void)arg;
	while (!sig_stop)
		run_sig();
	return NULL;
}

static void *sig_toggler(void *arg)
{
	(void)arg;
	while (!sig_stop) {
		static_branch_enable(&k_sig);
		static_branch_disable(&k_sig);
	}
	return NULL;
}

/*
 * A SIGUSR1 handler that runs a site may interrupt the library's SIGTRAP
 * handler, and meet an INT3 there.
 */
static int sig_child(void *arg)
{
	pthread_t r[2], t;
	int i, j;

	(void)arg;
	signal(SIGUSR1, usr1);
	for (i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, sig_runner, NULL);
	pthread_create(&t, NULL, sig_toggler, NULL);
	for (j = 0; j < 20000; j++)
		for (i = 0; i < 2; i++)
			pthread_kill(r[i], SIGUSR1);
	sig_stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	pthread_join(t, NULL);
	return 0;
}

/*
 * Whether sites trap here: x86 with CONFIG_JUMP_LABEL=y, not under
 * ThreadSanitizer (@tsan says why).  If not, check @what is skipped.
 */
static bool sites_trap(const char *what, const char *tsan)
{
#if !defined(SK_TEST_X86) || !defined(CONFIG_JUMP_LABEL)
	/* (and qemu-user's signal emulation does not survive the storms) */
	tap_skip("x86 with CONFIG_JUMP_LABEL=y only: no other site ever traps",
		 "%s", what);
	return false;
#endif
#ifdef __SANITIZE_THREAD__
	tap_skip(tsan, "%s", what);
	return false;
#endif
	(void)what;
	(void)tsan;
	return true;
}

static void test_site_in_signal_handler(void)
{
	int st;

	if (!sites_trap("sites run from a signal handler while keys change",
			"ThreadSanitizer runs asynchronous signal handlers at its own points, with SIGTRAP blocked"))
		return;
	/*
	 * qemu-user itself aborts in this storm of signals while threads trap
	 * (an assertion in its RCU or plugin code, "rcu_read_unlock:
	 * Assertion `p_rcu_reader->depth != 0' failed"): what the emulator
	 * cannot do, not the library.
	 */
	if (hard_emulator()) {
		tap_skip("qemu-user aborts in a storm of signals to threads that trap (its own assertion fails)",
			 "sites run from a signal handler while keys change");
		return;
	}
	st = hard_child(sig_child, NULL, 60);

	tap_ok(st == 0, "sites run from a signal handler while keys change: no thread dies (%s)",
	       hard_status(st));
}

/* ---- a daemon's worker, with every signal blocked ---- */

static int blk_stop, blk_started;
static unsigned long blk_runs, blk_new;

static void *blk_worker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&blk_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&blk_stop, __ATOMIC_RELAXED)) {
		blk_new += run_blk();
		blk_runs++;
	}
	return NULL;
}

/* Exit status: how many of 5 changes were not refused with EBUSY. */
static int blk_child(void *arg)
{
	int i, bad = 0;
	pthread_t t;

	(void)arg;
	if (!freopen("/dev/null", "w", stderr) ||
	    pthread_create(&t, NULL, blk_worker, NULL))
		return 100;
	while (!__atomic_load_n(&blk_started, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < 5; i++) {
		static_branch_enable(&k_blk);
		bad += statickeys_last_error() != EBUSY || static_key_enabled(&k_blk);
	}
	__atomic_store_n(&blk_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	return bad + (blk_new ? 50 : 0) + (run_blk() ? 60 : 0);
}

static void test_blocked_worker(void)
{
	int st;

	if (!sites_trap("a worker blocking every signal runs a site while its key changes",
			"under ThreadSanitizer a thread blocking every signal is taken for its runtime's own"))
		return;
	st = hard_child(blk_child, NULL, 20);
	tap_ok(st == 0, "a worker blocking every signal runs a site while its key changes 5 times: each change refused (EBUSY), key and site unchanged, the process lives (%s)",
	       hard_status(st));
}

/* ---- 8. a sandbox without membarrier and mprotect ---- */

struct sync_result {
	int no_seccomp, err, enabled, site;
	unsigned long steps_before, steps_after;
};

static struct sync_result *sr;

static int sync_child(void *arg)
{
	const int nrs[] = { __NR_membarrier, __NR_mprotect };
	struct statickeys_stats s;

	(void)arg;
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	static_branch_enable(&k_first);		/* method and barrier chosen */
	if (hard_deny(nrs, 2, EPERM)) {
		sr->no_seccomp = 1;
		return 0;
	}
	statickeys_get_stats(&s);
	sr->steps_before = s.sync_steps;
	static_branch_enable(&k_sync);
	sr->err = statickeys_last_error();
	sr->enabled = static_key_enabled(&k_sync);
	sr->site = run_sync();
	statickeys_get_stats(&s);
	sr->steps_after = s.sync_steps;
	return 0;
}

static void test_no_serialization(void)
{
	int st;

	if (!IS_ENABLED(CONFIG_JUMP_LABEL)) {
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is patched",
			 "no way to serialize: change refused, key and site unchanged");
		return;
	}
	memset(sr, 0, sizeof(*sr));
	st = hard_child(sync_child, NULL, 20);
	if (st == 0 && sr->no_seccomp) {
		tap_skip("no seccomp here (qemu-user)",
			 "no way to serialize: change refused, key and site unchanged");
		return;
	}
	tap_ok(st == 0 && sr->err == EACCES && !sr->enabled && sr->site == 0 &&
	       sr->steps_after == sr->steps_before,
	       "no way to serialize: change refused (error %d, want EACCES), key %d, site %d, steps counted %lu (%s)",
	       sr->err, sr->enabled, sr->site,
	       sr->steps_after - sr->steps_before, hard_status(st));
}

int main(int argc, char **argv)
{
	int last;

	if (argc > 1 && !strcmp(argv[1], "count-held"))
		return hard_held_fd("mem", &last) + hard_held_fd("task", &last);
	sr = mmap(NULL, sizeof(*sr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	tap_plan(23);
	test_descriptors();
	test_held_descriptors();
	test_loader_lock();
	test_counts();
	test_deferred_unload();
	test_trap_chain();
	test_foreign_traps();
	test_cancel();
	test_site_in_signal_handler();
	test_blocked_worker();
	test_no_serialization();
	return tap_exit();
}
