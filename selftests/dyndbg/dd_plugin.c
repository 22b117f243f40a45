// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A dlopen()ed object with two pr_debug() sites: the tests run queries
 * before loading it and check that its sites come up in the state those
 * queries would have given them.
 */
#include <linux/printk.h>
#include "dd.h"

void dd_plugin_run(int v, unsigned int lines[2]);

static void plugin_one(int v, unsigned int *line)
{
	*line = __LINE__ + 1;
	pr_debug("plugin one %d\n", v);
}

static void plugin_two(int v, unsigned int *line)
{
	*line = __LINE__ + 1;
	pr_debug("plugin two %d\n", v);
}

__attribute__((visibility("default"))) void dd_plugin_run(int v,
							   unsigned int lines[2])
{
	plugin_one(v, &lines[0]);
	plugin_two(v, &lines[1]);
}
