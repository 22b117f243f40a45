// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The shared object of the toolchain tests: it defines a key that the
 * program's sites name across objects, and holds a site of its own.
 */
#include <linux/jump_label.h>
#include "tc.h"

TC_API DEFINE_STATIC_KEY_FALSE(tc_lib_key);

TC_API int tc_lib_site(void)
{
	return static_branch_unlikely(&tc_lib_key) ? 1 : 0;
}
