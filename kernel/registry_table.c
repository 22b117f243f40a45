// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * An object's jump table as the registry keeps it: sorted by key, then
 * code address, so that a key's sites are one run found by binary search,
 * and checked for sites that two keys claim.  Pure work on the table: no
 * lock is taken and nothing is written to code here.
 */
#include <string.h>

#include "registry.h"
#include "../lib/hash.h"

/*
 * The compiler emits a table in code order, so the table of an object with
 * one key (or whose keys never interleave) is in (key, code) order: one
 * pass (sk_table_scan()) proves it and nothing moves.  In such a table each
 * key's sites are one run in ascending code order, so the lowest and
 * highest site are at the ends of runs and the per-site work is a load and
 * two compares.
 */
void sk_table_scan(const struct jump_entry *start,
		   const struct jump_entry *stop, struct table_scan *s)
{
	uintptr_t key = 0, code = 0, k, c;
	const struct jump_entry *e;

	*s = (struct table_scan){ .sorted = true, .rising = true,
				  .lo = UINTPTR_MAX };
	for (e = start; e < stop; e++) {
		k = e->key & ~JUMP_ENTRY_FLAGS;
		c = jump_entry_code(e);
		if (k != key) {
			if (k < key) {
				s->sorted = false;
				return;
			}
			/* Within a key the test below says it: one compare a site. */
			if (e > start && c <= code)
				s->rising = false;
			if (e > start && code > s->hi)
				s->hi = code;
			if (c < s->lo)
				s->lo = c;
			if (k && sk_key_changed(k))
				s->changed = true;
			key = k;
		} else if (c <= code) {
			if (c < code) {
				s->sorted = false;
				return;
			}
			s->rising = false;
		}
		code = c;
	}
	if (e > start && code > s->hi)
		s->hi = code;
}

/*
 * Sorting moves entries, and their code and target fields are relative to
 * where they sit.  The first look at the table copies it to scratch memory
 * rebased on the table start, a value that does not change when an entry
 * moves; the last pass makes each field relative to its place again.  The
 * offsets are 32 bits wide as the fields are, and wrap alike.
 */
static inline int32_t rebased(const struct jump_entry *t, size_t i,
			      int32_t field)
{
	return (int32_t)((uint32_t)(i * sizeof(*t)) + (uint32_t)field);
}

/*
 * A radix round sorts on the key (without its flags) or on the rebased
 * site: on (value - min) >> shift, @width bits a pass.
 */
struct radix_round {
	bool by_key;
	uintptr_t min;
	unsigned int shift, width, passes;
};

/* A signed offset, biased so that unsigned order is its order. */
static inline uintptr_t site_value(int32_t code)
{
	return (uint32_t)code ^ 0x80000000u;
}

static inline uintptr_t sort_value(const struct jump_entry *e, bool by_key)
{
	return by_key ? e->key & ~JUMP_ENTRY_FLAGS : site_value(e->code);
}

/*
 * One stable counting pass of rebased entries from @src into @dst on the
 * digit at @shift; the @last one into the table, each entry made relative
 * to its place.  Inlined with constant @by_key and @last, so that neither
 * costs a test a site.
 */
static inline __attribute__((always_inline)) void
radix_pass(const struct jump_entry *src, struct jump_entry *dst, size_t n,
	   bool by_key, bool last, uintptr_t min, unsigned int shift,
	   size_t *count, size_t buckets)
{
	size_t i, j, c, sum = 0;

#define DIGIT(i) (((sort_value(&src[i], by_key) - min) >> shift) & (buckets - 1))
	memset(count, 0, buckets * sizeof(*count));
	for (i = 0; i < n; i++)
		count[DIGIT(i)]++;
	for (i = 0; i < buckets; i++) {
		c = count[i];
		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++) {
		j = count[DIGIT(i)]++;
		dst[j] = src[i];
		if (last) {
			dst[j].code = rebased(dst, -j, src[i].code);
			dst[j].target = rebased(dst, -j, src[i].target);
		}
	}
#undef DIGIT
}

static void sort_pass(const struct jump_entry *src, struct jump_entry *dst,
		      size_t n, const struct radix_round *r, unsigned int pass,
		      bool last, size_t *count)
{
	unsigned int shift = r->shift + pass * r->width;
	size_t buckets = (size_t)1 << r->width;

	if (r->by_key && last)
		radix_pass(src, dst, n, true, true, r->min, shift, count, buckets);
	else if (r->by_key)
		radix_pass(src, dst, n, true, false, r->min, shift, count, buckets);
	else if (last)
		radix_pass(src, dst, n, false, true, r->min, shift, count, buckets);
	else
		radix_pass(src, dst, n, false, false, r->min, shift, count, buckets);
}

/* Bits of @v up to its highest set one. */
static unsigned int bit_length(uintptr_t v)
{
	return v ? 8 * sizeof(v) - __builtin_clzl(v) : 0;
}

/*
 * Plan a round over values from @min to @max whose differences are all
 * multiples of 1 << @shift: as few passes as digits of at most @max_width
 * bits allow, all of one width.
 */
