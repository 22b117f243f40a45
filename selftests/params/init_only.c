// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Boot parameters declared the way kernel code declares them, with
 * <linux/init.h> and nothing else: this shared object has no key and no
 * site, so only that header can register its parameters.
 */
#include <linux/init.h>

static int early_seen = -1;
static int setup_seen = -1;

static int __init init_only_early(char *val)
{
	bool on;

	if (kstrtobool(val, &on))
		return -1;
	early_seen = on;
	return 0;
}
early_param("init_only_early", init_only_early);

static int __init init_only_setup(char *str)
{
	setup_seen = str[0] == 'y';
	return 1;
}
__setup("init_only_setup=", init_only_setup);

/* What the handlers saw: -1 when they never ran. */
__attribute__((visibility("default"))) int init_only_state(int which)
{
	return which ? setup_seen : early_seen;
}
