// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A daemon to control from outside (Documentation/control.rst): one unit
 * of work for each line on standard input (or every -i SECONDS), which
 * says what its keys and its pr_debug() site do.  In another terminal:
 *
 *	statickeys-keys PID --set ctl_verbose=on
 *	statickeys-keys PID --dyndbg 'func do_work +p'
 *	statickeys-keys PID --sites
 *
 * -c opens the channel with statickeys_control_start(); without it, run
 * it with STATICKEYS_CONTROL=1.  ctl_fast_path is read-only and
 * ctl_secret private: a request to change either is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dynamic_debug.h>
#include <linux/jump_label.h>
#include <linux/printk.h>
#include <statickeys/control.h>

DEFINE_STATIC_KEY_FALSE(ctl_verbose);
DEFINE_STATIC_KEY_TRUE_RO(ctl_fast_path);
DEFINE_STATIC_KEY_FALSE(ctl_secret);

static __attribute__((noinline)) void do_work(unsigned int n)
{
	printf("work %u: verbose %s, fast path %s, secret %s\n", n,
	       static_branch_unlikely(&ctl_verbose) ? "on" : "off",
	       static_branch_likely(&ctl_fast_path) ? "on" : "off",
	       static_branch_unlikely(&ctl_secret) ? "on" : "off");
	pr_debug("work %u done\n", n);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned int n = 0, interval = 0;
	char line[256];
	int opt, err;

	while ((opt = getopt(argc, argv, "ci:")) != -1) {
		if (opt == 'c') {
			err = statickeys_control_start();
			if (err) {
				fprintf(stderr, "ctl_daemon: no control channel: %s\n",
					strerror(-err));
				return 1;
			}
		} else if (opt == 'i') {
			interval = (unsigned int)atoi(optarg);
		} else {
			fprintf(stderr, "usage: ctl_daemon [-c] [-i SECONDS]\n");
			return 2;
		}
	}
	statickeys_control_private(&ctl_secret.key);
	printf("ctl_daemon: pid %d\n", (int)getpid());
	fflush(stdout);
	if (interval) {
		for (;;) {
			do_work(++n);
			sleep(interval);
		}
	}
	while (fgets(line, sizeof(line), stdin))
		do_work(++n);
	return 0;
}
