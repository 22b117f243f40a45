// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Fast-path driver for `make bench`: calls each measured function a fixed
 * number of times (for callgrind), or times it (best of several runs).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <statickeys/statickeys.h>
#include "bench.h"

static const struct variant {
	const char *name;
	bench_fn fn;
	int taken;		/* does the branch's body run? */
} variants[] = {
	{ "none",		bench_none,		0 },
	{ "static_off",		bench_static_off,	0 },
	{ "static_on",		bench_static_on,	1 },
	{ "flag_off",		bench_flag_off_fn,	0 },
	{ "flag_on",		bench_flag_on_fn,	1 },
	{ "fallback_off",	bench_fallback_off,	0 },
	{ "fallback_on",	bench_fallback_on,	1 },
	{ "pr_debug_none",	bench_pr_debug_none,	0 },
	{ "pr_debug_off",	bench_pr_debug_off,	0 },
	{ "pr_debug_live",	bench_pr_debug_live,	0 },
};

#define NR_VARIANTS	(sizeof(variants) / sizeof(variants[0]))

static unsigned long sink;

/* One loop for every variant: the call through a pointer costs them all the same. */
static __attribute__((noinline)) void run_loop(bench_fn fn, unsigned long n)
{
	unsigned long i, x = 0;

	for (i = 0; i < n; i++)
		x = fn(x);
	sink += x;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static unsigned long long ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

/* Every variant n times: callgrind divides its instruction count by n. */
static int do_calls(unsigned long n)
{
	unsigned long want = 0;
	size_t v;

	for (v = 0; v < NR_VARIANTS; v++) {
		run_loop(variants[v].fn, n);
		want += variants[v].taken ? n : 0;
	}
	/* Proves the enabled sites really jumped (under callgrind too). */
	printf("hits %lu %lu\n", bench_hits, want);
	return bench_hits != want;
}

/*
 * Best of @reps runs of n calls, the variants interleaved within each
 * round so that a slow patch of the machine hurts them all alike.
 */
static int do_time(unsigned long n, int reps)
{
	double best_ns[NR_VARIANTS];
	unsigned long long best_tk[NR_VARIANTS];
	size_t v;
	int r;

	for (v = 0; v < NR_VARIANTS; v++) {
		best_ns[v] = 1e300;
		best_tk[v] = ~0ULL;
		run_loop(variants[v].fn, n / 10);	/* warm up */
	}
	for (r = 0; r < reps; r++) {
		for (v = 0; v < NR_VARIANTS; v++) {
			unsigned long long t0 = ticks(), t1;
			double n0 = now_ns(), n1;

			run_loop(variants[v].fn, n);
			n1 = now_ns();
			t1 = ticks();
			if (n1 - n0 < best_ns[v])
				best_ns[v] = n1 - n0;
			if (t1 - t0 < best_tk[v])
				best_tk[v] = t1 - t0;
		}
	}
#if defined(__x86_64__)
	printf("clock tsc\n");
#else
	printf("clock none\n");
#endif
	for (v = 0; v < NR_VARIANTS; v++)
		printf("time %s %.4f %.4f\n", variants[v].name, best_ns[v] / n,
		       (double)best_tk[v] / n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	int reps = argc > 3 ? atoi(argv[3]) : 5;

	static_branch_enable(&bench_key_on);
	bench_flag_on = 1;
	if (!static_key_enabled(&bench_key_on)) {
		fprintf(stderr, "bench_branch: cannot enable a key (error %d)\n",
			statickeys_last_error());
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "calls"))
		return do_calls(n);
	if (argc > 1 && !strcmp(argv[1], "time"))
		return do_time(n, reps > 0 ? reps : 1);
	fprintf(stderr, "usage: bench_branch calls|time [N [REPS]]\n");
	return 2;
}
