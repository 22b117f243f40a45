// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The reference counts of keys: how each change moves a count, when it
 * writes the sites (kernel/jump_label_update.c), the refusal of changes to
 * sealed read-only keys, and the once-per-key messages for keys used
 * wrongly.  Called with jump_label_mutex held, but for the lock-free
 * increment and decrement that never move a count to or from 0.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>

#include <linux/jump_label.h>
#include "internal.h"
#include "key_core.h"

static bool refuse_sealed(struct static_key *key)
{
	const char *objname = sk_key_sealed_by(key);

	if (!objname)
		return false;
	sk_warn_key(key, "key " SK_KEYNAME " of %s is read-only after init: change refused",
		    objname);
	sk_set_error(EPERM);
	return true;
}

/*
 * How a count changes.  Every move by one, on every path, is count_add():
 * one compare-and-swap loop that retries with the value it found and
 * stops, changing nothing, when that value is outside the range the
 * caller allows.  The lock-free callers move a count only between
 * non-zero values (static_key_fast_inc_not_disabled() from >= 1 up, the
 * deferred decrement from >= 2 down), so only a holder of
 * jump_label_mutex moves a count to or from 0, and the code follows:
 *
 *   from  to   how (under the mutex)
 *   0     1    key_switch(): store -1 ("being enabled": the lock-free
 *              paths refuse it), write the sites, store 1 with release;
 *              on failure store 0
 *   1     0    count_add() found 1 and stored 0 (a fast increment that
 *              raced with it made it retry as an ordinary decrement),
 *              then key_switch() writes the sites; on failure it stores
 *              1 back (nobody else moves a count from 0)
 *   n     n+-1 count_add()
 *
 * Inside the caller's open batch, a key whose change is queued and not
 * written yet has the count the commit will give it (sk_batch_pending():
 * -1 or 0 stays in the key meanwhile), and the holder of the mutex moves
 * that one (count_locked(), count_add_locked()); a change that brings
 * such a key back to on or off as it was takes the queued change back
 * (key_switch()): a key changed twice in a batch is written once, at the
 * commit, or not at all.
 */
