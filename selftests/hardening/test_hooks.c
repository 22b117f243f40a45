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
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

/* The library's hidden test hooks (kernel/internal.h). */
extern void (*sk_test_step_hook)(int step);
extern int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);
extern bool sk_test_write_by_site;	/* x86: these tests fail one site's write */
#ifdef __x86_64__
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

SITE(s_steps, static_branch_unlikely(&k_steps))
SITE(s_emul, static_branch_unlikely(&k_emul))
SITE(s_fail_a, static_branch_unlikely(&k_fail))
SITE(s_fail_b, static_branch_likely(&k_fail))
SITE(s_fail_c, static_branch_unlikely(&k_fail))
SITE(s_fork, static_branch_unlikely(&k_fork))
SITE(s_dfl, static_branch_unlikely(&k_dfl))

static int (*volatile run_steps)(void) = s_steps;
static int (*volatile run_emul)(void) = s_emul;
static int (*volatile run_fail[])(void) = { s_fail_a, s_fail_b, s_fail_c };
static int (*volatile run_fork)(void) = s_fork;
static int (*volatile run_dfl)(void) = s_dfl;

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
#ifdef __x86_64__
static unsigned long emul_traps[4];
#endif

static void emul_hook(int step)
{
#ifdef __x86_64__
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
#ifdef __x86_64__
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
#ifdef __x86_64__
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
#ifdef __x86_64__
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

#ifdef __x86_64__
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
#ifdef __x86_64__
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

static int dfl_seen = -1;

static void dfl_hook(int step)
{
	if (step == 1)
		signal(SIGTRAP, SIG_DFL);
	else if (step == 2)
		dfl_seen = run_in_thread(run_dfl);
}

static int dfl_child(void *arg)
{
	(void)arg;
	sk_test_step_hook = dfl_hook;
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
		return;
	}
	st = hard_child(dfl_child, NULL, 20);
	tap_ok(st == 0, "SIGTRAP reset to SIG_DFL between two steps: a thread meeting the next INT3 survives and runs the new path (%s)",
	       hard_status(st));
}

int main(void)
{
	const int checks = 1 + STEPS + 6 + 1 + 1;
	int i;

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
	return tap_exit();
}
