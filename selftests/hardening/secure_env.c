// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Prints the write method the library chose after one key change: run by
 * test_secure_env.sh as a set-user-ID program, where the environment must
 * not choose it (nor turn on STATICKEYS_DEBUG).
 */
#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "site.h"

DEFINE_STATIC_KEY_FALSE(k_env);
SITE(s_env, static_branch_unlikely(&k_env))
static int (*volatile run_env)(void) = s_env;

int main(void)
{
	static_branch_enable(&k_env);
	printf("method %s site %d\n", statickeys_text_poke_method(), run_env());
	return 0;
}
