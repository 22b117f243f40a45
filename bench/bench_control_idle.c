// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The idle control channel for `make bench`: a process opens its channel
 * (statickeys_control_start()) and then does nothing for BENCH_IDLE_MS
 * milliseconds (default 2000).  Its control thread must not wake up once
 * (no polling, no timer) nor use any CPU meanwhile.  Prints
 *   ctlidle MS CPU_NS_BEFORE CPU_NS_AFTER WAKEUPS_BEFORE WAKEUPS_AFTER
 * for the control thread, from /proc/self/task/TID/schedstat (time on a
 * CPU, nanoseconds) and .../status (voluntary context switches: each time
 * it went to sleep again after waking), or "ctlidle error WHY".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <statickeys/control.h>

/* The thread of this process named "sk-control": its tid, or 0. */
static long control_tid(void)
{
	char path[300], name[32];
	struct dirent *d;
	long tid = 0;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir && !tid && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strcmp(name, "sk-control\n"))
			tid = atol(d->d_name);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/* The thread's time on a CPU (ns) and voluntary switches; false if unread. */
static int thread_use(long tid, unsigned long long *ns, unsigned long *wakeups)
{
	char path[96], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", tid);
	f = fopen(path, "r");
	if (f) {
		got += fscanf(f, "%llu", ns) == 1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		got += sscanf(line, "voluntary_ctxt_switches: %lu", wakeups) == 1;
	if (f)
		fclose(f);
	return got == 2;
}

int main(void)
{
	const char *env = getenv("BENCH_IDLE_MS");
	long ms = env ? atol(env) : 2000, tid;
	unsigned long long ns0, ns1;
	unsigned long w0, w1;
	struct timespec idle;
	int err = statickeys_control_start();

	if (err) {
		printf("ctlidle error statickeys_control_start() returned %d\n", err);
		return 1;
	}
	tid = control_tid();
	/* Settle: the thread's own start-up is not the idle interval. */
	idle = (struct timespec){ 0, 100 * 1000 * 1000 };
	nanosleep(&idle, NULL);
	if (!tid || !thread_use(tid, &ns0, &w0)) {
		printf("ctlidle error no control thread to read (tid %ld)\n", tid);
		return 1;
	}
	idle = (struct timespec){ ms / 1000, ms % 1000 * 1000 * 1000 };
	while (nanosleep(&idle, &idle))
		;
	if (!thread_use(tid, &ns1, &w1)) {
		printf("ctlidle error the control thread went away\n");
		return 1;
	}
	printf("ctlidle %ld %llu %llu %lu %lu\n", ms, ns0, ns1, w0, w1);
	return 0;
}
