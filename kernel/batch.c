// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A batch of key changes: between statickeys_batch_begin() and
 * statickeys_batch_commit() the calling thread's ordinary key changes
 * (static_branch_enable(), static_key_slow_inc(), ...) queue their sites
 * and write nothing; the commit writes every site of every key in one
 * update, with the serializing steps of one change.
 *
 * The thread holds jump_label_lock() for the whole batch, so no other
 * change can see the queue; the key functions it calls take the lock
 * again, which here only counts (sk_batch_nest()).  A key being enabled
 * keeps the count of a key in transition (-1, as during any enable) until
 * the commit has written its sites, so that a lock-free
 * static_key_fast_inc_not_disabled() cannot add to a count the commit may
 * have to take back.  A key changed again before the commit is changed
 * once: the count the commit will give it moves (sk_batch_pending()), and
 * a change back takes the first one back (sk_batch_take_back()), so
 * nothing is written before the commit and a failed commit leaves every
 * key as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/jump_label.h>
#include "internal.h"
#include "queue.h"
#include "../lib/hash.h"

/*
 * A key of the batch and whether it goes on, in one word (bit 0: keys are
 * word-aligned; 0: taken back), its first site in the queue (its sites
 * run to the next key's first), and the count the commit gives it (0 for
 * a key going off).
 */
struct batch_key {
	uintptr_t key_on;
	unsigned int from;
	int target;
};

_Static_assert(_Alignof(struct static_key) >= 2, "bit 0 of a key's address is free");

static inline struct static_key *bk_key(struct batch_key k)
{
	return (struct static_key *)(k.key_on & ~(uintptr_t)1);
}

static inline bool bk_on(struct batch_key k)
{
	return k.key_on & 1;
}

/*
 * The batch is the lock's, not each thread's: only the holder of
 * jump_label_mutex can have one, so its depth (begins not yet committed)
 * and nest (jump_label_lock() calls inside it not yet undone) are written
 * by that thread alone, with the mutex held.  Other threads read depth
 * (atomically) only to learn the batch is not theirs: sk_lock_is_mine()
 * says whose it is.  No thread-local storage: its dynamic model costs a
 * call on every change of a batch, the initial-exec one a library loaded
 * late cannot have (see the held messages in kernel/warn_key.c).
 */
static unsigned int depth, nest;

/* The calling thread's batch is open (it holds the lock). */
static bool mine(void)
{
	return __atomic_load_n(&depth, __ATOMIC_RELAXED) && sk_lock_is_mine();
}

static void set_depth(unsigned int d)
{
	__atomic_store_n(&depth, d, __ATOMIC_RELAXED);
}

/* Only the batch's thread (holding the mutex) touches what follows. */
static struct batch_key *keys;
static size_t nr_keys, keys_cap;
static int batch_err;

/*
 * The keys of the batch, hashed by address (open addressing, at most half
 * full, each slot an index of keys[] plus one): a key changed a second
 * time must be found without a walk.  Most batches go through their keys
 * in address order, one way or the other (an array of keys, dynamic
 * debug's descriptors): while every key falls outside the range of those
 * before it, none can be a second change, and the set is not built; the
 * first key inside the range builds it.  A key taken back keeps its slot
 * (its keys[] entry no longer names it) until the set is emptied.
 */
static size_t *set;
static size_t set_cap;
static unsigned int set_bits;	/* set_cap is 1 << set_bits */
static bool set_built;		/* set holds every key of keys[] */
static uintptr_t keys_lo, keys_hi;	/* the range of keys[] */

static void set_put(size_t idx)
{
	size_t i;

	for (i = sk_hash_slot((uintptr_t)bk_key(keys[idx]), set_bits); set[i];
	     i = sk_hash_next(i, set_bits))
		;
	set[i] = idx + 1;
}

static int set_grow(size_t n);

/* Build the set from keys[]: 0 or -ENOMEM. */
static int set_build(void)
{
	size_t i;

	if (set_grow(nr_keys))
		return -ENOMEM;
	for (i = 0; i < nr_keys; i++)
		if (keys[i].key_on)
			set_put(i);
	set_built = true;
	return 0;
}

/* The entry of @key in keys[], or NULL: no change of it is queued. */
static inline __attribute__((always_inline))
struct batch_key *find(const struct static_key *key)
{
	size_t i;

	if (!nr_keys || (uintptr_t)key < keys_lo || (uintptr_t)key > keys_hi)
		return NULL;
	if (!set_built && set_build()) {
		for (i = 0; i < nr_keys; i++)	/* no memory: walk */
			if (bk_key(keys[i]) == key)
				return &keys[i];
		return NULL;
	}
	for (i = sk_hash_slot((uintptr_t)key, set_bits); set[i];
	     i = sk_hash_next(i, set_bits))
		if (bk_key(keys[set[i] - 1]) == key)
			return &keys[set[i] - 1];
	return NULL;
}

/* Room for @n keys in the set: 0 or -ENOMEM, the set unchanged then. */
static int set_grow(size_t n)
{
	size_t *old = set;
	size_t cap, i, old_cap = set_cap;
	unsigned int bits = sk_hash_bits(n);

	bits = bits < 6 ? 6 : bits;	/* 64 slots at least */
	cap = (size_t)1 << bits;
	if (cap <= set_cap)
		return 0;
	set = calloc(cap, sizeof(*set));
	if (!set) {
		set = old;
		return -ENOMEM;
	}
	set_cap = cap;
	set_bits = bits;
	for (i = 0; i < old_cap; i++)
		if (old[i] && keys[old[i] - 1].key_on)
			set_put(old[i] - 1);
	free(old);
	return 0;
}

