// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The registry of objects: one entry per registered executable or shared
 * object, as the kernel keeps its modules' with the module loader.  Here an
 * object's segments are found, its jump table sorted and checked for sites
 * claimed by two keys (identical code folding), its sites brought to their
 * keys' state, and its read-only keys sealed, copies found through its
 * symbol tables.  The key core (kernel/jump_label.c) walks the tables
 * through sk_next_table() and asks sk_key_sealed_by() before a change; its
 * lock, jump_label_mutex, guards the list here too, and the lock order and
 * fork() handling are written there once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "queue.h"
#include "../lib/lifecycle.h"

#define MAX_SEGMENTS	8

struct sk_segment {
	uintptr_t start, end;
	int prot;
};

/*
 * One registered executable or shared object.  Its entries are sorted by key
 * then address, so the sites of a key form one run found by binary search.
 */
struct sk_object {
	struct sk_object *next;
	const void *handle;
	struct jump_entry *start, *stop;
	const struct obs_kernel_param *param_start;
	char *ro_start, *ro_stop;
	char *ro_page_start, *ro_page_end;
	unsigned int flags;
	bool sealed;
	bool main;		/* the main program: never unmapped */
	bool pinned;		/* made RTLD_NODELETE at exit: never unmapped */
	void **copies;		/* read-only keys the program uses a copy of */
	size_t nr_copies;
	int nsegs;
	struct sk_segment segs[MAX_SEGMENTS];
	char name[256];
};

/* Guarded by jump_label_mutex. */
static struct sk_object *objects;

struct find_segs {
	uintptr_t addr;
	struct sk_object *obj;
};

static int find_segs_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_segs *fs = data;
	struct sk_object *o = fs->obj;
	bool mine = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && fs->addr >= s &&
		    fs->addr < s + ph->p_memsz)
			mine = true;
	}
	if (!mine)
		return 0;
	snprintf(o->name, sizeof(o->name), "%s",
		 info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
						       : "(main program)");
	/* Every loaded segment: code for patching, data for deferred work. */
	for (i = 0; i < info->dlpi_phnum && o->nsegs < MAX_SEGMENTS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct sk_segment *sg;

		if (ph->p_type != PT_LOAD)
			continue;
		sg = &o->segs[o->nsegs++];
		sg->start = info->dlpi_addr + ph->p_vaddr;
		sg->end = sg->start + ph->p_memsz;
		sg->prot = (ph->p_flags & PF_X ? PROT_EXEC : 0) |
			   (ph->p_flags & PF_R ? PROT_READ : 0) |
			   (ph->p_flags & PF_W ? PROT_WRITE : 0);
	}
	return 1;
}

int sk_text_segment(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	struct sk_object *o;
	int i;

	for (o = objects; o; o = o->next)
		for (i = 0; i < o->nsegs; i++)
			if ((o->segs[i].prot & PROT_EXEC) &&
			    addr >= o->segs[i].start && addr < o->segs[i].end) {
				*start = o->segs[i].start;
				*end = o->segs[i].end;
				return o->segs[i].prot;
			}
	return -1;
}
SK_WRITER_HOOK(text_segment, sk_text_segment);

static bool in_text(const struct sk_object *o, uintptr_t addr, size_t len)
{
	int i;

	for (i = 0; i < o->nsegs; i++)
		if ((o->segs[i].prot & PROT_EXEC) &&
		    addr >= o->segs[i].start && addr + len <= o->segs[i].end)
			return true;
	return false;
}

/*
 * What registration needs to know of a table, in one pass: whether it is
 * in (key, code) order already, where its sites lie, and whether any of
 * its keys is not in the state its sites were built for.
 *
 * The compiler emits a table in code order, so the table of an object with
 * one key (or whose keys never interleave) is in (key, code) order: the
 * pass proves it and nothing moves.  In such a table each key's sites are
 * one run in ascending code order, so the lowest and highest site are at
 * the ends of runs and the per-site work is a load and two compares.
 */
