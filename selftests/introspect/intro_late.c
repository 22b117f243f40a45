// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libintro_late.so: dlopen()ed by the test after start-up. */
#include "intro.h"

DEFINE_STATIC_KEY_TRUE(intro_late_key);

__attribute__((noinline)) int intro_late_site(void)
{
	return static_branch_likely(&intro_late_key) ? 1 : 0;
}
