/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The library's one general sort (lib/sort.c).  What it sorts is mostly in
 * order already: a patch queue is a few runs, one per object, each in
 * address order; a jump table comes in code order.
 */
#ifndef _STATICKEYS_LIB_SORT_H
#define _STATICKEYS_LIB_SORT_H

#include <stddef.h>

typedef int (*sk_cmp_fn)(const void *a, const void *b);

/*
 * sk_sort() - sort @n records of @size bytes at @base by @cmp, stably.
 * In order already costs one pass of compares; otherwise the sorted runs
 * are merged, O(n log runs), through scratch memory; two runs that do not
 * overlap are joined by copying them whole.  0, or -ENOMEM with the
 * records unchanged.
 */
int sk_sort(void *base, size_t n, size_t size, sk_cmp_fn cmp)
	__attribute__((visibility("hidden")));
/* The same for records that start with a uintptr_t, by that value. */
int sk_sort_addr(void *base, size_t n, size_t size)
	__attribute__((visibility("hidden")));

#endif /* _STATICKEYS_LIB_SORT_H */
