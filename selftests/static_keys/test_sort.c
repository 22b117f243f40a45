// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * lib/sort.c, the library's one general sort, on the inputs it is given:
 * in order already, a few runs in order (a patch queue, one run an
 * object), and shuffled; each result is checked against the order and
 * for stability, records of equal address keeping their order.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../lib/sort.h"

struct rec {
	uintptr_t addr;
	size_t seq;	/* where it was before the sort */
};

static unsigned long compares;

/* A record that is not whole words long: turned round byte-wise. */
struct rec12 {
	uint32_t addr, seq;
	char pad[4];
};

static int rec12_cmp(const void *a, const void *b)
{
	const struct rec12 *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	compares++;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* In order by address, records of one address in their first order. */
static int sorted_stably(const struct rec *r, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (r[i - 1].addr > r[i].addr ||
		    (r[i - 1].addr == r[i].addr && r[i - 1].seq > r[i].seq))
			return 0;
	return 1;
}

static int check(const char *what, struct rec *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		r[i].seq = i;
	return tap_ok(!sk_sort(r, n, sizeof(*r), rec_cmp) &&
		      sorted_stably(r, n), "%s: %zu records sorted, stably", what, n);
}

int main(void)
{
	enum { N = 5000 };
	static struct rec r[N];
	size_t i, runs = 7;

	static struct rec12 r12[N];
	bool ok12;

	tap_plan(12);
	srand(27);
	for (i = 0; i < N; i++)
		r[i].addr = 16 * i;
	check("in order", r, N);
	/* One run per object, each in address order, objects interleaved. */
	for (i = 0; i < N; i++)
		r[i].addr = (i % (N / runs)) * 64 + (i / (N / runs));
	check("a few runs", r, N);
	for (i = 0; i < N; i++)
		r[i].addr = (uintptr_t)rand() % (N / 4);	/* many equal */
	check("shuffled, with equal addresses", r, N);
	for (i = 0; i < N; i++)
		r[i].addr = N - i;
	check("reversed", r, N);
	check("one record", r, 1);
	for (i = 0; i < N; i++)
		r12[i] = (struct rec12){ (uint32_t)(N - i), (uint32_t)i, "abc" };
	ok12 = !sk_sort(r12, N, sizeof(*r12), rec12_cmp);
	for (i = 0; i < N && ok12; i++)
		ok12 = r12[i].addr == i + 1 && r12[i].seq == N - 1 - i &&
		       !strcmp(r12[i].pad, "abc");
	tap_ok(sizeof(struct rec12) % sizeof(uint64_t) && ok12,
	       "reversed, records of %zu bytes (not whole words)", sizeof(struct rec12));
	/*
	 * Runs that do not overlap, in reverse order: the sites of a file's
	 * functions when the compiler emits the functions last to first.
	 * Joining them whole costs a few compares a run, not one a record
	 * and a round.
	 */
	for (i = 0; i < N; i++)
		r[i].addr = (N / 100 - 1 - i / 100) * 1000 + i % 100;
	compares = 0;
	check("runs that do not overlap, last first", r, N);
	tap_ok(compares < 3 * N, "%lu compares for %d records in %d runs (fewer than %d)",
	       compares, N, N / 100, 3 * N);
	/* The same with equal records where two runs meet: none may swap. */
	for (i = 0; i < N; i++)
		r[i].addr = (N / 100 - 1 - i / 100) * 99 + i % 100;
	check("runs that meet on an equal record, last first", r, N);
	/*
	 * Runs in reverse order, one after the other in order: pr_debug()
	 * descriptors, laid out last to first within each function.
	 */
	for (i = 0; i < N; i++)
		r[i].addr = (i / 100) * 1000 + 99 - i % 100;
	compares = 0;
	check("runs in reverse order, one after the other", r, N);
	tap_ok(compares < 3 * N, "%lu compares for %d records in %d reversed runs (fewer than %d)",
	       compares, N, N / 100, 3 * N);
	/* The patch queues' sort: by the leading address, equal ones kept in order. */
	for (i = 0; i < N; i++)
		r[i].addr = (i / 100) * 1000 + (99 - i % 100) / 2;
	for (i = 0; i < N; i++)
		r[i].seq = i;
	tap_ok(!sk_sort_addr(r, N, sizeof(*r)) && sorted_stably(r, N),
	       "sk_sort_addr(): reversed runs with equal addresses, sorted stably");
	return tap_exit();
}