struct table_scan {
	bool sorted;		/* in (key, code) order */
	bool rising;		/* each site above the one before */
	bool changed;		/* a key's state differs from its built one */
	uintptr_t lo, hi;	/* lowest and highest site address */
};

static bool key_changed(uintptr_t key)
{
	struct static_key *k = (struct static_key *)key;

	return (static_key_count(k) != 0) != !!(k->type & JUMP_TYPE_TRUE);
}

static void scan_table(const struct jump_entry *start,
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
			if (k && key_changed(k))
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
static struct jump_entry *key_run_end(struct jump_entry *e,
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
	for (; e < stop; e = key_run_end(e, stop))
		if (jump_entry_key(e) && key_changed((uintptr_t)jump_entry_key(e)))
			return true;
	return false;
}

/*
 * Sort an object's table by key, then code address, in place: the update
 * finds a key's sites as one run by binary search.  Learns on the way what
 * scan_table() tells of a table in order: @s says whether the sites rose
 * before (no two entries of one site), where the lowest and highest are,
 * and whether a key changed.
 */
#define SORT_MAX_WIDTH	11	/* 2048 buckets, 16 KiB of counts */

static void sort_entries(struct jump_entry *start, struct jump_entry *stop,
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
 */
struct shared_site {
	uintptr_t code;
	uintptr_t key, other;	/* with the polarity bit */
};

/* One site in check_shared_sites()'s hash table; code 0 is a free slot. */
struct site_slot {
	uintptr_t code;
	uintptr_t key;		/* the first key seen, with the polarity bit */
	bool shared;		/* another key claims it too */
};

static struct site_slot *site_slot(struct site_slot *t, unsigned int bits,
				   uintptr_t code)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = (size_t)(((uint64_t)code * 0x9e3779b97f4a7c15ull) >>
			    (64 - bits));

	while (t[i].code && t[i].code != code)
		i = (i + 1) & mask;
	return &t[i];
}

/*
 * check_shared_sites() - find and refuse the sites of @o that entries of
 * different keys claim.  Returns how many, with the first few in @out (for
 * report_shared_sites(), after the lock is dropped), or -ENOMEM when the
 * table could not be checked and every one of its sites was refused.
 * Called locked.
 *
 * The compiler emits a table in code order: when its sites were found
 * @rising, each above the one before, on the pass that registration makes
 * anyway (scan_table() or sort_entries()), no two entries share a site and
 * nothing is done.  Other tables go through a hash table of their sites,
 * twice when a site is shared: every entry of such a site is marked dead,
 * so that none is brought to its key's state either.
 */
#define NR_SHARED_REPORTED	8

static long check_shared_sites(struct jump_entry *start, struct jump_entry *stop,
			       bool rising, struct shared_site *out)
{
	size_t n = stop - start, i, found = 0;
	unsigned int bits = 1;
	struct site_slot *t, *sl;

	if (rising)
		return 0;
	while (((size_t)1 << bits) < 2 * n)
		bits++;
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

/* Say which keys claim one site; called unlocked (sk_key_name() asks dladdr). */
static void report_shared_sites(const char *objname, long found,
				const struct shared_site *s)
{
	char a[320], b[320];
	long i;

	if (found < 0) {
		sk_warn("%s: out of memory checking its table for sites claimed by two keys: every key of its sites refuses every change",
			objname);
		return;
	}
	for (i = 0; i < found && i < NR_SHARED_REPORTED; i++) {
		sk_key_name((void *)(s[i].key & ~JUMP_ENTRY_FLAGS), a, sizeof(a));
		sk_key_name((void *)(s[i].other & ~JUMP_ENTRY_FLAGS), b, sizeof(b));
		sk_warn("%s: site %p is claimed by key %s%s and by key %s%s (identical code folding, --icf=all?): the site keeps its built instruction and both keys refuse every change",
			objname, (void *)s[i].code, a,
			s[i].key & JUMP_ENTRY_BRANCH ? " (likely)" : "", b,
			s[i].other & JUMP_ENTRY_BRANCH ? " (likely)" : "");
	}
	if (found > NR_SHARED_REPORTED)
		sk_warn("%s: %ld more sites claimed by two keys, refused the same way",
			objname, found - NR_SHARED_REPORTED);
}

/*
 * Bring the sites of a newly loaded object to their keys' current state: a
 * key may have changed before the object was loaded.  With @every_site
 * each site is looked at: one outside the object's executable segments is
 * marked dead: it is never written, and its key refuses every change.
 * Otherwise (the caller found every site in one such segment) only the
 * sites of keys that changed are, one run of the sorted table each.  A
 * site to be rewritten that holds something unexpected (a debugger's
 * breakpoint, say) is reported and left alone; every site is checked again
 * at every change of its key, which is refused while one holds something
 * unexpected.
 */
static void sync_object(struct sk_object *o, bool every_site)
{
	struct jump_entry *e, *run_end;
	struct static_key *key;
	size_t queued = 0;
	int err;

	for (e = o->start; e < o->stop; e = run_end) {
		run_end = key_run_end(e, o->stop);
		key = jump_entry_key(e);
		if (!key || (!every_site && !key_changed((uintptr_t)key)))
			continue;
		for (; e < run_end; e++) {
			enum jump_label_type now, want;

			key = jump_entry_key(e);
			if (jump_entry_is_dead(e))
				continue;
			if (every_site && !in_text(o, jump_entry_code(e),
						   JUMP_LABEL_SITE_SIZE)) {
				e->key |= JUMP_ENTRY_DEAD;
				sk_warn_key(key, "site %p of key " SK_KEYNAME " lies outside its object's code: the key cannot change",
					    (void *)jump_entry_code(e));
				continue;
			}
			/*
			 * A site still in its built state needs no look:
			 * most keys have not changed before their objects
			 * load, and every update checks each site's bytes
			 * anyway.  Reading them all here cost more than the
			 * rest of registration.
			 */
			want = sk_entry_type(e, static_key_count(key));
			if (want == jump_label_init_type(e))
				continue;
			err = arch_jump_label_decode(e, &now);
			if (err) {
				sk_report_site(e, err);
				continue;
			}
			if (now == want)
				continue;
			if (!queued && sk_queue_ready()) {
				sk_warn("%s: cannot write code: sites left in their built state",
					o->name);
				return;
			}
			if (!sk_queue_site(e, want))
				queued++;
		}
	}
	if (queued && sk_queue_apply())
		sk_warn("%s: could not bring %zu sites to their keys' state",
			o->name, queued);
}

static struct sk_object *find_object(const void *handle)
{
	struct sk_object *o;

	for (o = objects; o; o = o->next)
		if (o->handle == handle)
			return o;
	return NULL;
}

static const void *object_identity(const struct statickeys_object *d)
{
	if (d->handle)
		return d->handle;
	if (d->jump_start)
		return d->jump_start;
	if (d->param_start)
		return d->param_start;
	return d->ro_start;
}

/*
 * A read-only key that the program reaches through a copy: an x86-64 PIE
 * gets a copy relocation for an extern variable of a shared object, and
 * then every object uses the copy, which lives in the program's ordinary
 * data.  Find such keys by name, say so, and refuse changes to the copy
 * too; only its write protection is lost.
 *
 * The names come from the object's dynamic symbol table, every data symbol
 * inside [start, stop): dladdr() would give one name per address, and the
 * section's own __start_ symbol shares the first key's.  Asks the loader:
 * called with no library lock held.
 */
struct copy_scan {
	const char *start, *stop;
	const char **names;	/* data symbols in the range, and where */
	const void **at;
	size_t n;
};

/* The number of symbols of a GNU hash table: one past the highest chained. */
static size_t gnu_hash_symbols(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
	const uint32_t *buckets = h + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t i, last = 0;

	for (i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

/*
 * Collected inside dl_iterate_phdr(), looked up after it: its callback runs
 * with the loader's write lock held, and dlsym() takes the loader's lock.
 */
static void note_symbol(struct copy_scan *cs, const char *name, const void *p)
{
	const char **n = realloc(cs->names, (cs->n + 1) * sizeof(*n));
	const void **a;

	if (!n)
		return;
	cs->names = n;
	a = realloc(cs->at, (cs->n + 1) * sizeof(*a));
	if (!a)
		return;
	cs->at = a;
	n[cs->n] = name;
	a[cs->n++] = p;
}

static int copies_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct copy_scan *cs = data;
	const ElfW(Sym) *sym = NULL;
	const uint32_t *hash = NULL, *gnu = NULL;
	const char *str = NULL;
	const ElfW(Dyn) *d = NULL;
	size_t i, nsyms;
	bool mine = false;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (uintptr_t)cs->start >= s &&
		    (uintptr_t)cs->start < s + ph->p_memsz)
			mine = true;
		if (ph->p_type == PT_DYNAMIC)
			d = (const ElfW(Dyn) *)s;
	}
	if (!mine)
		return 0;
	/* glibc relocates these in place; an unrelocated one is an offset. */
#define DYN_PTR(v)	((v) < info->dlpi_addr ? (v) + info->dlpi_addr : (v))
	for (; d && d->d_tag != DT_NULL; d++) {
		uintptr_t v = DYN_PTR(d->d_un.d_ptr);

		if (d->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)v;
		else if (d->d_tag == DT_STRTAB)
			str = (const char *)v;
		else if (d->d_tag == DT_HASH)
			hash = (const uint32_t *)v;
		else if (d->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)v;
	}
#undef DYN_PTR
	if (!sym || !str || (!hash && !gnu))
		return 1;
	nsyms = hash ? hash[1] : gnu_hash_symbols(gnu);
	for (i = 1; i < nsyms; i++) {
		const char *p = (const char *)(info->dlpi_addr + sym[i].st_value);

		if (ELF64_ST_TYPE(sym[i].st_info) == STT_OBJECT &&
		    sym[i].st_shndx != SHN_UNDEF && p >= cs->start &&
		    p < cs->stop)
			note_symbol(cs, str + sym[i].st_name, p);
	}
	return 1;
}

/* Returns the number of copies found, in *@copies. */
static size_t find_copies(char *start, char *stop, const char *objname,
			  void ***copies)
{
	struct copy_scan cs = { start, stop, NULL, NULL, 0 };
	size_t i, n = 0;
	void **v;

	*copies = NULL;
	dl_iterate_phdr(copies_cb, &cs);
	for (i = 0; i < cs.n; i++) {
		void *used = dlsym(RTLD_DEFAULT, cs.names[i]);

		if (!used || used == cs.at[i])
			continue;
		v = realloc(*copies, (n + 1) * sizeof(*v));
		if (!v)
			continue;
		*copies = v;
		v[n++] = used;
		sk_warn("read-only key %s of %s is used through a copy at %p (a copy relocation): changes to it are refused, but it cannot be write-protected; declare it weak, or build the program with -fPIC",
			cs.names[i], objname, used);
	}
	free(cs.names);
	free(cs.at);
	return n;
}

/* Make the object's read-only keys read-only.  Called locked. */
static void seal_object(struct sk_object *o, void **copies, size_t nr_copies)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t s = (uintptr_t)o->ro_page_start;
	uintptr_t e = (uintptr_t)o->ro_page_end;

	o->sealed = true;
	o->copies = copies;
	o->nr_copies = nr_copies;
	if (o->ro_start == o->ro_stop)
		return;
	if (!s || !e || s % ps || e % ps || s > (uintptr_t)o->ro_start ||
	    e < (uintptr_t)o->ro_stop) {
		sk_warn("%s: read-only keys are refused changes but not write-protected: their pages are not their own (built with an older header?)",
			o->name);
		return;
	}
	if (mprotect((void *)s, e - s, PROT_READ))
		sk_warn("%s: mprotect of read-only keys failed: %s", o->name,
			strerror(errno));
}

