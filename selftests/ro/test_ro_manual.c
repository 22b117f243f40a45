// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Built with -DSTATICKEYS_MANUAL_SEAL (see Makefile.inc): the program's
 * read-only keys change freely until it calls statickeys_seal(), then never.
 */
#include <errno.h>
#include <signal.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "capture.h"
#include "tap.h"
#include "site.h"

#ifndef STATICKEYS_MANUAL_SEAL
#error "build this test with -DSTATICKEYS_MANUAL_SEAL"
#endif

#define CONFIG_RO_MANUAL_ON	1

DEFINE_STATIC_KEY_TRUE_RO(ro_true);
DEFINE_STATIC_KEY_FALSE_RO(ro_false);
DEFINE_STATIC_KEY_MAYBE_RO(CONFIG_RO_MANUAL_ON, ro_maybe);

SITE(s_true, static_branch_likely(&ro_true))
SITE(s_false, static_branch_unlikely(&ro_false))
SITE(s_maybe, static_branch_maybe(CONFIG_RO_MANUAL_ON, &ro_maybe))

static int (*volatile site_true)(void) = s_true;
static int (*volatile site_false)(void) = s_false;
static int (*volatile site_maybe)(void) = s_maybe;

static volatile int *stray_target;

static int stray_write(void *arg)
{
	(void)arg;
	*stray_target = 1;
	return 0;
}

int main(void)
{
	int st, ok;

	tap_plan(11);

	/* Before sealing: an ordinary key. */
	static_branch_disable(&ro_true);
	ok = !statickeys_last_error() && !static_key_enabled(&ro_true) &&
	     !site_true();
	static_branch_enable(&ro_true);
	tap_ok(ok && !statickeys_last_error() && site_true(),
	       "before statickeys_seal(): a TRUE_RO key disables and enables again");
	ok = static_branch_inc(&ro_false) && static_branch_inc(&ro_false) &&
	     static_key_count(&ro_false.key) == 2 && site_false();
	static_branch_dec(&ro_false);
	tap_ok(ok && !statickeys_last_error() &&
	       static_key_count(&ro_false.key) == 1 && site_false(),
	       "before statickeys_seal(): a FALSE_RO key counts up and down (left enabled)");
	static_branch_disable(&ro_maybe);
	tap_ok(!statickeys_last_error() && !site_maybe(),
	       "before statickeys_seal(): a MAYBE_RO key disables (left disabled)");
	stray_target = &ro_true.key.enabled;
	st = tap_fork(stray_write, NULL);
	tap_ok(st == 0, "before statickeys_seal(): its memory is writable (status %d)",
	       st);

	/* The library and every automatically sealed object are already sealed. */
	st = statickeys_seal();
	tap_ok(st == 1, "statickeys_seal() sealed this program, the only object waiting (%d)",
	       st);
	tap_ok(static_key_count(&ro_false.key) == 1 && site_false() &&
	       !static_key_enabled(&ro_maybe) && !site_maybe() &&
	       static_key_enabled(&ro_true) && site_true(),
	       "the states set before sealing stay");

	capture_begin();
	static_branch_disable(&ro_false);
	capture_end();
	tap_ok(statickeys_last_error() == EPERM &&
	       static_key_count(&ro_false.key) == 1 && site_false(),
	       "after statickeys_seal(): disable refused with EPERM, key and site unchanged");
	tap_ok(captured_one_line("read-only"), "one message on stderr");
	capture_begin();
	static_branch_enable(&ro_maybe);
	capture_end();
	tap_ok(statickeys_last_error() == EPERM && !static_key_enabled(&ro_maybe) &&
	       !site_maybe(), "after statickeys_seal(): enable of the MAYBE_RO key refused");

	st = tap_fork(stray_write, NULL);
	tap_ok(st == 128 + SIGSEGV, "after statickeys_seal(): a stray store faults (status %d)",
	       st);
	tap_ok(statickeys_seal() == 0, "statickeys_seal() again: nothing left to seal");
	return tap_exit();
}
