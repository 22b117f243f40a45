// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Slow-path figures for `make bench` about keys rather than sites: one
 * change of a key with one site, against the system calls the protocol
 * cannot do without (three writes and three barriers, timed in the same
 * run); and N keys of one site each changed one by one, against the same
 * changes in one batch (<statickeys/batch.h>).
 *   bench_keys          every figure
 *   bench_keys one R    R enable/disable pairs of the one-site key only
 *                       (for strace -c: system calls per change)
 *   bench_keys one R T  the same with T idle threads besides the caller
 *                       (the checks a process with other threads gets)
 *   bench_keys batch R  R batches of all N keys on, then off (for perf)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/batch.h>
#include <statickeys/statickeys.h>
#include "toggle.h"
#include "bench_time.h"

extern struct static_key_false *const bench_keys[];
extern const unsigned long bench_nr_keys;
extern unsigned long (*const *const bench_keys_fns)(void);
extern const unsigned long bench_nr_keys_fns;

static DEFINE_STATIC_KEY_FALSE(one_key);

static __attribute__((noinline)) int one_site(void)
{
	return static_branch_unlikely(&one_key) ? 1 : 0;
}

static int (*volatile one_fn)(void) = one_site;

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

#define REPS	200

/* One change of the one-site key: the median of @reps enables and disables. */
static double one_change(int reps, bool *ok)
{
	static double t[2 * REPS];
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now_us(), t1, t2;

		static_branch_enable(&one_key);
		t1 = now_us();
		*ok &= one_fn() == 1;
		t2 = now_us();
		static_branch_disable(&one_key);
		t[2 * r] = t1 - t0;
		t[2 * r + 1] = now_us() - t2;
		*ok &= one_fn() == 0;
	}
	return median(t, 2 * reps);
}

/*
 * The floor of one change: the three writes of the breakpoint protocol
 * (one byte each, rewriting the byte the site holds) and its three
 * barriers, and nothing else, through a descriptor opened beforehand.
 */
static double floor_change(int reps)
{
	static double t[REPS];
	uintptr_t site = (uintptr_t)one_site;
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC), r, i;
	unsigned char b;

	if (fd < 0)
		return 0;
	syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	memcpy(&b, (const void *)site, 1);
	for (r = 0; r < reps; r++) {
		double t0 = now_us();

		for (i = 0; i < 3; i++) {
			if (pwrite(fd, &b, 1, (off_t)site) != 1)
				return 0;
			syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
		}
		t[r] = now_us() - t0;
	}
	close(fd);
	return median(t, reps);
}

static bool keys_state(bool on)
{
	unsigned long i, sum = 0, n = bench_nr_keys;

	for (i = 0; i < bench_nr_keys_fns; i++)
		sum += bench_keys_fns[i]();
	return sum == (on ? n * (n + 1) / 2 : 0);
}

/*
 * All N keys one way, one by one or in one batch: microseconds, and in
 * *@cpu those of CPU time.
 */
static double all_keys(bool on, bool batch, bool *ok, double *cpu)
{
	double c0 = cpu_us(), t0 = now_us(), t;
	unsigned long i;

	if (batch)
		statickeys_batch_begin();
	for (i = 0; i < bench_nr_keys; i++) {
		if (on)
			static_branch_enable(bench_keys[i]);
		else
			static_branch_disable(bench_keys[i]);
	}
	if (batch && statickeys_batch_commit())
		*ok = false;
	t = now_us() - t0;
	*cpu = cpu_us() - c0;
	*ok &= keys_state(on);
	return t;
}

#define KEY_REPS	5

static void many_keys(void)
{
	double on[KEY_REPS], off[KEY_REPS], bon[KEY_REPS], boff[KEY_REPS];
	double cpu[4][KEY_REPS];
	struct statickeys_stats a, b, c;
	bool ok = true, bok = true;
	int r;

	statickeys_get_stats(&a);
	for (r = 0; r < KEY_REPS; r++) {
		on[r] = all_keys(true, false, &ok, &cpu[0][r]);
		off[r] = all_keys(false, false, &ok, &cpu[1][r]);
	}
	statickeys_get_stats(&b);
	for (r = 0; r < KEY_REPS; r++) {
		bon[r] = all_keys(true, true, &bok, &cpu[2][r]);
		boff[r] = all_keys(false, true, &bok, &cpu[3][r]);
	}
	statickeys_get_stats(&c);
	printf("keys %lu %d %.2f %.2f %.2f %.2f %.2f %.2f %s %s %.2f %.2f %.2f %.2f\n", bench_nr_keys,
	       KEY_REPS, median(on, KEY_REPS), median(off, KEY_REPS),
	       median(bon, KEY_REPS), median(boff, KEY_REPS),
	       (double)(b.sync_steps - a.sync_steps) / (2 * KEY_REPS),
	       (double)(c.sync_steps - b.sync_steps) / (2 * KEY_REPS),
	       ok ? "ok" : "not-flipped", bok ? "ok" : "not-flipped",
	       median(cpu[0], KEY_REPS), median(cpu[1], KEY_REPS),
	       median(cpu[2], KEY_REPS), median(cpu[3], KEY_REPS));
}

/* A thread that never runs a site: it only waits for the process to end. */
static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	bool ok = true;
	double one, fl;

	/* Warm-up: the first change ever chooses the write method. */
	static_branch_enable(&one_key);
	static_branch_disable(&one_key);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "one")) {
		int i, n = atoi(argv[2]);

		for (i = 0; argc == 4 && i < atoi(argv[3]); i++)
			if (pthread_create(&(pthread_t){ 0 }, NULL, idle, NULL))
				return 1;

		for (i = 0; i < n; i++) {
			static_branch_enable(&one_key);
			static_branch_disable(&one_key);
		}
		return one_fn() != 0;
	}
	if (argc == 3 && !strcmp(argv[1], "batch")) {
		double cpu;
		int i;

		for (i = 0; i < atoi(argv[2]); i++) {
			all_keys(true, true, &ok, &cpu);
			all_keys(false, true, &ok, &cpu);
		}
		return !ok;
	}
	one = one_change(REPS, &ok);
	fl = floor_change(REPS);
	printf("one %.2f %.2f %s\n", one, fl, ok ? "ok" : "not-flipped");
	many_keys();
	return 0;
}
