// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A natural merge sort: find the runs already in order, merge neighbours
 * pairwise until one is left.  Input that is in order, or nearly, is what
 * the library sorts, and a run costs nothing to find.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

/* End of the run in order that starts at record @i. */
static size_t run_end(const char *b, size_t i, size_t n, size_t size,
		      sk_cmp_fn cmp)
{
	for (i++; i < n && cmp(b + (i - 1) * size, b + i * size) <= 0; i++)
		;
	return i;
}

/* Merge the runs [@a, @m) and [@m, @e) of @from into @to, stably. */
static void merge_runs(const char *from, char *to, size_t a, size_t m,
		       size_t e, size_t size, sk_cmp_fn cmp)
{
	size_t i = a, j = m, k = a;

	while (i < m || j < e) {
		bool left = j >= e ||
			    (i < m && cmp(from + i * size, from + j * size) <= 0);
		size_t src = left ? i++ : j++;

		memcpy(to + k++ * size, from + src * size, size);
	}
}

int sk_sort(void *base, size_t n, size_t size, sk_cmp_fn cmp)
{
	char *b = base, *tmp, *from, *to, *t;
	size_t a, m, e;

	if (n < 2 || run_end(b, 0, n, size, cmp) == n)
		return 0;
	tmp = malloc(n * size);
	if (!tmp)
		return -ENOMEM;
	/* Each round halves the runs, from one buffer into the other. */
	from = b;
	to = tmp;
	do {
		for (a = 0; a < n; a = e) {
			m = run_end(from, a, n, size, cmp);
			e = m < n ? run_end(from, m, n, size, cmp) : m;
			merge_runs(from, to, a, m, e, size, cmp);
		}
		t = from;
		from = to;
		to = t;
	} while (run_end(from, 0, n, size, cmp) < n);
	if (from != b)
		memcpy(b, from, n * size);
	free(tmp);
	return 0;
}
