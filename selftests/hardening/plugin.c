// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin for the hardening tests: dlopen()ed and dlclose()d while keys
 * change.  It registers a site from its constructor (taking the library's
 * lock with the loader's held) and owns a deferred key.
 */
#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>

int plugin_site(void);
int plugin_deferred_site(void);
void plugin_use_and_drop(void);

DEFINE_STATIC_KEY_FALSE(plugin_key);
DEFINE_STATIC_KEY_DEFERRED_FALSE(plugin_deferred, HZ / 20);

int plugin_site(void)
{
	return static_branch_unlikely(&plugin_key) ? 1 : 0;
}

int plugin_deferred_site(void)
{
	return static_branch_unlikely(&plugin_deferred.key) ? 1 : 0;
}

/* One user, then its delayed drop: a decrement pending for 50 ms. */
void plugin_use_and_drop(void)
{
	static_branch_inc(&plugin_deferred.key);
	static_branch_slow_dec_deferred(&plugin_deferred);
}