static void plan_round(struct radix_round *r, bool by_key, uintptr_t min,
		       uintptr_t max, unsigned int shift, unsigned int max_width)
{
	unsigned int bits = bit_length((max - min) >> shift);

	r->by_key = by_key;
	r->min = min;
	r->shift = shift;
	r->passes = (bits + max_width - 1) / max_width;
	r->width = r->passes ? (bits + r->passes - 1) / r->passes : 0;
}

/*
 * LSD radix sort into @start through @tmp (room for @n entries and 1 <<
 * @width counts): by site first (skipped when the table is in code order
 * already, as the compiler emits it), then by key, each pass stable.  A
 * round sorts only the bits in which its values differ, shifted down, so
 * the keys of an object (a few hundred bytes of data apart) take one pass.
 * The first look at the table learns that while it copies the table.
 */
static void radix_sort_entries(struct jump_entry *start, size_t n,
			       struct jump_entry *tmp, unsigned int width,
			       struct table_scan *s)
{
	uintptr_t k0 = start->key & ~JUMP_ENTRY_FLAGS, k, kmin = k0, kmax = k0;
	uintptr_t kdiff = 0;
	int32_t c, prev, cmin, cmax;
	struct radix_round by_site = { .passes = 0 }, by_key;
	struct jump_entry *src = tmp, *dst = start, *t;
	size_t *count = (size_t *)(tmp + n), i;
	bool code_sorted = true;
	unsigned int p, passes;

	tmp[0] = (struct jump_entry){ rebased(start, 0, start[0].code),
				      rebased(start, 0, start[0].target),
				      start[0].key };
	prev = tmp[0].code;
	for (i = 1; i < n; i++) {
		tmp[i].code = c = rebased(start, i, start[i].code);
		tmp[i].target = rebased(start, i, start[i].target);
		tmp[i].key = start[i].key;
		k = start[i].key & ~JUMP_ENTRY_FLAGS;
		if (c <= prev) {
			s->rising = false;
			code_sorted &= c == prev;
		}
		prev = c;
		kmin = k < kmin ? k : kmin;
		kmax = k > kmax ? k : kmax;
		kdiff |= k ^ k0;
	}
	cmin = tmp[0].code;
	cmax = tmp[n - 1].code;
	if (!code_sorted) {
		for (i = 0; i < n; i++) {
			cmin = tmp[i].code < cmin ? tmp[i].code : cmin;
			cmax = tmp[i].code > cmax ? tmp[i].code : cmax;
		}
		plan_round(&by_site, false, site_value(cmin), site_value(cmax),
			   0, width);
	}
	s->lo = (uintptr_t)&start->code + cmin;
	s->hi = (uintptr_t)&start->code + cmax;
	plan_round(&by_key, true, kmin, kmax,
		   kdiff ? __builtin_ctzl(kdiff) : 0, width);
	passes = by_site.passes + by_key.passes;
	if (!passes)	/* one key, sites in order: nothing moves */
		return;
	/* The last pass goes from the copy into the table. */
	if (!(passes & 1)) {
		memcpy(start, tmp, n * sizeof(*start));
		src = start;
		dst = tmp;
	}
	for (p = 0; p < passes; p++) {
		if (p < by_site.passes)
			sort_pass(src, dst, n, &by_site, p, p == passes - 1,
				  count);
		else
			sort_pass(src, dst, n, &by_key, p - by_site.passes,
				  p == passes - 1, count);
		t = src;
		src = dst;
		dst = t;
	}
}

/*
 * Without scratch memory: rebase every entry in place, so that qsort() may
 * move it, and back.
 */
