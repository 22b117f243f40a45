// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A natural merge sort: find the runs already in order once (a run in
 * strictly reverse order is turned round in place), then merge neighbours
 * pairwise until one is left.  Input that is in order, or nearly, is what
 * the library sorts: a run costs nothing to find, and two runs that do
 * not overlap (the sites of two functions, the tables of two objects) are
 * put together by copying, not record by record; runs that each lie wholly
 * after the next are put the other way round in one pass.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

/*
 * The helpers that take the comparison are put inline into each sort made
 * (sort() below), so that a constant comparison is inline too.
 */
#define SORT_INLINE	static inline __attribute__((always_inline))

/* End of the run in order that starts at record @i. */
SORT_INLINE size_t run_end(const char *b, size_t i, size_t n, size_t size,
			   sk_cmp_fn cmp)
{
	for (i++; i < n && cmp(b + (i - 1) * size, b + i * size) <= 0; i++)
		;
	return i;
}

/* Turn the @n records at @b round, through @swap (one record). */
static void reverse(char *b, size_t n, size_t size, char *swap)
{
	char *lo = b, *hi = b + (n - 1) * size;
	uint64_t x, y;
	size_t k;

	for (; lo < hi; lo += size, hi -= size) {
		if (size % sizeof(x)) {
			memcpy(swap, lo, size);
			memcpy(lo, hi, size);
			memcpy(hi, swap, size);
			continue;
		}
		/* Records of whole words (the patch queues): no calls. */
		for (k = 0; k < size; k += sizeof(x)) {
			memcpy(&x, lo + k, sizeof(x));
			memcpy(&y, hi + k, sizeof(y));
			memcpy(lo + k, &y, sizeof(y));
			memcpy(hi + k, &x, sizeof(x));
		}
	}
}

/*
 * End of the run that starts at record @i, in order or in strictly
 * reverse order; the latter is turned round (strictly: equal records
 * keep their order).  A compiler that lays out a function's static data
 * last to first gives such runs: the pr_debug() descriptors of a function.
 */
SORT_INLINE size_t take_run(char *b, size_t i, size_t n, size_t size,
			    sk_cmp_fn cmp, char *swap)
{
	size_t j = i + 1;

	if (j == n || cmp(b + i * size, b + j * size) <= 0)
		return run_end(b, i, n, size, cmp);
	for (j++; j < n && cmp(b + (j - 1) * size, b + j * size) > 0; j++)
		;
	reverse(b + i * size, j - i, size, swap);
	return j;
}

/*
 * Merge the runs [@a, @m) and [@m, @e) of @from into @to, stably.  When
 * one run lies wholly before the other it is one copy each; the right run
 * goes first only when its last record is strictly before the left run's
 * first, so equal records never change places.
 */
SORT_INLINE void merge_runs(const char *from, char *to, size_t a, size_t m,
			    size_t e, size_t size, sk_cmp_fn cmp)
{
	size_t i = a, j = m, k = a;

	if (m == e || cmp(from + (m - 1) * size, from + m * size) <= 0) {
		memcpy(to + a * size, from + a * size, (e - a) * size);
		return;
	}
	if (cmp(from + (e - 1) * size, from + a * size) < 0) {
		memcpy(to + a * size, from + m * size, (e - m) * size);
		memcpy(to + (a + e - m) * size, from + a * size, (m - a) * size);
		return;
	}
	while (i < m || j < e) {
		bool left = j >= e ||
			    (i < m && cmp(from + i * size, from + j * size) <= 0);
		size_t src = left ? i++ : j++;

		memcpy(to + k++ * size, from + src * size, size);
	}
}

/*
 * Whether each of the @runs runs (ends[]: one past each) lies wholly after
 * the next one, strictly: the runs of a compiler that lays out functions
 * last to first, each function's sites in order.  Then the runs need only
 * be put the other way round, one copy each, however many there are.
 */
SORT_INLINE bool runs_descend(const char *b, const size_t *ends, size_t runs,
			      size_t size, sk_cmp_fn cmp)
{
	size_t r;

	for (r = 0; r + 1 < runs; r++)
		if (cmp(b + (ends[r + 1] - 1) * size,
			b + (r ? ends[r - 1] : 0) * size) >= 0)
			return false;
	return true;
}

/*
 * The sort, made once for each comparison it is given: with a constant
 * @cmp the compiler puts the comparison inline (sk_sort_addr()).
 */
SORT_INLINE int sort(void *base, size_t n, size_t size, sk_cmp_fn cmp)
{
	char *b = base, *tmp, *from, *to, *t;
	size_t *ends, runs, i, r, e;

	if (n < 2 || run_end(b, 0, n, size, cmp) == n)
		return 0;
	tmp = malloc(n * size);
	ends = malloc(n * sizeof(*ends));
	if (!tmp || !ends) {
		free(tmp);
		free(ends);
		return -ENOMEM;
	}
	/*
	 * ends[r]: one past the last record of run r.  A run that continues
	 * the one before it (once turned round) joins it.
	 */
	for (runs = 0, i = 0; i < n; i = e) {
		e = take_run(b, i, n, size, cmp, tmp);
		if (runs && cmp(b + (i - 1) * size, b + i * size) <= 0)
			ends[runs - 1] = e;
		else
			ends[runs++] = e;
	}
	if (runs_descend(b, ends, runs, size, cmp)) {
		for (r = runs, i = 0; r-- > 0; i += ends[r] - e) {
			e = r ? ends[r - 1] : 0;
			memcpy(tmp + i * size, b + e * size, (ends[r] - e) * size);
		}
		memcpy(b, tmp, n * size);
		runs = 1;	/* nothing to merge */
	}
	/* Each round halves the runs, from one buffer into the other. */
	from = b;
	to = tmp;
	while (runs > 1) {
		for (r = 0, i = 0; r < runs; r += 2) {
			size_t m = ends[r];

			e = r + 1 < runs ? ends[r + 1] : m;
			merge_runs(from, to, i, m, e, size, cmp);
			ends[r / 2] = e;
			i = e;
		}
		runs = (runs + 1) / 2;
		t = from;
		from = to;
		to = t;
	}
	if (from != b)
		memcpy(b, from, n * size);
	free(tmp);
	free(ends);
	return 0;
}

int sk_sort(void *base, size_t n, size_t size, sk_cmp_fn cmp)
{
	return sort(base, n, size, cmp);
}

static int addr_cmp(const void *a, const void *b)
{
	uintptr_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return (x > y) - (x < y);
}

int sk_sort_addr(void *base, size_t n, size_t size)
{
	return sort(base, n, size, addr_cmp);
}
