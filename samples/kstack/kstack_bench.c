// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Cost of one entry: N null system calls (getppid) through the direct entry
 * or the seccomp trap, no hook.  Prints ns per entry; run it under callgrind
 * for instruction counts (scripts/Makefile.run, bench-kstack).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/randomize_kstack.h>
#include <statickeys/entry.h>

/* "none" in a library built without CONFIG_RANDOMIZE_KSTACK_OFFSET. */
static const char *key_state(void)
{
#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET
	return static_key_enabled(&randomize_kstack_offset) ? "on" : "off";
#else
	return "none";
#endif
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const long nrs[] = { SYS_getppid };
	const char *how = argc > 1 ? argv[1] : "direct";
	long i, n = argc > 2 ? atol(argv[2]) : 1000000;
	unsigned int path = STATICKEYS_ENTRY_DIRECT;
	double t0, t1;

	if (!strcmp(how, "trap")) {
		if (statickeys_entry_install(nrs, 1)) {
			printf("path=none\n");
			return 2;
		}
		path = STATICKEYS_ENTRY_SECCOMP;
	} else if (!strcmp(how, "raw")) {
		path = 0;
	}
	statickeys_entry_thread_init();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (path == STATICKEYS_ENTRY_DIRECT)
			statickeys_entry_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
		else
			syscall(SYS_getppid);
	}
	t1 = now_ns();
	printf("path=%s key=%s n=%ld ns=%.2f\n",
	       path ? statickeys_entry_path_name(path) : "raw",
	       key_state(),
	       n, (t1 - t0) / n);
	return 0;
}
