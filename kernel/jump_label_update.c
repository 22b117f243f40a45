// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The update path of a key change: every site of the key in every
 * registered object is checked and queued (kernel/queue.c), then written,
 * or recorded for the commit of this thread's batch (kernel/batch.c).
 * Also the error a change leaves for statickeys_last_error().  Called with
 * jump_label_mutex held, from kernel/jump_label_count.c and registration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "key_core.h"
#include "queue.h"

/*
 * The error of the last change.  Every change sets it with jump_label_mutex
 * held, so while the mutex is held it is the lock's (lock_error, read by
 * the owner alone) and is handed to the thread's own copy when the mutex
 * is released (sk_error_publish()): one thread-local write per hold of the
 * lock, however many keys a batch changes under it.
 */
static __thread int last_error;
static int lock_error;
static bool lock_error_set;

/*
 * The reasons statickeys_last_error() may give, and nothing else: an error
 * from below that is not one of them is a bug, said once, and reported as
 * EIO.
 */
static int public_error(int err)
{
	switch (err) {
	case 0: case EPERM: case EILSEQ: case ERANGE: case EACCES:
	case ENOMEM: case EMFILE: case ENFILE: case EIO: case EDEADLK:
	case EBUSY:
		return err;
	}
	SK_WARN_ONCE(1, "internal error %d (%s) reported as EIO", err,
		     strerror(err));
	return EIO;
}

void sk_set_error(int err)
{
	lock_error = public_error(err);
	lock_error_set = true;
	if (err)
		sk_count_refused();
}

void sk_error_publish(void)
{
	if (lock_error_set) {
		last_error = lock_error;
		lock_error_set = false;
	}
}

int sk_error_locked(void)
{
	return lock_error_set ? lock_error : 0;
}

SK_EXPORT int statickeys_last_error(void)
{
	/* Within its own hold of the lock (a batch): the lock's. */
	if (sk_lock_is_mine() && lock_error_set)
		return lock_error;
	return last_error;
}

enum jump_label_type jump_label_init_type(struct jump_entry *entry)
{
	struct static_key *key = jump_entry_key(entry);
	bool type = key->type & JUMP_TYPE_TRUE;

	return (type ^ jump_entry_is_branch(entry)) ? JUMP_LABEL_JMP
						    : JUMP_LABEL_NOP;
}

/* The instruction a site must hold for a key with reference count @count. */
enum jump_label_type sk_entry_type(const struct jump_entry *entry, int count)
{
	bool enabled = count != 0;	/* -1, "being enabled", counts as on */

	return (enabled ^ jump_entry_is_branch(entry)) ? JUMP_LABEL_JMP
						       : JUMP_LABEL_NOP;
}

/*
 * Where the last key's entries began and ended, in the last few tables
 * searched: a caller that changes many keys mostly goes through them in
 * the order of their table, one way or the other (dynamic debug's
 * descriptors hold their keys in site order; GCC lays out an array's keys,
 * defined one after another, last to first), so the next key's entries
 * usually start just after the last key's, or end just before them.  Only
 * a guess, checked against the table as registered now; jump_label_mutex
 * guards it.
 */
#define SK_HINTS	8

static struct {
	const struct jump_entry *start;
	struct jump_entry *first, *next;
} hints[SK_HINTS];

/* The slot of the table at @start, the @nth of the walk: mostly slot @nth. */
static unsigned int hint_slot(const struct jump_entry *start, unsigned int nth)
{
	unsigned int i = nth % SK_HINTS;

	if (hints[i].start == start)
		return i;
	for (i = 0; i < SK_HINTS; i++)
		if (hints[i].start == start)
			return i;
	i = nth % SK_HINTS;
	hints[i].start = start;
	hints[i].first = hints[i].next = NULL;
	return i;
}

/*
 * Find the first entry of @key in a sorted table whose keys' range holds
 * @key (sk_next_table_for() gave it), or NULL.
 */
static struct jump_entry *first_entry(struct jump_entry *start,
				      struct jump_entry *stop,
				      const struct static_key *key,
				      struct jump_entry *next,
				      struct jump_entry *first)
{
	struct jump_entry *lo = start, *hi = stop;