static int entry_cmp(const void *a, const void *b)
{
	const struct jump_entry *x = a, *y = b;
	uintptr_t kx = x->key & ~JUMP_ENTRY_FLAGS;
	uintptr_t ky = y->key & ~JUMP_ENTRY_FLAGS;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static void qsort_entries(struct jump_entry *start, size_t n,
			  struct table_scan *s)
{
	int32_t cmin = INT32_MAX, cmax = INT32_MIN;
	size_t i;

	for (i = 0; i < n; i++) {
		start[i].code = rebased(start, i, start[i].code);
		start[i].target = rebased(start, i, start[i].target);
		if (i && start[i].code <= start[i - 1].code)
			s->rising = false;
		cmin = start[i].code < cmin ? start[i].code : cmin;
		cmax = start[i].code > cmax ? start[i].code : cmax;
	}
	s->lo = (uintptr_t)&start->code + cmin;
	s->hi = (uintptr_t)&start->code + cmax;
	qsort(start, n, sizeof(*start), entry_cmp);
	for (i = 0; i < n; i++) {
		start[i].code = rebased(start, -i, start[i].code);
		start[i].target = rebased(start, -i, start[i].target);
	}
}

/*
 * Where the run of @e's key ends in a table in (key, code) order, found by
 * galloping: a run of n entries costs about 2 log n looks, so that a few
 * keys of many sites cost a few looks and many keys of one site each one.
 */
struct jump_entry *sk_key_run_end(struct jump_entry *e,
				  struct jump_entry *stop)
{
	uintptr_t k = e->key & ~JUMP_ENTRY_FLAGS;
	size_t n = stop - e, lo = 0, hi = 1, mid;

	for (; hi < n && (e[hi].key & ~JUMP_ENTRY_FLAGS) == k; hi *= 2)
		lo = hi;
	if (hi > n)
		hi = n;
	while (hi - lo > 1) {	/* e[lo] is k's, e[hi] is not */
		mid = lo + (hi - lo) / 2;
		if ((e[mid].key & ~JUMP_ENTRY_FLAGS) == k)
			lo = mid;
		else
			hi = mid;
	}
	return e + hi;
}

/*
 * Whether a key of a table in (key, code) order is not in the state its
 * sites were built for: one look per key.
 */
static bool keys_changed(struct jump_entry *e, struct jump_entry *stop)
{
	for (; e < stop; e = sk_key_run_end(e, stop))
		if (jump_entry_key(e) && sk_key_changed((uintptr_t)jump_entry_key(e)))
			return true;
	return false;
}

/*
 * Sort an object's table by key, then code address, in place: the update
 * finds a key's sites as one run by binary search.  Learns on the way what
 * sk_table_scan() tells of a table in order: @s says whether the sites rose
 * before (no two entries of one site), where the lowest and highest are,
 * and whether a key changed.
 */
#define SORT_MAX_WIDTH	11	/* 2048 buckets, 16 KiB of counts */

void sk_table_sort(struct jump_entry *start, struct jump_entry *stop,
		   struct table_scan *s)
{
	size_t n = stop - start;
	unsigned int width = bit_length(n);
	struct jump_entry *tmp;

	*s = (struct table_scan){ .sorted = true, .rising = true };
	/* Passes over few buckets for a small table, fewer for a large one. */
	width = width < 8 ? 8 : width > SORT_MAX_WIDTH ? SORT_MAX_WIDTH : width;
	tmp = malloc(n * sizeof(*tmp) + ((size_t)1 << width) * sizeof(size_t));
	if (tmp)
		radix_sort_entries(start, n, tmp, width, s);
	else
		qsort_entries(start, n, s);
	free(tmp);
	s->changed = keys_changed(start, stop);
}

/*
 * One site claimed by entries of different keys (or of one key with both
 * polarities).  The compiler never emits that; identical code folding
 * (gold and lld --icf=all) does, when two functions differ only in the key
 * they test and nothing ties each site to its own entry (older headers, a
 * linker that folds regardless; <statickeys/sections.h> has the tie).
 * Patching such a site for one key would switch the other's branch too.
 * The entries are marked dead: the site stays as built, and every key that
 * claims it refuses every change (EILSEQ).
 *
 * One site in sk_table_check_shared()'s hash table; code 0 is a free slot. */
struct site_slot {
	uintptr_t code;
	uintptr_t key;		/* the first key seen, with the polarity bit */
	bool shared;		/* another key claims it too */
};

static struct site_slot *site_slot(struct site_slot *t, unsigned int bits,
				   uintptr_t code)
{
	size_t i = sk_hash_slot(code, bits);

	while (t[i].code && t[i].code != code)
		i = sk_hash_next(i, bits);
	return &t[i];
}

/*
 * sk_table_check_shared() - find and refuse the sites of a table that entries
 * of different keys claim.  Returns how many, with the first few in @out (for
 * report_shared_sites(), after the lock is dropped), or -ENOMEM when the
 * table could not be checked and every one of its sites was refused.
 * Called locked.
 *
 * The compiler emits a table in code order: when its sites were found
 * @rising, each above the one before, on the pass that registration makes
 * anyway (sk_table_scan() or sk_table_sort()), no two entries share a
 * site and nothing is done.  Other tables go through a hash table of their sites,
 * twice when a site is shared: every entry of such a site is marked dead,
 * so that none is brought to its key's state either.
 */
long sk_table_check_shared(struct jump_entry *start, struct jump_entry *stop,
			   bool rising, struct shared_site *out)
{
	size_t n = stop - start, i, found = 0;
	unsigned int bits = sk_hash_bits(n);
	struct site_slot *t, *sl;

	if (rising)
		return 0;
	t = calloc((size_t)1 << bits, sizeof(*t));
	if (!t) {
		/* Unchecked is unsafe: every site of the object is refused. */
		for (i = 0; i < n; i++)
			start[i].key |= JUMP_ENTRY_DEAD;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uintptr_t key = start[i].key & ~JUMP_ENTRY_DEAD;

		sl = site_slot(t, bits, jump_entry_code(&start[i]));
		if (!sl->code) {
			sl->code = jump_entry_code(&start[i]);
			sl->key = key;
		} else if (sl->key != key && !sl->shared) {
			sl->shared = true;
			if (found < NR_SHARED_REPORTED)
				out[found] = (struct shared_site){ sl->code,
								   sl->key, key };
			found++;
		}
	}
	for (i = 0; found && i < n; i++)
		if (site_slot(t, bits, jump_entry_code(&start[i]))->shared)
			start[i].key |= JUMP_ENTRY_DEAD;
	free(t);
	return found;
}
