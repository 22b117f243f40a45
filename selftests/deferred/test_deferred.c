// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Deferred keys: the decrement that would disable the key runs after the
 * timeout (never before), static_key_deferred_flush() runs it now, and
 * jump_label_rate_limit() sets the timeout.  Waits are bounded polls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "emulated.h"
#include "site.h"

#define LONG_TIMEOUT	(60 * HZ)	/* never expires during the test */
#define SHORT_TIMEOUT	(HZ / 20)	/* 50 ms */
#define POLL_LIMIT_MS	20000

DEFINE_STATIC_KEY_DEFERRED_FALSE(dkf, LONG_TIMEOUT);
DEFINE_STATIC_KEY_DEFERRED_TRUE(dkt, LONG_TIMEOUT);
struct static_key_deferred dk_old = { .key = STATIC_KEY_INIT_FALSE };

SITE(s_dkf, static_branch_unlikely(&dkf.key))
SITE(s_dkt, static_branch_likely(&dkt.key))
SITE(s_old, static_key_false(&dk_old.key))

static int (*volatile site_dkf)(void) = s_dkf;
static int (*volatile site_dkt)(void) = s_dkt;
static int (*volatile site_old)(void) = s_old;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Wait until @key is disabled and its site off, at most POLL_LIMIT_MS; 0 if
 * it never was.  As in the kernel, the count reads 0 as soon as the last
 * user drops, while the sites are still being switched off: the site is
 * what says the decrement finished.
 */
static int wait_disabled(struct static_key *key)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < POLL_LIMIT_MS; i++) {
		if (!static_key_enabled(key) && !site_old())
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static int pending(struct delayed_work *w)
{
	return __atomic_load_n(&w->pending, __ATOMIC_ACQUIRE);
}

static int fork_child(void *arg)
{
	(void)arg;
	/* The decrement pending at fork() must run here too. */
	return wait_disabled(&dk_old.key) && !site_old() ? 0 : 1;
}

int main(void)
{
	long long t0, t1;
	int ok, st;

	tap_plan(14);

	tap_ok(!static_key_enabled(&dkf.key) && !site_dkf() &&
	       static_key_count(&dkt.key.key) == 1 && site_dkt() &&
	       dkf.timeout == LONG_TIMEOUT && dkt.timeout == LONG_TIMEOUT,
	       "DEFINE_STATIC_KEY_DEFERRED_FALSE/TRUE: initial states and timeouts");

	/* A false key: two users, the last decrement waits. */
	static_branch_deferred_inc(&dkf);
	ok = static_key_enabled(&dkf.key) && site_dkf();
	static_branch_deferred_inc(&dkf);
	tap_ok(ok && static_key_count(&dkf.key.key) == 2 && site_dkf(),
	       "static_branch_deferred_inc() twice: count 2, site on");
	static_branch_slow_dec_deferred(&dkf);
	tap_ok(static_key_count(&dkf.key.key) == 1 && !pending(&dkf.work),
	       "a decrement that is not the last happens at once");
	static_branch_slow_dec_deferred(&dkf);
	tap_ok(static_key_count(&dkf.key.key) == 1 && site_dkf() &&
	       pending(&dkf.work),
	       "the last decrement is deferred: still on, work pending");
	static_key_deferred_flush(&dkf);
	tap_ok(static_key_count(&dkf.key.key) == 0 && !site_dkf() &&
	       !pending(&dkf.work) && !statickeys_last_error(),
	       "static_key_deferred_flush() runs it now: off");
	static_key_deferred_flush(&dkf);
	tap_ok(static_key_count(&dkf.key.key) == 0 && !pending(&dkf.work),
	       "a flush with nothing pending changes nothing");

	/* A user comes back while the decrement is pending. */
	static_branch_deferred_inc(&dkf);
	static_branch_slow_dec_deferred(&dkf);
	static_branch_deferred_inc(&dkf);
	static_key_deferred_flush(&dkf);
	ok = static_key_count(&dkf.key.key) == 1 && site_dkf();
	static_branch_slow_dec_deferred(&dkf);
	static_key_deferred_flush(&dkf);
	tap_ok(ok && static_key_count(&dkf.key.key) == 0 && !site_dkf(),
	       "a user taken while the decrement is pending keeps the key on; the next flush turns it off");

	/* A true key. */
	static_branch_slow_dec_deferred(&dkt);
	ok = static_key_enabled(&dkt.key) && site_dkt() && pending(&dkt.work);
	static_key_deferred_flush(&dkt);
	tap_ok(ok && !static_key_enabled(&dkt.key) && !site_dkt(),
	       "DEFERRED_TRUE: the decrement waits, the flush turns it off");
	static_branch_deferred_inc(&dkt);
	tap_ok(static_key_count(&dkt.key.key) == 1 && site_dkt(),
	       "DEFERRED_TRUE: and back on");

	/* The old type, with jump_label_rate_limit(): the timer runs it. */
	jump_label_rate_limit(&dk_old, SHORT_TIMEOUT);
	tap_ok(dk_old.timeout == SHORT_TIMEOUT,
	       "jump_label_rate_limit() sets the timeout (%lu)", dk_old.timeout);
	static_key_slow_inc(&dk_old.key);
	t0 = now_ms();
	static_key_slow_dec_deferred(&dk_old);
	ok = wait_disabled(&dk_old.key);
	t1 = now_ms();
	tap_ok(ok && !site_old() && !pending(&dk_old.work),
	       "the deferred decrement ran by itself (bounded wait of %d ms)",
	       POLL_LIMIT_MS);
	tap_ok(t1 - t0 >= SHORT_TIMEOUT,
	       "and not before its %d ms timeout (%lld ms)", SHORT_TIMEOUT,
	       t1 - t0);

	/* Pending at fork(): both processes run it. */
	static_key_slow_inc(&dk_old.key);
	static_key_slow_dec_deferred(&dk_old);
	if (sk_test_emulated()) {
		tap_skip("qemu-user cannot create a thread in the forked child of a threaded process",
			 "a decrement pending at fork() runs in the child");
	} else {
		st = tap_fork(fork_child, NULL);
		tap_ok(st == 0, "a decrement pending at fork() runs in the child (status %d)",
		       st);
	}
	tap_ok(wait_disabled(&dk_old.key) && !site_old(),
	       "and in the parent");
	return tap_exit();
}
