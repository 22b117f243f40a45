// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin with a private copy of the library (libstatickeys.a, its
 * symbols hidden): test_twins links two of them, built with twin_set and
 * twin_site renamed.
 */
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "../lib/arch.h"

static DEFINE_STATIC_KEY_FALSE(twin_key);

/* Set the key; returns statickeys_last_error(). */
int twin_set(int on)
{
	if (on)
		static_branch_enable(&twin_key);
	else
		static_branch_disable(&twin_key);
	return statickeys_last_error();
}

__attribute__((noinline)) int twin_site(void)
{
	if (static_branch_unlikely(&twin_key))
		return 1;
	return 0;
}

/*
 * The private copy's hidden test hooks (kernel/internal.h).  Only x86
 * emulates traps (sk_trap_emulations); test_twins calls
 * twin_set_trapping() there alone.
 */
#ifdef SK_TEST_X86
extern __attribute__((visibility("hidden"))) void (*sk_test_step_hook)(int step);
extern __attribute__((visibility("hidden"))) unsigned long sk_trap_emulations;

static int seen_at_step1 = -1;

/* After step 1 the site holds INT3: run it, through whatever handler is in. */
static void run_at_step1(int step)
{
	if (step == 1)
		seen_at_step1 = twin_site();
}

/*
 * Set the key while the site is run mid-update by the changing thread
 * itself; returns what the site ran there (-1: not run) and how many traps
 * this copy emulated meanwhile in *@traps.
 */
int twin_set_trapping(int on, unsigned long *traps)
{
	unsigned long before = sk_trap_emulations;

	seen_at_step1 = -1;
	sk_test_step_hook = run_at_step1;
	twin_set(on);
	sk_test_step_hook = 0;
	*traps = sk_trap_emulations - before;
	return seen_at_step1;
}
#else
int twin_set_trapping(int on, unsigned long *traps)
{
	(void)on;
	*traps = 0;
	return -1;
}
#endif