	/* Just after the last key's entries: the key's first one? */
	if (next && next >= start && next < stop &&
	    jump_entry_key(next) == key &&
	    (next == start || jump_entry_key(next - 1) != key))
		return next;
	/* Just before them: the key's last one; its first is further back. */
	if (first && first > start && first <= stop &&
	    jump_entry_key(first - 1) == key) {
		for (lo = first - 1; lo > start && jump_entry_key(lo - 1) == key; lo--)
			;
		return lo;
	}
	while (lo < hi) {
		struct jump_entry *mid = lo + (hi - lo) / 2;

		if ((uintptr_t)jump_entry_key(mid) < (uintptr_t)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < stop && jump_entry_key(lo) == key ? lo : NULL;
}

void sk_report_site(const struct jump_entry *e, int err)
{
	char bytes[64];

	arch_jump_label_describe(e, bytes, sizeof(bytes));
	if (jump_entry_is_dead(e))
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " was refused when its object was registered (said then): the key cannot change",
			    (void *)jump_entry_code(e));
	else if (err == -ENOMEM)
		sk_warn_key(jump_entry_key(e), "no memory to queue site %p of key " SK_KEYNAME ": nothing written, key unchanged",
			    (void *)jump_entry_code(e));
	else if (err == -EBUSY)
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " holds a breakpoint over its instruction (%s): nothing written, key unchanged; retried at the next change",
			    (void *)jump_entry_code(e), bytes);
	else
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " holds %s, not the expected instruction: nothing written, key unchanged",
			    (void *)jump_entry_code(e), bytes);
}

#define SK_PREFETCH_AHEAD	8	/* sites: make bench's spread layout */
#define SK_PREFETCH_KEYS	4	/* keys of one site ahead: a query */

/*
 * Queue every site of @key in every object for @count and write them in one
 * batch.  Returns the number of sites, or -errno with nothing changed: every
 * site of the key is checked before anything is written, and a site that
 * cannot be brought to the new state (dead, or holding something else, a
 * debugger's breakpoint included) refuses the whole change.  Called locked.
 */
int sk_jump_label_update(struct static_key *key, int count)
{
	struct jump_entry *e, *start, *stop;
	struct sk_object *o = NULL;
	int queued = 0, err;
	unsigned int nth = 0;
	bool batch = sk_batch_open_locked() && !sk_text_poke_probing();
	size_t mark = batch ? sk_queue_mark() : 0;

	/* A failed change's; not while a batch's sites are queued. */
	if (!mark)
		arch_jump_label_repair(0, 0, SK_STUCK_REPAIR);
	while (sk_next_table_for(key, &o, &start, &stop)) {
		unsigned int h = hint_slot(start, nth++);

		e = first_entry(start, stop, key, hints[h].next, hints[h].first);
		if (e)
			hints[h].first = e;
		for (; e && e < stop && jump_entry_key(e) == key; e++) {
			/*
			 * Queueing reads every site: a key's sites are spread
			 * over its object's text, mostly out of the cache.
			 * Ask for a later one now, so that the misses overlap.
			 */
			if (e + SK_PREFETCH_AHEAD < stop)
				__builtin_prefetch((const void *)
					jump_entry_code(e + SK_PREFETCH_AHEAD));
			/* The write method is chosen when first needed. */
			if (!queued && (err = sk_queue_ready()))
				return err;
			err = sk_queue_site(e, sk_entry_type(e, count));
			if (err) {
				sk_report_site(e, err);
				sk_queue_drop_from(mark);
				return err == -EBUSY ? -EILSEQ : err;
			}
			queued++;
		}
		if (e) {
			hints[h].next = e;
			/*
			 * A site a few keys on, most likely (see hints):
			 * its code is read when that key comes, and one
			 * key is too little time for a miss to be served.
			 */
			if (e + SK_PREFETCH_KEYS < stop)
				__builtin_prefetch((const void *)
					jump_entry_code(e + SK_PREFETCH_KEYS));
		}
	}
	if (!queued)
		return 0;
	if (batch) {		/* written by the batch's commit */
		err = sk_batch_defer(key, count, mark);
		if (err)
			sk_queue_drop_from(mark);
		return err ? err : queued;
	}
	err = sk_queue_apply();
	if (err)
		return err;
	sk_count_updates(1);
	return queued;
}
SK_WRITER_HOOK(key_update, sk_jump_label_update);