/*
 * Seal the object registered as @handle, if it still is and is not sealed:
 * the loader is asked about copies first, with no lock held.
 */
static bool seal_handle(const void *handle)
{
	char *start = NULL, *stop = NULL, name[sizeof(objects->name)];
	struct sk_object *o;
	void **copies = NULL;
	size_t n = 0;
	bool found;

	jump_label_lock();
	o = find_object(handle);
	found = o && !o->sealed;
	if (found) {
		start = o->ro_start;
		stop = o->ro_stop;
		memcpy(name, o->name, sizeof(name));
	}
	__jump_label_unlock();
	if (!found)
		return false;
	if (start != stop)
		n = find_copies(start, stop, name, &copies);
	jump_label_lock();
	o = find_object(handle);
	found = o && !o->sealed;
	if (found)
		seal_object(o, copies, n);
	else
		free(copies);
	__jump_label_unlock();
	return found;
}

/* ---- exit ---- */

/*
 * An object's code can run as long as it is mapped, and at exit nothing is
 * unmapped before _exit(): the destructors of the libraries a program
 * links run after the program's own, and may change its keys and run its
 * sites.  So once exit() has begun, an object's destructor leaves it
 * registered if it stays mapped: the main program, and (glibc) every
 * object the exit handler pinned with RTLD_NODELETE, so that a dlclose()
 * from a later exit handler cannot unmap it either.  A dlclose() before
 * exit unregisters as it always did: that object's code stops at its
 * unmap.  (musl never unmaps an object: at exit every object stays.)
 *
 * The handler must run before the loader's, which runs the destructors.
 * glibc registers that one after the shared objects' constructors and
 * before the main program's: the exit phase (lib/lifecycle.c) is armed
 * when the main program registers, and when the first object that is not
 * the main program does (for a host that loads its plugins with dlopen() and does
 * not use the library itself; one loaded with the host would register it
 * too early, and its objects unregister at exit as before).
 */
