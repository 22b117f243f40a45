// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* A read-only key defined in a shared object, for test_ro_copy.sh. */
#include <linux/jump_label.h>

DEFINE_STATIC_KEY_TRUE_RO(dso_ro_key);

int dso_ro_site(void)
{
	return static_branch_likely(&dso_ro_key) ? 1 : 0;
}
