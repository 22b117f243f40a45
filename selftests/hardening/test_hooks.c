// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The patching protocol observed from inside: linked with the static
 * library, this test reaches its hidden hooks, holds the patcher between
 * its serializing steps and makes chosen writes fail.  It checks what no
 * outside view shows: the number of serializing steps, the instruction a
 * trapping thread is given, undoing a batch that failed half-way, fork()
 * while threads are in the trap handler, and SIGTRAP reset mid-update.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <alloca.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <sys/single_threaded.h>
#endif
#include <sys/syscall.h>
#include <linux/futex.h>
#include <signal.h>
#include <unistd.h>

extern char **environ;

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

/* The library's hidden test hooks (kernel/internal.h). */
extern void (*sk_test_step_hook)(int step);
extern int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);
extern bool sk_test_write_by_site;	/* x86: these tests fail one site's write */
#ifdef SK_TEST_X86
extern unsigned long sk_trap_emulations, sk_stuck_sites;
#define STEPS	3
#else
#define STEPS	1
#endif

DEFINE_STATIC_KEY_FALSE(k_steps);
DEFINE_STATIC_KEY_FALSE(k_emul);
DEFINE_STATIC_KEY_FALSE(k_fail);
DEFINE_STATIC_KEY_FALSE(k_fork);
DEFINE_STATIC_KEY_FALSE(k_dfl);
DEFINE_STATIC_KEY_FALSE(k_stk);
DEFINE_STATIC_KEY_FALSE(k_blk);
DEFINE_STATIC_KEY_FALSE(k_raw);

SITE(s_steps, static_branch_unlikely(&k_steps))
SITE(s_emul, static_branch_unlikely(&k_emul))
SITE(s_fail_a, static_branch_unlikely(&k_fail))
SITE(s_fail_b, static_branch_likely(&k_fail))
SITE(s_fail_c, static_branch_unlikely(&k_fail))
SITE(s_fork, static_branch_unlikely(&k_fork))
SITE(s_dfl, static_branch_unlikely(&k_dfl))
SITE(s_stk, static_branch_unlikely(&k_stk))
SITE(s_blk, static_branch_unlikely(&k_blk))
SITE(s_raw, static_branch_unlikely(&k_raw))

static int (*volatile run_steps)(void) = s_steps;
static int (*volatile run_emul)(void) = s_emul;
static int (*volatile run_fail[])(void) = { s_fail_a, s_fail_b, s_fail_c };
static int (*volatile run_fork)(void) = s_fork;
static int (*volatile run_dfl)(void) = s_dfl;
static int (*volatile run_stk)(void) = s_stk;
static int (*volatile run_blk)(void) = s_blk;
static int (*volatile run_raw)(void) = s_raw;

/* Run @fn in a new thread and return its result: the site runs elsewhere. */
static int (*thread_fn)(void);
static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)thread_fn();
}

static int run_in_thread(int (*fn)(void))
{
	pthread_t t;
	void *ret;

	thread_fn = fn;
	if (pthread_create(&t, NULL, thread_main, NULL))
		return -1;
	pthread_join(t, &ret);
	return (int)(intptr_t)ret;
}

/* Two threads call @fn over and over until spin_end(). */
static int (*spin_fn)(void);
static int spin_stop;
static pthread_t spin_threads[2];

static void *spinner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&spin_stop, __ATOMIC_RELAXED))
		spin_fn();
	return NULL;
}

