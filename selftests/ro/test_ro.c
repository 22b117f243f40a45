// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Read-only-after-init keys (_RO, MAYBE_RO): sealed before main(), every
 * change is refused with EPERM and one message, and a stray store faults.
 */
#include <errno.h>
#include <signal.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "capture.h"
#include "tap.h"
#include "site.h"

#define CONFIG_RO_TEST_ON	1
/* CONFIG_RO_TEST_OFF is not defined: IS_ENABLED() gives 0. */

DEFINE_STATIC_KEY_TRUE_RO(ro_true);
DEFINE_STATIC_KEY_FALSE_RO(ro_false);
DEFINE_STATIC_KEY_MAYBE_RO(CONFIG_RO_TEST_ON, ro_maybe_on);
DEFINE_STATIC_KEY_MAYBE_RO(CONFIG_RO_TEST_OFF, ro_maybe_off);
DEFINE_STATIC_KEY_FALSE(rw_key);	/* the control: an ordinary key */

SITE(s_true, static_branch_likely(&ro_true))
SITE(s_false, static_branch_unlikely(&ro_false))
SITE(s_maybe_on, static_branch_maybe(CONFIG_RO_TEST_ON, &ro_maybe_on))
SITE(s_maybe_off, static_branch_maybe(CONFIG_RO_TEST_OFF, &ro_maybe_off))
SITE(s_rw, static_branch_unlikely(&rw_key))

static const struct {
	const char *name;
	struct static_key *key;
	int (*volatile site)(void);
	int init;
} ro_keys[] = {
	{ "DEFINE_STATIC_KEY_TRUE_RO", &ro_true.key, s_true, 1 },
	{ "DEFINE_STATIC_KEY_FALSE_RO", &ro_false.key, s_false, 0 },
	{ "DEFINE_STATIC_KEY_MAYBE_RO(y)", &ro_maybe_on.key, s_maybe_on, 1 },
	{ "DEFINE_STATIC_KEY_MAYBE_RO(n)", &ro_maybe_off.key, s_maybe_off, 0 },
};
#define NR_RO	(int)(sizeof(ro_keys) / sizeof(ro_keys[0]))

static int unchanged(int i)
{
	return static_key_count(ro_keys[i].key) == ro_keys[i].init &&
	       ro_keys[i].site() == ro_keys[i].init;
}

static volatile int *stray_target;

static int stray_write(void *arg)
{
	(void)arg;
	*stray_target = 1;
	return 0;
}

int main(void)
{
	struct statickeys_stats before, after;
	int i, st, refusals = 0;

	tap_plan(2 * NR_RO + 7);
	statickeys_get_stats(&before);

	for (i = 0; i < NR_RO; i++) {
		capture_begin();
		if (ro_keys[i].init)
			static_key_disable(ro_keys[i].key);
		else
			static_key_enable(ro_keys[i].key);
		capture_end();
		refusals++;
		tap_ok(statickeys_last_error() == EPERM && unchanged(i),
		       "%s: %s refused with EPERM, key and site unchanged",
		       ro_keys[i].name, ro_keys[i].init ? "disable" : "enable");
		tap_ok(captured_one_line("read-only"),
		       "%s: one message on stderr", ro_keys[i].name);
	}

	capture_begin();
	st = static_branch_inc(&ro_false);
	capture_end();
	refusals++;
	tap_ok(!st && statickeys_last_error() == EPERM && unchanged(1),
	       "static_branch_inc() of a sealed key: false, EPERM, unchanged");
	capture_begin();
	static_branch_dec(&ro_true);
	capture_end();
	refusals++;
	tap_ok(statickeys_last_error() == EPERM && unchanged(0),
	       "static_branch_dec() of a sealed key: EPERM, unchanged");

	statickeys_get_stats(&after);
	tap_ok(after.refused - before.refused == (unsigned long)refusals,
	       "the refused counter counted %d refusals (%lu)", refusals,
	       after.refused - before.refused);

	stray_target = &ro_false.key.enabled;
	st = tap_fork(stray_write, NULL);
	tap_ok(st == 128 + SIGSEGV, "a stray store to a sealed key's count faults (status %d)",
	       st);
	stray_target = (volatile int *)&ro_maybe_off.key.type;
	st = tap_fork(stray_write, NULL);
	tap_ok(st == 128 + SIGSEGV, "a stray store to a sealed MAYBE_RO key faults (status %d)",
	       st);

	/* The control: the same operations on an ordinary key work. */
	static_branch_enable(&rw_key);
	tap_ok(!statickeys_last_error() && static_key_enabled(&rw_key) && s_rw(),
	       "an ordinary key next to them still changes");
	stray_target = &rw_key.key.enabled;
	st = tap_fork(stray_write, NULL);
	tap_ok(st == 0, "and a store to an ordinary key does not fault (status %d)",
	       st);
	return tap_exit();
}