static bool count_add(struct static_key *key, int delta, int lo, int hi,
		      int *v)
{
	*v = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
	do {
		if (*v < lo || *v > hi)
			return false;
	} while (!__atomic_compare_exchange_n(&key->enabled, v, *v + delta,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}

/*
 * The batch's count of @key (sk_batch_pending()), or NULL.  Only a key at
 * -1 or 0 can have a change queued (no lock-free path moves those), so
 * the batch is not asked about an enabled one.
 */
static inline __attribute__((always_inline))
int *pending(const struct static_key *key)
{
	if (__atomic_load_n(&key->enabled, __ATOMIC_RELAXED) > 0)
		return NULL;
	return sk_batch_pending(key);
}

/* The count of @key as the holder of the mutex sees it; *@t: pending(). */
static int count_locked(const struct static_key *key, int **t)
{
	*t = pending(key);
	return *t ? **t : __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
}

/* count_add() by the holder of the mutex, @t as count_locked() set it. */
static inline __attribute__((always_inline))
bool count_add_locked(struct static_key *key, int *t, int delta, int lo,
		      int hi, int *v)
{
	if (!t)
		return count_add(key, delta, lo, hi, v);
	*v = *t;
	if (*v < lo || *v > hi)
		return false;
	*t += delta;
	return true;
}

/* @pending: the key's change is queued by the batch (count_locked()). */
static bool key_switch(struct static_key *key, bool on, int *pending)
{
	int err;

	if (pending) {		/* back to as it was: nothing to write */
		sk_batch_take_back(pending);
		__atomic_store_n(&key->enabled, on ? 1 : 0, __ATOMIC_RELEASE);
		sk_set_error(0);
		return true;
	}

	if (on)
		__atomic_store_n(&key->enabled, -1, __ATOMIC_RELAXED);
	err = sk_jump_label_update(key, on);
	if (err < 0) {
		__atomic_store_n(&key->enabled, on ? 0 : 1, __ATOMIC_RELEASE);
		sk_set_error(-err);
		return false;
	}
	/* In a batch, enabled once the commit has written the sites. */
	if (on && !(err > 0 && sk_batch_open_locked()))
		__atomic_store_n(&key->enabled, 1, __ATOMIC_RELEASE);
	sk_set_error(0);
	return true;
}

/*
 * A key used wrongly (a count below zero or overflowing, enable or
 * disable of a key with several users, a change from inside the caller's
 * own jump_label_lock() section, a _cpuslocked call without
 * cpus_read_lock()) is said once per key and kind of mistake; what the
 * call does about it (refuse, or go on) is the same every time.  The
 * kernel says it once per call site, with a backtrace that names the
 * caller; here the message names the key instead, so once per key is what
 * names every wrong key.  Locked: the list is jump_label_mutex's.
 */
static struct misused_key {
	const struct static_key *key;
	unsigned int kinds;
} *misused;
static size_t nr_misused, misused_cap;

bool sk_first_misuse(const struct static_key *key, enum key_misuse kind)
{
	size_t i;

	for (i = 0; i < nr_misused && misused[i].key != key; i++)
		;
	if (i == nr_misused) {
		/* No memory: say it again rather than never. */
		if (sk_reserve((void **)&misused, &misused_cap, nr_misused,
			       sizeof(*misused)))
			return true;
		misused[nr_misused++] = (struct misused_key){ key, 0 };
	}
	if (misused[i].kinds & 1U << kind)
		return false;
	misused[i].kinds |= 1U << kind;
	return true;
}

void sk_refuse_misuse(struct static_key *key, enum key_misuse kind, int err,
		      const char *fmt, ...)
{
	char text[SK_WARN_KEY_MAX];
	va_list ap;

	sk_set_error(err);
	if (!sk_first_misuse(key, kind))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sk_warn_key(key, "%s", text);
}

/**
 * static_key_fast_inc_not_disabled() - add a user to an already enabled key.
 * @key: the key
 *
 * Returns false, changing nothing, when the key is disabled (or being
 * enabled) or the count would overflow.  Never patches code.
 */
SK_EXPORT bool static_key_fast_inc_not_disabled(struct static_key *key)
{
	int v;

	return count_add(key, 1, 1, __INT_MAX__ - 1, &v);
}

/*
 * Drop a user unless it is the last one (the deferred decrement).  The
 * holder of the mutex inside its own batch drops it from the batch's
 * count of a key whose enable is queued (the key reads -1 meanwhile).
 */
bool sk_static_key_dec_not_one(struct static_key *key)
{
	int v, *t = sk_lock_is_mine() ? pending(key) : NULL;

	return count_add_locked(key, t, -1, 2, __INT_MAX__, &v);
}

bool __static_key_slow_inc(struct static_key *key)
{
	int v, *t = pending(key);

	if (refuse_sealed(key))
		return false;
	if (count_add_locked(key, t, 1, 1, __INT_MAX__ - 1, &v)) {
		sk_set_error(0);
		return true;
	}
	if (v == 0)
		return key_switch(key, true, t);
	/* -1 is only ever seen by the holder of the mutex that stored it. */
	if (SK_WARN_ONCE(v < 0, "static_key_slow_inc(): count of key %p is %d",
			 (void *)key, v))
		sk_set_error(ERANGE);
	else
		sk_refuse_misuse(key, MISUSE_OVERFLOW, ERANGE,
			         "static_key_slow_inc(): count of key " SK_KEYNAME " would overflow: unchanged");
	return false;
}

void __static_key_slow_dec(struct static_key *key)
{
	int v, *t = pending(key);

	if (refuse_sealed(key))
		return;
	if (!count_add_locked(key, t, -1, 1, __INT_MAX__, &v)) {
		sk_refuse_misuse(key, MISUSE_BELOW_ZERO, ERANGE,
			         "static_key_slow_dec(): key " SK_KEYNAME " would go below zero (count %d): unchanged",
			         v);
		return;
	}
	if (v == 1)
		key_switch(key, false, t);
	else
		sk_set_error(0);
}

void __static_key_enable(struct static_key *key)
{
	int *t, v = count_locked(key, &t);

	if (v == 0) {
		if (!refuse_sealed(key))
			key_switch(key, true, t);
		return;
	}
	sk_set_error(0);		/* it is enabled */
	if (v != 1)
		sk_refuse_misuse(key, MISUSE_ENABLE, 0,
			         "static_key_enable() on key " SK_KEYNAME " with count %d: a key used with inc/dec",
			         v);
}

/*
 * As in the kernel, disabling acts on a count of 1 only: a key with more
 * users is left alone, a fast increment racing with it included.
 */
void __static_key_disable(struct static_key *key)
{
	int *t, v = count_locked(key, &t);

	if (v == 1 && refuse_sealed(key))
		return;
	if (count_add_locked(key, t, -1, 1, 1, &v)) {
		key_switch(key, false, t);
		return;
	}
	if (v == 0)
		sk_set_error(0);
	else
		sk_refuse_misuse(key, MISUSE_DISABLE, ERANGE,
			         "static_key_disable() on key " SK_KEYNAME " with count %d: unchanged",
			         v);
}