static void spin_begin(int (*fn)(void))
{
	int i;

	spin_fn = fn;
	__atomic_store_n(&spin_stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_create(&spin_threads[i], NULL, spinner, NULL);
}

static void spin_end(void)
{
	int i;

	__atomic_store_n(&spin_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(spin_threads[i], NULL);
}

/*
 * A worker thread, alive before a change begins, that answers requests
 * over pipes: 'r' runs worker_site, 'u' unblocks SIGTRAP, 't' gives its
 * thread id, 'q' ends it.  With worker_blocks it blocks every signal
 * first, as daemons' workers do.
 */
static int wk_req[2], wk_ans[2];
static int (*worker_site)(void);
static bool worker_blocks;
static pthread_t worker;

static void *worker_main(void *arg)
{
	sigset_t set;
	char c;
	int v;

	(void)arg;
	sigfillset(&set);
	if (worker_blocks)
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (read(wk_req[0], &c, 1) == 1 && c != 'q') {
		v = 0;
		if (c == 'r') {
			v = worker_site();
		} else if (c == 't') {
			v = gettid();
		} else {
			sigemptyset(&set);
			sigaddset(&set, SIGTRAP);
			pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		}
		if (write(wk_ans[1], &v, sizeof(v)) != sizeof(v))
			break;
	}
	return NULL;
}

static int worker_ask(char c)
{
	int v = -1;

	if (write(wk_req[1], &c, 1) != 1 ||
	    read(wk_ans[0], &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

static int worker_start(int (*site)(void), bool blocks)
{
	worker_site = site;
	worker_blocks = blocks;
	if (pipe(wk_req) || pipe(wk_ans))
		return -1;
	return pthread_create(&worker, NULL, worker_main, NULL) ? -1 : 0;
}

static void worker_stop(void)
{
	if (write(wk_req[1], "q", 1) == 1)
		pthread_join(worker, NULL);
}

/* ---- serializing steps per update ---- */

static void test_steps(void)
{
	struct statickeys_stats a, b;

	static_branch_enable(&k_steps);		/* the method is chosen */
	static_branch_disable(&k_steps);
	statickeys_get_stats(&a);
	static_branch_enable(&k_steps);
	statickeys_get_stats(&b);
	tap_ok(b.sync_steps - a.sync_steps == STEPS && b.updates - a.updates == 1 &&
	       run_steps() == 1,
	       "one update: %lu serializing steps (want %d), %lu update",
	       b.sync_steps - a.sync_steps, STEPS, b.updates - a.updates);
	static_branch_disable(&k_steps);
}

/* ---- a thread that meets a half-written site takes the new path ---- */

static int emul_seen[4];
#ifdef SK_TEST_X86
static unsigned long emul_traps[4];
#endif

static void emul_hook(int step)
{
#ifdef SK_TEST_X86
	unsigned long before = sk_trap_emulations;

	emul_seen[step] = run_in_thread(run_emul);
	emul_traps[step] = sk_trap_emulations - before;
#else
	emul_seen[step] = run_in_thread(run_emul);
#endif
}

static void test_emulation(void)
{
	int step;

	sk_test_step_hook = emul_hook;
	static_branch_enable(&k_emul);
	sk_test_step_hook = NULL;
	for (step = 1; step <= STEPS; step++) {
#ifdef SK_TEST_X86
		bool trapped = step < 3;

		tap_ok(emul_seen[step] == 1 && (emul_traps[step] == 1) == trapped,
		       "held after step %d of enabling: another thread runs the new path (%d) and %s (%lu traps)",
		       step, emul_seen[step], trapped ? "was trapped" : "was not trapped",
		       emul_traps[step]);
#else
		tap_ok(emul_seen[step] == 1,
		       "held after the store: another thread runs the new path (%d)",
		       emul_seen[step]);
#endif
	}
	static_branch_disable(&k_emul);
}

/* ---- a write that fails half-way ---- */

static int fail_countdown, fail_after;
static uintptr_t failed_addr;
static uint8_t failed_bytes[64];
static size_t failed_len;

/*
 * Write number fail_countdown fails, and so does every retry of that same
 * write (same place, same bytes): the library retries a failed write, and
 * the failure must stick.  Undoing writes other bytes and goes through,
 * unless fail_after fails every write from then on.
 */
static int failing_poke(uintptr_t addr, const void *bytes, size_t len)
{
	if (fail_countdown > 0 && --fail_countdown == 0) {
		failed_addr = addr;
		failed_len = len < sizeof(failed_bytes) ? len : sizeof(failed_bytes);
		memcpy(failed_bytes, bytes, failed_len);
		return -EIO;
	}
	if (fail_countdown == 0 && fail_after)
		return -EIO;	/* and every write after it */
	if (fail_countdown == 0 && addr == failed_addr && len == failed_len &&
	    !memcmp(bytes, failed_bytes, len))
		return -EIO;
	return 0;
}

static int sites_now(void)
{
	return run_fail[0]() | run_fail[1]() << 1 | run_fail[2]() << 2;
}

/*
 * Fail write number @nth of the next enabling; with @all, every write
 * after it fails too, so that the batch cannot be undone either.
 */
static int fail_child(void *arg)
{
	int nth = (int)(intptr_t)arg & 0xff, all = (int)(intptr_t)arg >> 8;
	int bad = 0, before = sites_now(), i;

	if (!freopen("/dev/null", "w", stderr))
		return 2;
	sk_test_write_by_site = true;
	fail_countdown = nth;
	fail_after = all;
	sk_test_poke_hook = failing_poke;
	static_branch_enable(&k_fail);
	if (statickeys_last_error() != EIO || static_key_enabled(&k_fail))
		bad |= 1 << 0;
	/* Every site runs its old path, here and in other threads. */
	for (i = 0; i < 3; i++)
		if (run_in_thread(run_fail[i]) != ((before >> i) & 1))
			bad |= 1 << 1;
	if (sites_now() != before)
		bad |= 1 << 2;
#ifdef SK_TEST_X86
	if (all) {
		/* Stuck: emulated, and refused while writes still fail. */
		if (!sk_stuck_sites)
			bad |= 1 << 4;
		static_branch_enable(&k_fail);
		if (statickeys_last_error() != EILSEQ ||
		    static_key_enabled(&k_fail) || sites_now() != before ||
		    !sk_stuck_sites)
			bad |= 1 << 5;
	}
#endif
	sk_test_poke_hook = NULL;
	spin_begin(sites_now);	/* while they are repaired and changed */
	static_branch_enable(&k_fail);
	/* Undone, or repaired now that writes work: the key changes again. */
	if (statickeys_last_error() || sites_now() != (before ^ 7))
		bad |= 1 << 3;
	for (i = 0; i < 100; i++) {
		static_branch_disable(&k_fail);
		static_branch_enable(&k_fail);
	}
	spin_end();
	if (statickeys_last_error() || sites_now() != (before ^ 7))
		bad |= 1 << 7;
#ifdef SK_TEST_X86
	{
		unsigned long traps = sk_trap_emulations;

		for (i = 0; i < 3; i++)
			run_in_thread(run_fail[i]);
		if (sk_stuck_sites || sk_trap_emulations != traps)
			bad |= 1 << 6;	/* nothing left emulated */
	}
#endif
	return bad;
}

#ifdef SK_TEST_X86
/*
 * Sites stuck in an object that is unregistered stay emulated (at exit the
 * program's own code still runs), and are forgotten when an object is
 * registered over them: that code is freshly mapped.
 */
static int forget_child(void *arg)
{
	struct statickeys_object self;
	int before = sites_now(), i;

	(void)arg;
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	sk_test_write_by_site = true;
	fail_countdown = 5;
	fail_after = 1;
	sk_test_poke_hook = failing_poke;
	static_branch_enable(&k_fail);
	if (!sk_stuck_sites)
		return 1;
	__sk_object_describe(&self);
	statickeys_unregister_object(&self);
	if (!sk_stuck_sites)
		return 3;	/* forgotten while its code still runs */
	for (i = 0; i < 3; i++)
		if (run_in_thread(run_fail[i]) != ((before >> i) & 1))
			return 4;
	statickeys_register_object(&self);
	return sk_stuck_sites ? 5 : 0;
}

/*
 * A stuck site's record may be older than its bytes.  Enabling k_stale:
 * the first site's INT3 lands, every write to the second fails, and then
 * so does undoing the first: stuck, the second never written.  The next
 * change repairs the first while the second's writes still fail, and goes
 * through (no INT3 left).  A later repair must not write the second's old
 * instruction back over the jump that change put there.
 */
DEFINE_STATIC_KEY_FALSE(k_stale);
DEFINE_STATIC_KEY_FALSE(k_other);
SITE(s_stale_a, static_branch_unlikely(&k_stale))
SITE(s_stale_b, static_branch_unlikely(&k_stale))
static int (*volatile run_stale[])(void) = { s_stale_a, s_stale_b };

static uintptr_t stale_lo, stale_hi;
static const uint8_t stale_nop[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static int stale_phase, stale_failed;

static int stale_poke(uintptr_t addr, const void *bytes, size_t len)
{
	if (!stale_lo)
		stale_lo = addr;
	else if (!stale_hi && addr != stale_lo)
		stale_hi = addr;
	if (addr == stale_hi && stale_phase == 1) {
		stale_failed = 1;
		return -EIO;
	}
	/* Then only a write of its old instruction (a NOP) fails. */
	if (addr == stale_hi && stale_phase == 2 && len == 5 &&
	    !memcmp(bytes, stale_nop, 5))
		return -EIO;
	if (addr == stale_lo && stale_phase == 1 && stale_failed)
		return -EIO;	/* undoing the first fails too */
	return 0;
}

static int stale_child(void *arg)
{
	(void)arg;
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	sk_test_write_by_site = true;
	stale_phase = 1;
	sk_test_poke_hook = stale_poke;
	static_branch_enable(&k_stale);
	if (!sk_stuck_sites || static_key_enabled(&k_stale))
		return 1;
	stale_phase = 2;
	static_branch_enable(&k_stale);
	if (statickeys_last_error() || run_stale[0]() != 1 || run_stale[1]() != 1)
		return 3;
	stale_phase = 3;
	static_branch_enable(&k_other);
	if (run_stale[0]() != 1 || run_in_thread(run_stale[1]) != 1)
		return 4;	/* the old instruction written back */
	return sk_stuck_sites ? 5 : 0;
}
#endif

static void test_half_way(void)
{
	static const struct { int nth, all; const char *what; } cases[] = {
		{ 2, 0, "the second INT3" },
		{ 5, 0, "the second site's new tail" },
		{ 8, 0, "the second site's new first byte" },
		{ 5, 1, "the second site's new tail, and every write after it (undo fails too; refused while writes fail, repaired by the next change once they work)" },
	};
	size_t i;
	int st;

	if (STEPS == 1) {	/* arm64: one store a site */
		st = hard_child(fail_child, (void *)(intptr_t)2, 20);
		tap_ok(st == 0, "the second store fails: every site back, key unchanged, EIO (%s)",
		       hard_status(st));
		for (i = 1; i < 4; i++)
			tap_skip("x86 only", "%s", cases[i].what);
		tap_skip("x86 only", "emulated sites of an unregistered object");
		tap_skip("x86 only", "a repair never writes over a later change");
		return;
	}
	for (i = 0; i < 4; i++) {
		st = hard_child(fail_child,
				(void *)(intptr_t)(cases[i].nth | cases[i].all << 8),
				20);
		tap_ok(st == 0, "write of %s fails: sites run their old path, key unchanged, EIO (%s)",
		       cases[i].what, hard_status(st));
	}
#ifdef SK_TEST_X86
	st = hard_child(forget_child, NULL, 20);
	tap_ok(st == 0, "an unregistered object's stuck sites stay emulated, forgotten when an object registers over them (%s)",
	       hard_status(st));
	st = hard_child(stale_child, NULL, 20);
	tap_ok(st == 0, "a repair writes only sites that still hold INT3, never over a later change (%s)",
	       hard_status(st));
#endif
}

/* ---- fork() while other threads are in the trap handler ---- */

static int in_child;

static int fork_failures, forks_run;

static void fork_hook(int step)
{
	int i, st;
	pid_t pid;

	if (step != 1 || in_child)
		return;
	spin_begin(run_fork);
	for (i = 0; i < 100; i++) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			in_child = 1;
			alarm(10);
			return;	/* finish the batch in the child */
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			fork_failures++;
		forks_run++;
	}
	spin_end();
}

static void test_fork_in_handler(void)
{
	if (STEPS == 1) {
		tap_skip("x86 only: arm64 has no trap handler",
			 "fork() while threads trap: children finish the update");
		return;
	}
	sk_test_step_hook = fork_hook;
	static_branch_enable(&k_fork);
	sk_test_step_hook = NULL;
	if (in_child) {
		/* A child: the update finished; can it make another one? */
		static_branch_disable(&k_fork);
		_exit(statickeys_last_error() || run_fork() != 0);
	}
	tap_ok(forks_run == 100 && fork_failures == 0 && run_fork() == 1,
	       "fork() while threads trap on a half-written site: %d of %d children finished their updates",
	       forks_run - fork_failures, forks_run);
	static_branch_disable(&k_fork);
}

/* ---- SIGTRAP reset to its default in the middle of an update ---- */

/*
 * With another thread in the process, SIGTRAP is looked at before every
 * step: a reset between two steps is undone before the next INT3 goes in
 * or comes out, and the worker meeting one survives.  With no other thread
 * when the change begins, it is looked at once, before the first INT3:
 * this thread, meeting the INT3 as a signal handler of its own would,
 * survives a SIG_DFL set before the change.
 */
static int dfl_seen = -1;

static void dfl_hook(int step)
{
	if (step == 1)
		signal(SIGTRAP, SIG_DFL);
	else if (step == 2)
		dfl_seen = worker_ask('r');
}

static int dfl_child(void *arg)
{
	(void)arg;
	if (worker_start(run_dfl, false))
		return 2;
	sk_test_step_hook = dfl_hook;
	static_branch_enable(&k_dfl);
	sk_test_step_hook = NULL;
	worker_stop();
	return dfl_seen == 1 && run_dfl() == 1 ? 0 : 1;
}

static void dfl_alone_hook(int step)
{
	if (step == 1)
		dfl_seen = run_dfl();
}

static int dfl_alone_child(void *arg)
{
	(void)arg;
	signal(SIGTRAP, SIG_DFL);
	sk_test_step_hook = dfl_alone_hook;
	static_branch_enable(&k_dfl);
	sk_test_step_hook = NULL;
	return dfl_seen == 1 && run_dfl() == 1 ? 0 : 1;
}

static void test_sigtrap_reset(void)
{
	int st;

	if (STEPS == 1) {
		tap_skip("x86 only: arm64 has no trap handler",
			 "SIGTRAP reset to SIG_DFL mid-update");
		tap_skip("x86 only: arm64 has no trap handler",
			 "SIGTRAP at SIG_DFL as a change begins, no other thread");
		return;
	}
	st = hard_child(dfl_child, NULL, 20);
	tap_ok(st == 0, "SIGTRAP reset to SIG_DFL between two steps, another thread alive: that thread meeting the next INT3 survives and runs the new path (%s)",
	       hard_status(st));
	st = hard_child(dfl_alone_child, NULL, 20);
	tap_ok(st == 0, "SIGTRAP at SIG_DFL as a change begins in a process with no other thread: the handler is back before the first INT3, the thread meeting it survives and runs the new path (%s)",
	       hard_status(st));
}

/* ---- a thread short of stack at a site ---- */

#define STK_SIZE	(64 * 1024)

/* The case a child runs: free stack left at the site, alternate stack size. */
struct stk_case {
	size_t free, alt;
};

static struct stk_case stk;
static char *stk_lo;		/* the lowest usable byte of the thread's stack */
static int stk_seen = -1;

/* Leave about @stk.free bytes of stack below this frame, run the site. */
static __attribute__((noinline)) int stk_deep(void)
{
	char here;
	size_t room = (size_t)(&here - stk_lo);
	volatile char *p;

	if (room < stk.free + 64)
		return -1;
	p = alloca(room - stk.free);
	p[0] = 0;
	return run_stk() + p[0];
}

static void *stk_thread(void *arg)
{
	stack_t ss = { .ss_size = stk.alt, .ss_flags = stk.alt ? 0 : SS_DISABLE };
	size_t want;

	(void)arg;
	/* None at all without one (a sanitizer may have given it one). */
	if (stk.alt)
		ss.ss_sp = mmap(NULL, stk.alt, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL))
		return (void *)(intptr_t)-2;
	/* Once with room, so that lazy binding (a sanitizer's) is done. */
	want = stk.free;
	stk.free = STK_SIZE / 2;
	stk_deep();
	stk.free = want;
	return (void *)(intptr_t)stk_deep();
}

/* Held after step 1: the site holds INT3, and the thread traps on it. */
static void stk_hook(int step)
{
	pthread_attr_t attr;
	pthread_t t;
	void *ret;
	char *m;

	if (step != 1)
		return;
	/* A page that faults below the stack: the frame cannot go there. */
	m = mmap(NULL, STK_SIZE + 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE))
		return;
	stk_lo = m + 4096;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stk_lo, STK_SIZE);
	if (!pthread_create(&t, &attr, stk_thread, NULL) &&
	    !pthread_join(t, &ret))
		stk_seen = (int)(intptr_t)ret;
	pthread_attr_destroy(&attr);
}

static int stk_child(void *arg)
{
	stk = *(struct stk_case *)arg;
	sk_test_step_hook = stk_hook;
	static_branch_enable(&k_stk);
	sk_test_step_hook = NULL;
	return stk_seen == 1 ? 0 : 10 + stk_seen;
}

static bool stk_survives(size_t free, size_t alt)
{
	struct stk_case c = { free, alt };

	return hard_child(stk_child, &c, 20) == 0;
}

/* The least of @lo..@hi (@hi surviving) for which survives(x) holds. */
static size_t stk_least(bool alt, size_t lo, size_t hi)
{
	while (hi - lo > 16) {
		size_t mid = (lo + hi) / 2;

		if (alt ? stk_survives(1024, mid) : stk_survives(mid, 0))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void test_stack_at_site(void)
{
	unsigned long min = getauxval(AT_MINSIGSTKSZ);
	/* 1 KiB: a third of the frame, and room for a sanitizer's own frames */
	struct stk_case c = { 1024, 16384 };
	int st;

	if (STEPS == 1) {
		tap_skip("x86 only: arm64 sites never trap", "a thread short of stack at a site");
		tap_skip("x86 only: arm64 sites never trap", "the same without an alternate stack");
		return;
	}
#ifdef __SANITIZE_THREAD__
	/* Its pthread_create() and signal interceptors need their own room. */
	tap_skip("ThreadSanitizer's runtime runs on the thread's stack too", "a thread short of stack at a site");
	tap_skip("ThreadSanitizer's runtime runs on the thread's stack too", "the same without an alternate stack");
	return;
#endif
	st = hard_child(stk_child, &c, 20);
	tap_ok(st == 0, "%zu bytes of stack free at a half-written site, with a %zu-byte alternate stack: the thread survives and runs the new path (%s)",
	       c.free, c.alt, hard_status(st));
	c.alt = 0;
	st = hard_child(stk_child, &c, 20);
	tap_ok(st == 128 + SIGSEGV, "the same without an alternate stack: the signal frame does not fit, SIGSEGV (%s)",
	       hard_status(st));
	if (stk_survives(16384, 0) && stk_survives(1024, 16384))
		tap_diag("AT_MINSIGSTKSZ %lu; a thread survives the trap with %zu bytes of stack free, or an alternate stack of %zu bytes",
			 min, stk_least(false, 0, 16384), stk_least(true, 0, 16384));
}

/* ---- a worker that blocks every signal, as daemons' workers do ---- */

static int blk_seen;

static void blk_hook(int step)
{
	if (step == 1)
		blk_seen = worker_ask('r');	/* the site holds INT3 now */
}

struct blk_result {
	int tid, err, enabled, site, seen;	/* SIGTRAP blocked */
	int err2, enabled2, seen2;		/* unblocked */
	int self, err3, enabled3;		/* blocked by the caller */
	char msg[1024];
};

static struct blk_result *br;

/* One change with the worker blocking SIGTRAP, one after it unblocked it. */
static int blk_child(void *arg)
{
	FILE *log = tmpfile();
	sigset_t set;
	size_t n;

	(void)arg;
	if (!log || worker_start(run_blk, true))
		return 2;
	pthread_setname_np(worker, "sk-blocked");
	br->tid = worker_ask('t');
	fflush(stderr);
	dup2(fileno(log), 2);
	sk_test_step_hook = blk_hook;
	blk_seen = -1;
	static_branch_enable(&k_blk);
	br->err = statickeys_last_error();
	br->enabled = static_key_enabled(&k_blk);
	br->site = worker_ask('r') + 2 * run_blk();
	br->seen = blk_seen;
	worker_ask('u');
	blk_seen = -1;
	static_branch_enable(&k_blk);
	br->err2 = statickeys_last_error();
	br->enabled2 = static_key_enabled(&k_blk);
	br->seen2 = blk_seen;
	sk_test_step_hook = NULL;
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	br->self = gettid();
	static_branch_disable(&k_blk);
	br->err3 = statickeys_last_error();
	br->enabled3 = static_key_enabled(&k_blk);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	fflush(stderr);
	n = (size_t)pread(fileno(log), br->msg, sizeof(br->msg) - 1, 0);
	br->msg[n < sizeof(br->msg) ? n : 0] = 0;
	worker_stop();
	return 0;
}

/*
 * A thread inside posix_spawn(): glibc blocks every signal (its own
 * internal ones too) until the child has called execve(), and the child
 * first opens a FIFO nobody writes to, so the thread stays there.  It runs
 * no site, and must not make key changes fail.
 */
static char spawn_fifo[64];
static pid_t spawn_pid;

static void *spawner(void *arg)
{
	char *argv[] = { "true", NULL };
	posix_spawn_file_actions_t fa;

	(void)arg;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, spawn_fifo, O_RDONLY, 0);
	if (posix_spawn(&spawn_pid, "/bin/true", &fa, NULL, argv, environ))
		spawn_pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return NULL;
}

/* Whether thread @tid has every signal blocked, as /proc says. */
static bool all_blocked(pid_t tid)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strstr(buf, "\nSigBlk:");
	return p && (strtoull(p + 8, NULL, 16) & (1ULL << (SIGTRAP - 1)));
}

static void *spawner_tid(void *arg)
{
	*(pid_t *)arg = gettid();
	return spawner(NULL);
}

static int spawn_child(void *arg)
{
	char dir[] = "/tmp/sk-spawn-XXXXXX";
	pid_t tid = 0;
	pthread_t t;
	int err, fd, st;

	(void)arg;
	if (!mkdtemp(dir))
		return 100;
	snprintf(spawn_fifo, sizeof(spawn_fifo), "%s/fifo", dir);
	if (mkfifo(spawn_fifo, 0600) ||
	    pthread_create(&t, NULL, spawner_tid, &tid))
		return 101;
	while (!__atomic_load_n(&tid, __ATOMIC_RELAXED) || !all_blocked(tid))
		sched_yield();
	static_branch_enable(&k_blk);
	err = statickeys_last_error();
	fd = open(spawn_fifo, O_WRONLY);	/* lets the child go on */
	close(fd);
	pthread_join(t, NULL);
	if (spawn_pid > 0)
		waitpid(spawn_pid, &st, 0);
	unlink(spawn_fifo);
	rmdir(dir);
	static_branch_disable(&k_blk);
	return err;
}

/*
 * A thread made with clone() behind the C library's back, blocking SIGTRAP
 * only: glibc's __libc_single_threaded still says the process has one
 * thread, and a library that believed it would skip the check and let the
 * thread die at the site.  It only makes raw system calls (it shares the
 * creator's thread pointer: errno, if set, is the creator's).
 */
static int raw_run = 1, raw_blocked;
static pid_t raw_tid;		/* cleared by the kernel when it exits */

static int raw_thread(void *arg)
{
	/* The kernel's sigset is 64 bits wide on every architecture. */
	uint64_t trap = 1ULL << (SIGTRAP - 1);

	(void)arg;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &trap, NULL, sizeof(trap));
	__atomic_store_n(&raw_blocked, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&raw_run, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &raw_run, FUTEX_WAIT, 1, NULL, NULL, 0);
	return 0;
}

static int raw_child(void *arg)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
			  CLONE_CHILD_CLEARTID;
	int err, enabled;

	(void)arg;
#ifdef __GLIBC__
	if (!__libc_single_threaded)
		return 4;	/* the case needs glibc to believe it */
#endif
	/* The write method is chosen by a first change, with no such thread. */
	static_branch_enable(&k_raw);
	static_branch_disable(&k_raw);
	if (clone(raw_thread, stack + sizeof(stack), flags, NULL, &raw_tid,
		  NULL, &raw_tid) < 0)
		return 2;
	while (!__atomic_load_n(&raw_blocked, __ATOMIC_ACQUIRE))
		sched_yield();
	if (!freopen("/dev/null", "w", stderr))
		return 3;
	static_branch_enable(&k_raw);
	err = statickeys_last_error();
	enabled = static_key_enabled(&k_raw);
	__atomic_store_n(&raw_run, 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, &raw_run, FUTEX_WAKE, 1, NULL, NULL, 0);
	while (__atomic_load_n(&raw_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return err == EBUSY && !enabled && run_raw() == 0 ? 0 : 1;
}

/* A fresh process, in which glibc never saw a thread: this program again. */
static int raw_exec_child(void *arg)
{
	(void)arg;
	hard_exec_self("test_hooks", "raw-clone");
	return 5;
}

static void test_blocked_sigtrap(void)
{
	char tid[32];
	int st;

	if (STEPS == 1) {
		tap_skip("x86 only: arm64 sites never trap", "a worker blocking every signal");
		tap_skip("x86 only: arm64 sites never trap", "the same worker with SIGTRAP unblocked");
		tap_skip("x86 only: arm64 sites never trap", "the caller blocking SIGTRAP");
		tap_skip("x86 only: arm64 sites never trap", "a thread inside posix_spawn()");
	tap_skip("x86 only: arm64 sites never trap", "a thread made by clone() behind the C library");
		return;
	}
#ifdef __SANITIZE_THREAD__
	tap_skip("under ThreadSanitizer a thread blocking every signal is taken for its runtime's own", "a worker blocking every signal");
	tap_skip("under ThreadSanitizer a thread blocking every signal is taken for its runtime's own", "the same worker with SIGTRAP unblocked");
	tap_skip("under ThreadSanitizer a thread blocking every signal is taken for its runtime's own", "the caller blocking SIGTRAP");
	tap_skip("under ThreadSanitizer a thread blocking every signal is taken for its runtime's own", "a thread inside posix_spawn()");
	tap_skip("under ThreadSanitizer a thread blocking every signal is taken for its runtime's own", "a thread made by clone() behind the C library");
	return;
#endif
	br = mmap(NULL, sizeof(*br), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	memset(br, 0, sizeof(*br));
	st = hard_child(blk_child, NULL, 20);
	snprintf(tid, sizeof(tid), "thread %d (sk-blocked)", br->tid);
	tap_ok(st == 0 && br->err == EBUSY && !br->enabled && br->site == 0 &&
	       br->seen == -1 && strstr(br->msg, tid),
	       "a worker blocking every signal: the change is refused before any INT3 (error %d, want EBUSY), key %d, sites %d, the message names %s (%s)",
	       br->err, br->enabled, br->site, tid, hard_status(st));
	if (!strstr(br->msg, tid))
		tap_diag("stderr: %s", br->msg);
	tap_ok(st == 0 && br->err2 == 0 && br->enabled2 && br->seen2 == 1,
	       "the same worker with SIGTRAP unblocked: the change goes through, the worker trapped at step 1 runs the new path (%d, error %d)",
	       br->seen2, br->err2);
	snprintf(tid, sizeof(tid), "thread %d (", br->self);
	tap_ok(st == 0 && br->err3 == EBUSY && br->enabled3 && strstr(br->msg, tid),
	       "the thread changing the key blocks SIGTRAP itself: refused (error %d, want EBUSY), key still %d, the message names it",
	       br->err3, br->enabled3);
	/*
	 * qemu-user runs the vfork() inside posix_spawn() as a fork(): the
	 * thread is not held there, and may be gone before it is seen.
	 */
	if (hard_emulator())
		tap_skip("qemu-user runs posix_spawn()'s vfork() as fork(): no thread is held inside it",
			 "a thread held inside posix_spawn()");
	else {
		st = hard_child(spawn_child, NULL, 20);
		tap_ok(st == 0, "a thread held inside posix_spawn() (glibc blocks every signal there): the change goes through (error %d, %s)",
		       st < 100 ? st : -1, hard_status(st));
	}
	st = hard_child(raw_exec_child, NULL, 20);
	tap_ok(st == 0, "a thread made by clone() behind the C library, blocking SIGTRAP: seen, the change refused (EBUSY), key and site unchanged (%s)",
	       hard_status(st));
}

int main(int argc, char **argv)
{
	const int checks = 1 + STEPS + 6 + 1 + 2 + 2 + 5;
	int i;

	if (argc == 2 && !strcmp(argv[1], "raw-clone"))
		return raw_child(NULL);
	tap_plan(checks);
	if (!IS_ENABLED(CONFIG_JUMP_LABEL)) {
		for (i = 0; i < checks; i++)
			tap_skip("CONFIG_JUMP_LABEL=n: nothing is patched",
				 "patching protocol %d", i + 1);
		return tap_exit();
	}
	test_steps();
	test_emulation();
	test_half_way();
	test_fork_in_handler();
	test_sigtrap_reset();
	test_stack_at_site();
	test_blocked_sigtrap();
	return tap_exit();
}
