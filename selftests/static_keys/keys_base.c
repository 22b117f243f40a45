// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The "other object" half of the static-key matrix: keys defined here, with
 * sites here and in the test program.  The inv_ keys are flipped by this
 * object's constructor, so their state differs from how they were built.
 */
#include "keys_base.h"

struct static_key base_old_true_key = STATIC_KEY_INIT_TRUE;
struct static_key base_inv_old_true_key = STATIC_KEY_INIT_TRUE;
struct static_key base_old_false_key = STATIC_KEY_INIT_FALSE;
struct static_key base_inv_old_false_key = STATIC_KEY_INIT_FALSE;

DEFINE_STATIC_KEY_TRUE(base_true_key);
DEFINE_STATIC_KEY_TRUE(base_inv_true_key);
DEFINE_STATIC_KEY_FALSE(base_false_key);
DEFINE_STATIC_KEY_FALSE(base_inv_false_key);

#define SITE(name, expr)					\
	__attribute__((noinline)) bool name(void)		\
	{							\
		if (expr)					\
			return true;				\
		return false;					\
	}

SITE(base_site_old_true, static_key_true(&base_old_true_key))
SITE(base_site_inv_old_true, static_key_true(&base_inv_old_true_key))
SITE(base_site_old_false, static_key_false(&base_old_false_key))
SITE(base_site_inv_old_false, static_key_false(&base_inv_old_false_key))
SITE(base_site_true_likely, static_branch_likely(&base_true_key))
SITE(base_site_true_unlikely, static_branch_unlikely(&base_true_key))
SITE(base_site_inv_true_likely, static_branch_likely(&base_inv_true_key))
SITE(base_site_inv_true_unlikely, static_branch_unlikely(&base_inv_true_key))
SITE(base_site_false_likely, static_branch_likely(&base_false_key))
SITE(base_site_false_unlikely, static_branch_unlikely(&base_false_key))
SITE(base_site_inv_false_likely, static_branch_likely(&base_inv_false_key))
SITE(base_site_inv_false_unlikely, static_branch_unlikely(&base_inv_false_key))

static void __attribute__((constructor)) invert_inv_keys(void)
{
	static_key_slow_dec(&base_inv_old_true_key);
	static_key_slow_inc(&base_inv_old_false_key);
	static_branch_disable(&base_inv_true_key);
	static_branch_enable(&base_inv_false_key);
}
