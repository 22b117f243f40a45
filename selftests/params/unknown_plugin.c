// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libunknown_plugin.so, dlopen()ed by test_unknown_report: one early
 * parameter with a dotted name ("plug.level"), the form a plugin's words
 * take so that the start-up report leaves them to it.
 */
#include <stdlib.h>

#include <linux/init.h>

static int level = -1;

static int set_level(char *val)
{
	if (!val)
		return -1;
	level = atoi(val);
	return 0;
}
early_param("plug.level", set_level);

int unknown_plugin_level(void)
{
	return level;
}
