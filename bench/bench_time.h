/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Timing for the slow-path benchmarks: microseconds, and sorting them. */
#ifndef _BENCH_BENCH_TIME_H
#define _BENCH_BENCH_TIME_H

#include <time.h>

static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Microseconds of CPU this thread used: time spent descheduled is not in it. */
static inline double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif /* _BENCH_BENCH_TIME_H */
