// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A key whose default comes from the configuration, and a boot parameter
 * that overrides it, the way the kernel's randomize_kstack_offset is built.
 * In a project with Kconfig, CONFIG_FAST_PATH_DEFAULT_ON comes from its
 * autoconf.h ("config FAST_PATH_DEFAULT_ON / bool / default y"); here the
 * Makefile passes it: make maybe FAST_PATH_DEFAULT_ON=y (or =n).
 *	./maybe					the configured default
 *	STATICKEYS_CMDLINE="fast_path=off" ./maybe	overridden at start-up
 */
#include <stdio.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kconfig.h>
#include <linux/kstrtox.h>

DEFINE_STATIC_KEY_MAYBE(CONFIG_FAST_PATH_DEFAULT_ON, fast_path);

/* "fast_path=on|off|1|0|y|n": read before main(), as the kernel reads it at boot. */
static int __init fast_path_param(char *val)
{
	bool on;

	if (kstrtobool(val, &on))
		return -1;		/* malformed: the library says so, keeps the default */
	if (on)
		static_branch_enable(&fast_path);
	else
		static_branch_disable(&fast_path);
	return 0;
}
early_param("fast_path", fast_path_param);

static __attribute__((noinline)) const char *path(void)
{
	/* Laid out for the configured default: the likely side is inline. */
	if (static_branch_maybe(CONFIG_FAST_PATH_DEFAULT_ON, &fast_path))
		return "fast";
	return "slow";
}

int main(void)
{
	printf("default %s, path %s\n",
	       IS_ENABLED(CONFIG_FAST_PATH_DEFAULT_ON) ? "on" : "off", path());
	return 0;
}
