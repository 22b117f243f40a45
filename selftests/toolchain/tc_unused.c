// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The member of the toolchain tests' static archive that no program pulls
 * in: its key, site and boot parameter must not reach the program, and its
 * absence must not disturb the member that is pulled in.
 */
#include <stdlib.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include "tc.h"

DEFINE_STATIC_KEY_FALSE(tc_unused_key);

int tc_unused_site(void)
{
	return static_branch_unlikely(&tc_unused_key) ? 1 : 0;
}

/* On the command line in every run: a program that has it fails. */
static int tc_unused_param(char *val)
{
	(void)val;
	abort();
}
early_param("tc_param", tc_unused_param);
