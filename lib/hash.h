/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Open addressing by address, the one way the library hashes: a table of
 * a power of two slots, at most half full, probed linearly from the slot
 * that multiplicative (Fibonacci) hashing gives: the top bits of the
 * address times 2^64 divided by the golden ratio.  Pointers and code
 * addresses differ mostly in their low bits; the multiply spreads them
 * into the top ones.
 */
#ifndef _STATICKEYS_LIB_HASH_H
#define _STATICKEYS_LIB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SK_HASH_GOLDEN	0x9e3779b97f4a7c15ull

/* The slot of @v in a table of 1 << @bits slots (1 <= @bits <= 63). */
static inline size_t sk_hash_slot(uintptr_t v, unsigned int bits)
{
	return (size_t)(((uint64_t)v * SK_HASH_GOLDEN) >> (64 - bits));
}

/* The slot probed after @i in a table of 1 << @bits slots. */
static inline size_t sk_hash_next(size_t i, unsigned int bits)
{
	return (i + 1) & (((size_t)1 << bits) - 1);
}

/* The bits of a table at most half full with @n entries: at least 1. */
static inline unsigned int sk_hash_bits(size_t n)
{
	unsigned int bits = 1;

	while (((size_t)1 << bits) < 2 * n)
		bits++;
	return bits;
}

#endif /* _STATICKEYS_LIB_HASH_H */
