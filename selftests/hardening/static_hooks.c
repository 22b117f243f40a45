// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A program that links libstatickeys.a, built by test_static_hooks.sh with
 * garbage collection: the writer's hooks (kernel/internal.h,
 * SK_WRITER_HOOK()) must come with the objects that define them, or the
 * probe of a write method cannot flip its site and the mprotect method
 * finds no segment to open: every change would be refused.  Checked by
 * executing the site, with the method STATICKEYS_TEXT_POKE names.
 */
#include <stdio.h>
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "site.h"

DEFINE_STATIC_KEY_FALSE(k_hooks);
SITE(s_hooks, static_branch_unlikely(&k_hooks))
static int (*volatile run_hooks)(void) = s_hooks;

int main(void)
{
	struct statickeys_stats st;
	int on, off, err;

	static_branch_enable(&k_hooks);
	on = run_hooks();
	err = statickeys_last_error();
	static_branch_disable(&k_hooks);
	off = run_hooks();
	if (!err)
		err = statickeys_last_error();
	statickeys_get_stats(&st);
	printf("site %d after enable, %d after disable, error %d, %lu sites written\n",
	       on, off, err, st.sites_written);
	return on == 1 && off == 0 && !err && st.sites_written >= 2 ? 0 : 1;
}
