// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Sites a failed x86 batch could not bring back: kept emulated (on the
 * sk_bp_stuck list the trap handler reads), brought back by a later
 * repair, and forgotten once their code is gone or mapped afresh.
 */
#include <stdlib.h>
#include <string.h>

#include "text_poke_bp.h"

unsigned long sk_stuck_sites;

/* Scratch sites for undoing a stuck batch again. */
static struct x86_site *scratch;
static size_t scratch_cap;

/* A stuck batch with room for @n sites (none in it yet), before @next. */
static struct x86_batch *new_stuck_batch(size_t n, struct x86_batch *next)
{
	struct x86_batch *b = malloc(sizeof(*b));

	if (b)
		*b = (struct x86_batch){ .sites = malloc(n * sizeof(*b->sites)),
				     .undo = true, .next = next };
	if (b && !b->sites) {
		free(b);
		b = NULL;
	}
	return b;
}

/*
 * Keep the @n sites of a batch that could not be brought back published,
 * on a copy of their own, until arch_jump_label_repair() brings them back.
 */
void sk_stuck_keep(const struct x86_site *sites, size_t n)
{
	struct x86_batch *b = new_stuck_batch(n, sk_bp_stuck);

	if (!b) {
		sk_warn("out of memory keeping %zu half-written sites emulated: the process may die on one",
			n);
		return;
	}
	memcpy(b->sites, sites, n * sizeof(*b->sites));
	b->n = n;
	__atomic_store_n(&sk_bp_stuck, b, __ATOMIC_RELEASE);
	sk_stuck_sites += n;
}

/*
 * How far a stuck site is from its old instruction, read from the site:
 * its record may be older than its bytes (a write that failed may not have
 * landed; a site put back by one repair may have been changed since).  No
 * INT3 first: a whole instruction, not ours to touch (0).  INT3 over the
 * old tail: only the first byte to put back (1).  INT3 over anything else:
 * the old tail first (2).
 */
static uint8_t stuck_progress(const struct x86_site *s)
{
	const uint8_t *p = (const uint8_t *)s->addr;
	uint8_t old[JUMP_LABEL_NOP_SIZE];

	if (p[0] != INT3)
		return 0;
	x86_site_bytes(s, false, old);
	return memcmp(p + 1, old + 1, JUMP_LABEL_NOP_SIZE - 1) ? 2 : 1;
}

/*
 * Undo a stuck batch again, on a scratch copy of its sites, writing only
 * the sites that still hold INT3.  Returns how many it put back, or -1 if
 * some could not be.
 */
static long undo_stuck(struct x86_batch *b)
{
	size_t i, n = 0;
	bool ok;

	for (i = 0; i < b->n; i++)
		if (sk_reserve((void **)&scratch, &scratch_cap, i,
			       sizeof(*scratch)))
			return -1;
	memcpy(scratch, b->sites, b->n * sizeof(*scratch));
	for (i = 0; i < b->n; i++) {
		scratch[i].done = scratch[i].orphan ? 0 :
				  stuck_progress(&scratch[i]);
		n += scratch[i].done != 0;
	}
	if (!n)
		return 0;
	if (sk_bp_install() ||
	    sk_text_poke_begin(scratch, b->n, sizeof(*scratch),
			       JUMP_LABEL_NOP_SIZE))
		return -1;
	sk_bp_publish(scratch, b->n, true);	/* they run their old insns */
	ok = sk_bp_undo_steps();
	sk_bp_withdraw();
	sk_text_poke_end();
	return ok ? (long)n : -1;
}

/* Put @nb (NULL: nothing) where @b was on the stuck list, and free @b. */
static void replace_stuck(struct x86_batch **pp, struct x86_batch *b, struct x86_batch *nb)
{
	__atomic_store_n(pp, nb ? nb : b->next, __ATOMIC_SEQ_CST);
	sk_stuck_sites -= b->n - (nb ? nb->n : 0);
	sk_bp_wait_for_handlers();
	free(b->sites);
	free(b);
}

/*
 * Whether a stuck site stays on the list: an orphan stays (its bytes may
 * be gone: never read) unless a new object now lies over it, whose code
 * is fresh; any other site while it still holds INT3.
 */
static bool keep_stuck(const struct x86_site *s, uintptr_t start,
		       uintptr_t end, bool fresh)
{
	if (fresh && s->addr >= start && s->addr < end)
		return false;
	return s->orphan || stuck_progress(s);
}

/*
 * Keep of @b only the sites keep_stuck() keeps.  Returns the batch now in
 * its place, NULL if none is left (the next one took its place).
 */
static struct x86_batch *prune_stuck(struct x86_batch **pp, struct x86_batch *b,
				 uintptr_t start, uintptr_t end, bool fresh)
{
	struct x86_batch *nb = NULL;
	size_t i, keep = 0;

	for (i = 0; i < b->n; i++)
		keep += keep_stuck(&b->sites[i], start, end, fresh);
	if (keep == b->n)
		return b;
	if (keep) {
		nb = new_stuck_batch(keep, b->next);
		if (!nb) {
			sk_warn("out of memory dropping %zu sites from the emulated ones",
				b->n - keep);
			return b;
		}
		for (i = 0; i < b->n; i++)
			if (keep_stuck(&b->sites[i], start, end, fresh))
				nb->sites[nb->n++] = b->sites[i];
	}
	replace_stuck(pp, b, nb);
	return nb;
}

/*
 * Afterwards every site on the stuck list holds INT3 or is an orphan, so
 * its key refuses changes (arch_jump_label_decode(): -EBUSY) and no later
 * batch rewrites it behind the list's back; a site that holds a whole
 * instruction again is dropped, and a thread that trapped on it before
 * runs it again.
 *
 * An unregistered object's stuck sites become orphans: still emulated,
 * since its code may still run (at exit, the program's own), but never
 * read or written again.  They are dropped when an object registers over
 * their addresses: that code is freshly mapped.
 */
void arch_jump_label_repair(uintptr_t start, uintptr_t end,
			    enum sk_stuck_how how)
{
	struct x86_batch **pp = &sk_bp_stuck, *b;
	size_t i;
	long n;

	while ((b = *pp)) {
		n = how == SK_STUCK_FRESH ? 0 : undo_stuck(b);
		if (n > 0)
			sk_warn("%ld sites left half-written by a failed change are back to their old instructions",
				n);
		b = prune_stuck(pp, b, start, end, how == SK_STUCK_FRESH);
		if (!b)
			continue;
		for (i = 0; how == SK_STUCK_ORPHAN && i < b->n; i++)
			if (b->sites[i].addr >= start && b->sites[i].addr < end)
				b->sites[i].orphan = true;
		pp = &b->next;
	}
}

/* Introspection: a site on the stuck list is emulated.  Called locked. */
bool arch_jump_label_stuck(uintptr_t addr)
{
	const struct x86_batch *b;

	for (b = sk_bp_stuck; b; b = b->next)
		if (sk_bp_find_site(b, addr))
			return true;
	return false;
}