bool sk_batch_open(void)
{
	return mine();
}

bool sk_batch_open_locked(void)
{
	return depth != 0;
}

bool sk_batch_nest(void)
{
	if (!mine())
		return false;
	nest++;
	return true;
}

/* Only the lock's holder unlocks: nest is its own. */
bool sk_batch_unnest(void)
{
	if (!nest)
		return false;
	nest--;
	return true;
}

int sk_batch_defer(struct static_key *key, bool on, size_t from)
{
	uintptr_t k = (uintptr_t)key;

	if (from > UINT_MAX)	/* the queue holds 4 G sites: not this one */
		return -ENOMEM;

	if ((set_built && set_grow(nr_keys + 1)) ||
	    sk_reserve((void **)&keys, &keys_cap, nr_keys, sizeof(*keys)))
		return -ENOMEM;
	if (!nr_keys || k < keys_lo)
		keys_lo = k;
	if (!nr_keys || k > keys_hi)
		keys_hi = k;
	keys[nr_keys++] = (struct batch_key){ k | on, (unsigned int)from, on };
	if (set_built)
		set_put(nr_keys - 1);
	return 0;
}

int *sk_batch_pending(const struct static_key *key)
{
	struct batch_key *k = depth ? find(key) : NULL;

	return k ? &k->target : NULL;
}

void sk_batch_take_back(int *pending)
{
	struct batch_key *k = (struct batch_key *)(void *)
			      ((char *)pending - offsetof(struct batch_key, target));
	size_t to;

	to = k + 1 < keys + nr_keys ? k[1].from : sk_queue_mark();
	sk_queue_cut(k->from, to);
	k->key_on = 0;
}

/*
 * Write what is queued.  Each key then takes its new count, or, if the
 * update failed (it was undone: no site changed), the count it had.
 */
static int flush(void)
{
	int err = nr_keys ? sk_queue_apply() : 0;
	size_t i, n = 0;

	for (i = 0; i < nr_keys; i++) {
		struct static_key *key = bk_key(keys[i]);
		bool on = bk_on(keys[i]);

		if (!key)		/* taken back */
			continue;
		n++;
		if (!err && on)
			__atomic_store_n(&key->enabled, keys[i].target,
					 __ATOMIC_RELEASE);
		else if (err)
			__atomic_store_n(&key->enabled, on ? 0 : 1,
					 __ATOMIC_RELEASE);
	}
	if (!err)
		sk_count_updates(n);
	else if (!batch_err)
		batch_err = err;
	if (set_built)
		memset(set, 0, set_cap * sizeof(*set));
	set_built = false;
	nr_keys = 0;
	return err;
}

/*
 * Before anything else uses the queue (an object registered or
 * unregistered inside the batch), what the batch queued is written.
 */
void sk_batch_settle(void)
{
	if (depth && nr_keys)
		flush();
}

/*
 * What a layer above must learn of the outermost commit (dynamic debug:
 * whether its queries took effect).  At most one of each function a batch,
 * called in the order they were registered, after the writes, with the
 * lock still held: nothing can change between the writes and the hook.
 */
#define BATCH_HOOKS	4
static void (*hooks[BATCH_HOOKS])(int err);
static unsigned int nr_hooks;

int sk_batch_on_commit(void (*fn)(int err))
{
	unsigned int i;

	if (!mine())
		return -EINVAL;
	for (i = 0; i < nr_hooks; i++)
		if (hooks[i] == fn)
			return 0;
	if (nr_hooks == BATCH_HOOKS)
		return -ENOSPC;
	hooks[nr_hooks++] = fn;
	return 0;
}

/*
 * The begin and commit of a batch (kernel/jump_label.c, which takes and
 * drops the lock around them).  sk_batch_enter(): true when a batch is
 * open already, which this begin joins.  sk_batch_start(): the outermost
 * begin, with the lock just taken.  sk_batch_end(): -EINVAL without a
 * batch, 1 when an inner batch ended, 0 when the outermost did: what it
 * queued is written and *@err is the batch's first error (0 or -errno);
 * -EDEADLK for the end of a begin sk_batch_refuse() refused.
 */
bool sk_batch_enter(void)
{
	if (!mine())
		return false;
	set_depth(depth + 1);
	return true;
}

/*
 * Begins made inside the caller's own jump_label_lock() section, without
 * a batch: refused (taking the lock again would wait for ever), each
 * commit of one returning -EDEADLK.  The holder's, as depth is, and
 * forgotten when the section ends (sk_batch_unlocking()).
 */
static unsigned int refused;

void sk_batch_unlocking(void)
{
	refused = 0;
}

bool sk_batch_refuse(void)
{
	static bool said;

	if (!sk_lock_is_mine())
		return false;
	refused++;
	if (!said) {
		said = true;
		sk_warn("statickeys_batch_begin() inside the caller's own jump_label_lock() section: refused (EDEADLK), its changes and queries too");
	}
	return true;
}

void sk_batch_start(void)
{
	set_depth(1);
	batch_err = 0;
}

int sk_batch_end(int *err)
{
	unsigned int i;

	if (!mine()) {
		if (refused && sk_lock_is_mine()) {
			refused--;
			return -EDEADLK;
		}
		sk_warn("statickeys_batch_commit() without statickeys_batch_begin()");
		return -EINVAL;
	}
	set_depth(depth - 1);
	if (depth)
		return 1;
	flush();
	*err = batch_err;
	for (i = 0; i < nr_hooks; i++)
		hooks[i](batch_err);
	nr_hooks = 0;
	return 0;
}
