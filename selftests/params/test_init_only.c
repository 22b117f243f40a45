// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * early_param() and __setup() in an object that includes only
 * <linux/init.h> (libinit_only.so, built from init_only.c) are applied
 * from STATICKEYS_CMDLINE before main(), as with <linux/jump_label.h>.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "probe.h"

int init_only_state(int which);

static int probe(const char *mode)
{
	printf("early=%d setup=%d\n", init_only_state(0), init_only_state(1));
	return 0;
}

int main(int argc, char **argv)
{
	char out[4096], err[4096];
	int ret;

	probe_enter(argc, argv, probe);

	tap_plan(3);
	tap_ok(init_only_state(0) == -1 && init_only_state(1) == -1,
	       "no command line: neither handler ran");
	ret = run_probe(argv[0], NULL, "init_only_early=on init_only_setup=y",
			out, sizeof(out), err, sizeof(err));
	tap_ok(ret == 0, "probe ran (status %d)", ret);
	tap_ok(!strcmp(out, "early=1 setup=1\n"),
	       "early_param() and __setup() of an object with only <linux/init.h> ran");
	if (tap_failed)
		tap_diag("probe stdout: %s stderr: %s", out, err);
	return tap_exit();
}
