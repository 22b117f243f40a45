// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin that uses static keys, loaded by a host that does not link the
 * library: built twice, against libstatickeys.so and with libstatickeys.a
 * linked in privately.
 */
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "site.h"

static DEFINE_STATIC_KEY_FALSE(host_key);
SITE(host_site, static_branch_unlikely(&host_key))
static int (*volatile run_site)(void) = host_site;

/*
 * host_plugin_run() - enable the key, run the site, disable it, run it
 * again.  Returns 0, or the number of the step that went wrong (and the
 * library's error, if any, times 100).
 */
__attribute__((visibility("default"))) int host_plugin_run(void)
{
	if (run_site() != 0 || static_key_enabled(&host_key))
		return 1;
	static_branch_enable(&host_key);
	if (statickeys_last_error())
		return 2 + 100 * statickeys_last_error();
	if (run_site() != 1 || !static_key_enabled(&host_key))
		return 3;
	static_branch_disable(&host_key);
	if (statickeys_last_error())
		return 4 + 100 * statickeys_last_error();
	if (run_site() != 0)
		return 5;
	return 0;
}
