// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin with keys of its own, loaded late with dlopen() by a host that
 * does not link the library (plugin-host.c).  Its keys register when it
 * loads and unregister when it is unloaded.  Built -fPIC -shared, linked
 * with libstatickeys (pkg-config --libs statickeys).
 */
#include <linux/jump_label.h>

DEFINE_STATIC_KEY_FALSE(plugin_verbose);

/* What the host calls, by dlsym(). */
__attribute__((visibility("default"))) const char *plugin_run(void)
{
	if (static_branch_unlikely(&plugin_verbose))
		return "verbose";
	return "quiet";
}

__attribute__((visibility("default"))) void plugin_set_verbose(int on)
{
	if (on)
		static_branch_enable(&plugin_verbose);
	else
		static_branch_disable(&plugin_verbose);
}
