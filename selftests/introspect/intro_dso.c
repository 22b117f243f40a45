// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libintro_dso.so, stripped: a key defined here, with a site here and one
 * in the test, and a static key no table names.
 */
#include "intro.h"

DEFINE_STATIC_KEY_FALSE(intro_dso_key);

__attribute__((noinline)) int intro_dso_site(void)
{
	return static_branch_unlikely(&intro_dso_key) ? 1 : 0;
}

static DEFINE_STATIC_KEY_FALSE(intro_hidden_key);

__attribute__((noinline)) int intro_hidden_site(void)
{
	return static_branch_unlikely(&intro_hidden_key) ? 1 : 0;
}