static bool exiting;

#ifdef __GLIBC__
/* Make the object that holds @handle RTLD_NODELETE.  Asks the loader. */
static bool pin_object(const void *handle)
{
	struct link_map *lm = NULL;
	Lmid_t lmid;
	Dl_info info;

	if (!dladdr1(handle, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    !lm->l_name || !lm->l_name[0] || dlinfo(lm, RTLD_DI_LMID, &lmid))
		return false;
	return dlmopen(lmid, lm->l_name,
		       RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

/*
 * Pin every registered object but the main program and the one that holds
 * the library: this handler also runs when that one is dlclose()d (a
 * private copy of the library in a plugin), and an object cannot be
 * pinned while it is being unloaded.  The loader is asked unlocked: a
 * handle gone meanwhile is not found, and its object is not marked.
 */
static void pin_objects(void)
{
	const void **handles = NULL, **h;
	struct sk_object *o;
	size_t n = 0, i;

	jump_label_lock();
	for (o = objects; o; o = o->next) {
		if (o->main || in_text(o, (uintptr_t)pin_objects, 1))
			continue;
		h = realloc(handles, (n + 1) * sizeof(*h));
		if (!h)
			break;
		handles = h;
		handles[n++] = o->handle;
	}
	__jump_label_unlock();
	for (i = 0; i < n; i++) {
		if (!pin_object(handles[i]))
			continue;
		jump_label_lock();
		o = find_object(handles[i]);
		if (o)
			o->pinned = true;
		__jump_label_unlock();
	}
	free(handles);
}

static bool stays_mapped(const struct sk_object *o)
{
	return o->main || o->pinned;
}
#else
static void pin_objects(void)
{
}

static bool stays_mapped(const struct sk_object *o)
{
	(void)o;
	return true;
}
#endif

static void exit_begins(bool main_program)
{
	(void)main_program;
	__atomic_store_n(&exiting, true, __ATOMIC_RELEASE);
	pin_objects();
}

SK_LIFECYCLE_EXIT(objects, SK_LC_OBJECTS, exit_begins);

/* ---- the registry as the key core and introspection see it ---- */

/* @key is one of @o's read-only keys, or the copy of one. */
static bool holds_ro_key(const struct sk_object *o,
			 const struct static_key *key)
{
	const char *p = (const char *)key;
	size_t i;

	if (p >= o->ro_start && p < o->ro_stop)
		return true;
	for (i = 0; i < o->nr_copies; i++)
		if (o->copies[i] == (void *)key)
			return true;
	return false;
}

/* The object whose sealed read-only keys hold @key, or NULL.  Locked. */
static struct sk_object *key_sealed(const struct static_key *key)
{
	struct sk_object *o;

	for (o = objects; o; o = o->next)
		if (o->sealed && holds_ro_key(o, key))
			return o;
	return NULL;
}

bool sk_next_table(struct sk_object **o, struct jump_entry **start,
		   struct jump_entry **stop)
{
	*o = *o ? (*o)->next : objects;
	if (!*o)
		return false;
	*start = (*o)->start;
	*stop = (*o)->stop;
	return true;
}

const char *sk_key_sealed_by(const struct static_key *key)
{
	struct sk_object *o = key_sealed(key);

	return o ? o->name : NULL;
}

bool sk_object_view(unsigned int i, struct sk_object_view *v)
{
	struct sk_object *o;

	for (o = objects; o && i; o = o->next)
		i--;
	if (!o)
		return false;
	v->name = o->name;
	v->start = o->start;
	v->stop = o->stop;
	return true;
}

bool sk_key_read_only(const struct static_key *key)
{
	struct sk_object *o;

	for (o = objects; o; o = o->next)
		if (holds_ro_key(o, key))
			return true;
	return false;
}

/**
 * statickeys_register_object() - hand an object's tables to the library.
 * @d: the description, built by the constructor in <statickeys/object.h>
 *
 * Idempotent per object.  Order: link the table and bring its sites to their
 * keys' state; apply the command line to the object's parameters (unlocked:
 * their handlers change keys); seal its read-only keys.  Runs in the
 * object's constructor, with the loader's lock held: it calls into the
 * loader (dl_iterate_phdr, dladdr) only with none of the library's locks.
 */
SK_EXPORT void statickeys_register_object(const struct statickeys_object *d)
{
	struct shared_site shared_sites[NR_SHARED_REPORTED];
	char name[sizeof(objects->name)];
	const void *id = object_identity(d);
	struct table_scan ts;
	struct find_segs fs;
	bool every_site, main_program;
	long shared;
	struct sk_object *o;
	int i;

	if (d->abi != STATICKEYS_OBJECT_ABI) {
		sk_warn("object built for ABI %u, library has %u: not registered",
			d->abi, STATICKEYS_OBJECT_ABI);
		return;
	}
	if (!id)
		return;
	o = calloc(1, sizeof(*o));
	if (!o) {
		sk_warn("out of memory registering an object");
		return;
	}
	o->handle = id;
	o->start = d->jump_start;
	o->stop = d->jump_start ? d->jump_stop : d->jump_start;
	o->param_start = d->param_start;
	o->ro_start = d->ro_start;
	o->ro_stop = d->ro_start ? d->ro_stop : d->ro_start;
	o->ro_page_start = d->ro_page_start;
	o->ro_page_end = d->ro_page_end;
	o->flags = d->flags;
	fs.addr = (uintptr_t)id;
	fs.obj = o;
	dl_iterate_phdr(find_segs_cb, &fs);
	/* The main program holds the entry point (musl gives it its path). */
	o->main = in_text(o, getauxval(AT_ENTRY), 1);
	main_program = o->main;

	jump_label_lock();
	sk_batch_settle(NULL);	/* the queue is the batch's */
	if (find_object(id)) {
		__jump_label_unlock();
		free(o);
		return;
	}
	for (i = 0; i < o->nsegs; i++)	/* fresh code: nothing of ours stuck */
		arch_jump_label_repair(o->segs[i].start, o->segs[i].end,
				       SK_STUCK_FRESH);
	scan_table(o->start, o->stop, &ts);
	if (!ts.sorted)
		sort_entries(o->start, o->stop, &ts);
	shared = check_shared_sites(o->start, o->stop, ts.rising, shared_sites);
	o->next = objects;
	objects = o;
	/*
	 * Every site in one executable segment and every key as built: no
	 * site needs a look, whether the table was sorted or in order
	 * already; with keys changed only theirs.  Otherwise each one is
	 * checked.
	 */
	every_site = shared || (ts.lo <= ts.hi &&
		     !in_text(o, ts.lo, ts.hi - ts.lo + JUMP_LABEL_SITE_SIZE));
	if (every_site || ts.changed)
		sync_object(o, every_site);
	if (shared)	/* said unlocked, when o may be gone */
		memcpy(name, o->name, sizeof(name));
	__jump_label_unlock();
	if (shared)
		report_shared_sites(name, shared, shared_sites);

	if (d->param_start != d->param_stop)
		__sk_params_register_object(d->param_start, d->param_stop,
					    o->name);

	if (!(d->flags & STATICKEYS_OBJ_MANUAL_SEAL))
		seal_handle(id);
	sk_lifecycle_exit_arm(main_program);
	if (main_program)
		__sk_params_report_unknown(d->flags & STATICKEYS_OBJ_UNKNOWN_QUIET);
	sk_introspect_registered(main_program);
}

/**
 * statickeys_unregister_object() - forget an object before it is unmapped.
 * @d: the description given at registration
 *
 * Delayed decrements pending in the object's memory are run first (the
 * worker must never touch it afterwards).  After this returns nothing is
 * ever written into the object's memory.  Once exit() has begun, an object
 * that stays mapped until _exit() stays registered (see "exit" above).
 */
SK_EXPORT void statickeys_unregister_object(const struct statickeys_object *d)
{
	const void *id = object_identity(d);
	struct sk_segment segs[MAX_SEGMENTS];
	struct sk_object **pp, *o;
	int nsegs = 0, i;

	jump_label_lock();
	o = find_object(id);
	if (o && __atomic_load_n(&exiting, __ATOMIC_ACQUIRE) && stays_mapped(o))
		o = NULL;
	if (o) {
		nsegs = o->nsegs;
		memcpy(segs, o->segs, sizeof(segs));
	}
	__jump_label_unlock();
	if (!o)
		return;
	while (nsegs--)
		sk_deferred_flush_range(segs[nsegs].start, segs[nsegs].end);

	jump_label_lock();
	sk_batch_settle(NULL);	/* the queue is the batch's */
	for (pp = &objects; *pp; pp = &(*pp)->next) {
		if (*pp == o && o->handle == id) {
			*pp = o->next;
			break;
		}
	}
	/* Its stuck sites: brought back if they can be, else orphans. */
	for (i = 0; i < o->nsegs; i++)
		arch_jump_label_repair(o->segs[i].start, o->segs[i].end,
				       SK_STUCK_ORPHAN);
	__jump_label_unlock();
	if (d->param_start != d->param_stop)
		__sk_params_unregister_object(d->param_start);
	free(o->copies);
	free(o);
}

/**
 * statickeys_seal() - seal the read-only keys of every registered object.
 */
SK_EXPORT int statickeys_seal(void)
{
	const void *handle;
	struct sk_object *o;
	int n = 0;

	/* One object at a time: the loader is asked with no lock held. */
	for (;;) {
		jump_label_lock();
		for (o = objects; o && o->sealed; o = o->next)
			;
		handle = o ? o->handle : NULL;
		__jump_label_unlock();
		if (!handle)
			return n;
		n += seal_handle(handle);
	}
}
