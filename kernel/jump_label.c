// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The arch-neutral key core's entry points: the lock, the exported key
 * changes and batches, and the lock's part in fork().  How a count moves is
 * kernel/jump_label_count.c's, the update of every site of a key
 * kernel/jump_label_update.c's, messages that name a key
 * kernel/warn_key.c's.  The objects themselves (their segments, sorted
 * tables and sealing) are kernel/object.c's, reached through
 * sk_next_table() and sk_key_sealed_by() (kernel/internal.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/batch.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "key_core.h"
#include "queue.h"
#include "../lib/lifecycle.h"

/*
 * Locking.  jump_label_mutex serialises every change of a key's state with
 * the code patching that goes with it, and every change of the object list.
 * The fast paths never take it.  Every key change takes it itself, as in
 * the kernel, the _cpuslocked forms included; the record of its owner
 * (sk_lock_is_mine(), kernel/warn_key.c) lets a change refuse a caller that
 * holds it already (its own jump_label_lock() section), which would
 * otherwise wait for itself.
 *
 * The lock order is written once, in Documentation/static-keys.rst ("Lock
 * order"); lib/lifecycle.c takes every library lock in it across fork().
 * Nothing is ever called into the loader (dladdr, dlsym, dlopen,
 * dl_iterate_phdr) with one of the library's locks held: messages that
 * name a key are kept (kernel/warn_key.c) and printed by
 * jump_label_unlock(), after the mutex is released.  The library is linked
 * with -z now, so that no lazy symbol binding happens under a lock either.
 */
static pthread_mutex_t jump_label_mutex = PTHREAD_MUTEX_INITIALIZER;

SK_EXPORT bool static_key_initialized = true;

static void release_mutex(void)
{
	sk_error_publish();
	sk_lock_owner_drop(NULL);
	pthread_mutex_unlock(&jump_label_mutex);
}

/* A copy of the held messages leaves with the lock, and is printed after. */
static __attribute__((noinline)) void release_mutex_and_print(void)
{
	struct sk_held_warning out[SK_NR_HELD_WARNINGS];
	unsigned int n;

	sk_error_publish();
	n = sk_lock_owner_drop(out);

	pthread_mutex_unlock(&jump_label_mutex);
	sk_held_print(out, n);
}

/*
 * A thread cancelled inside an update would leave the mutex locked and the
 * sites half-written (pwrite() and open() are cancellation points): the
 * holder of the lock cannot be cancelled, and a pending cancellation acts
 * when jump_label_unlock() returns.  The holder's own state, kept under the
 * lock.
 */
static int lock_cancel_state;

/**
 * jump_label_lock() - take the lock that serialises all key updates.
 */
SK_EXPORT void jump_label_lock(void)
{
	int old;

	if (sk_batch_nest())	/* this thread's batch holds it */
		return;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&jump_label_mutex);
	lock_cancel_state = old;
	sk_lock_owner_set();
	/* a child made without the fork handlers: the parent's descriptors */
	sk_text_poke_fork_check();
}

/**
 * jump_label_unlock() - release the lock taken by jump_label_lock(), then
 * print the messages held while it was taken.
 */
void __jump_label_unlock(void)
{
	int old = lock_cancel_state;

	if (sk_batch_unnest())
		return;
	sk_batch_unlocking();
	if (sk_held_pending())
		release_mutex_and_print();
	else
		release_mutex();
	pthread_setcancelstate(old, NULL);
}

/*
 * The end of a whole operation (a key change, or the caller's own
 * jump_label_lock() section) is a cancellation point: a cancellation that
 * arrived meanwhile acts here, with everything consistent.  The library's
 * own multi-step paths (registration, deferred work) use
 * __jump_label_unlock(), which is not.
 */
SK_EXPORT void jump_label_unlock(void)
{
	/* Inside this thread's batch it only counts, cancellation still off. */
	if (sk_batch_unnest())
		return;
	__jump_label_unlock();
	pthread_testcancel();
}

/*
 * The readers work inside the caller's jump_label_lock() section as well as
 * outside it: the kernel's kprobes call jump_label_text_reserved() there.
 * Returns whether the lock was taken (and must be released).
 */
static bool lock_unless_mine(void)
{
	if (sk_lock_is_mine())
		return false;
	jump_label_lock();
	return true;
}

/*
 * fork() while another thread is patching would give the child a lock
 * nobody will release and half-written sites: jump_label_mutex is held
 * across fork(), taken at its place in the lock order by lib/lifecycle.c,
 * which runs every layer's handlers.  A thread that forks while holding
 * jump_label_mutex itself keeps it: its state is consistent.
 */
static __thread bool fork_took_lock;

static void fork_prepare(void)
{
	if (!sk_lock_is_mine()) {
		jump_label_lock();
		fork_took_lock = true;
	}
}

static void fork_release(void)
{
	if (fork_took_lock) {
		fork_took_lock = false;
		__jump_label_unlock();
	}
}

SK_LIFECYCLE(core, SK_LC_CORE, fork_prepare, fork_release, fork_release);

static void __attribute__((constructor(101))) jump_label_setup(void)
{
	sk_lifecycle_init();
}

/**
 * jump_label_init() - initialise the library.  Kept for kernel code: the
 * library initialises itself before any constructor of a user of it runs.
 */
SK_EXPORT void jump_label_init(void)
{
}

SK_EXPORT void statickeys_get_stats(struct statickeys_stats *s)
{
	struct jump_entry *start, *stop;
	struct sk_object *o = NULL;
	bool locked = lock_unless_mine();

	sk_stats_read(s);
	while (sk_next_table(&o, &start, &stop)) {
		s->objects++;
		s->sites += stop - start;
	}
	if (locked)
		jump_label_unlock();
}

/*
 * The way into every key change.  As in the kernel, each takes
 * jump_label_mutex itself, the _cpuslocked forms included: their caller
 * holds cpus_read_lock() (kernel/cpu.c), which excludes nothing in a
 * process and is only checked.  Inside the caller's own jump_label_lock()
 * section the change would wait for itself, as the kernel's would: it is
 * refused instead, with EDEADLK, nothing changed.
 */
bool sk_change_lock(struct static_key *key, const char *fn, bool cpuslocked)
{
	/*
	 * This thread's batch holds the lock for its changes (kernel/batch.c):
	 * there the lock only counts, asked once.
	 */
	if (!sk_batch_nest()) {
		if (sk_lock_is_mine()) {
			sk_refuse_misuse(key, MISUSE_LOCK_HELD, EDEADLK,
				         "%s() on key " SK_KEYNAME " with jump_label_lock() held: it takes that lock itself, as in the kernel; refused, nothing changed",
				         fn);
			return false;
		}
		jump_label_lock();
	}
	if (cpuslocked && !sk_cpus_read_held() && sk_first_misuse(key, MISUSE_CPUS))
		sk_warn_key(key, "%s() on key " SK_KEYNAME " without cpus_read_lock() held (the kernel's lockdep would say so): done under jump_label_lock() all the same",
			    fn);
	return true;
}

enum key_op { KEY_INC, KEY_DEC, KEY_ENABLE, KEY_DISABLE };

static bool key_change(struct static_key *key, enum key_op op, const char *fn,
		       bool cpuslocked)
{
	bool ret = true;

	if (!sk_change_lock(key, fn, cpuslocked))
		return false;
	switch (op) {
	case KEY_INC:
		/*
		 * No lock-free fast path: a sealed key must be refused before
		 * its count is touched, and that needs the object list.
		 */
		ret = __static_key_slow_inc(key);
		break;
	case KEY_DEC:
		__static_key_slow_dec(key);
		break;
	case KEY_ENABLE:
		__static_key_enable(key);
		break;
	case KEY_DISABLE:
		__static_key_disable(key);
		break;
	}
	jump_label_unlock();
	return ret;
}

/*
 * static_key_enable() or _disable() of @key by the thread whose batch is
 * open (it holds the mutex already): the same change and refusals, without
 * the lock's take and release around each key, for a caller that changes
 * thousands in one batch (dynamic debug's queries).  Outside such a batch,
 * the ordinary change.
 */
int sk_batch_key_switch(struct static_key *key, bool on, bool mine)
{
	if (!mine) {
		key_change(key, on ? KEY_ENABLE : KEY_DISABLE,
			   on ? "static_key_enable" : "static_key_disable", false);
		return statickeys_last_error();
	}
	if (on)
		__static_key_enable(key);
	else
		__static_key_disable(key);
	return sk_error_locked();
}

/**
 * static_key_slow_inc() - add a user; the first one enables the key.
 * @key: the key
 *
 * Returns true if the count was incremented.
 */
SK_EXPORT bool static_key_slow_inc(struct static_key *key)
{
	return key_change(key, KEY_INC, __func__, false);
}

/**
 * static_key_slow_dec() - drop a user; the last one disables the key.
 * @key: the key
 *
 * A decrement below zero warns and leaves the key unchanged.
 */
SK_EXPORT void static_key_slow_dec(struct static_key *key)
{
	key_change(key, KEY_DEC, __func__, false);
}

/**
 * static_key_enable() - set the key's count to 1 if it is 0.
 * @key: the key; a boolean key, not one used with inc/dec
 */
SK_EXPORT void static_key_enable(struct static_key *key)
{
	key_change(key, KEY_ENABLE, __func__, false);
}

/**
 * static_key_disable() - set the key's count to 0.
 * @key: the key; a boolean key, not one used with inc/dec
 */
SK_EXPORT void static_key_disable(struct static_key *key)
{
	key_change(key, KEY_DISABLE, __func__, false);
}

/**
 * static_key_slow_inc_cpuslocked() - static_key_slow_inc() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT bool static_key_slow_inc_cpuslocked(struct static_key *key)
{
	return key_change(key, KEY_INC, __func__, true);
}

/**
 * static_key_slow_dec_cpuslocked() - static_key_slow_dec() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_slow_dec_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_DEC, __func__, true);
}

/**
 * static_key_enable_cpuslocked() - static_key_enable() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_enable_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_ENABLE, __func__, true);
}

/**
 * static_key_disable_cpuslocked() - static_key_disable() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_disable_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_DISABLE, __func__, true);
}

/**
 * jump_label_text_reserved() - does [@start, @end] overlap any site?
 * @start: first byte
 * @end: last byte
 *
 * Callable with or without jump_label_lock() held, as in the kernel.
 */
SK_EXPORT int jump_label_text_reserved(void *start, void *end)
{
	uintptr_t s = (uintptr_t)start, e = (uintptr_t)end;
	struct jump_entry *it, *first, *stop;
	struct sk_object *o = NULL;
	bool locked = lock_unless_mine();
	int ret = 0;

	while (!ret && sk_next_table(&o, &first, &stop))
		for (it = first; it < stop; it++) {
			uintptr_t c = jump_entry_code(it);

			if (c <= e && c + JUMP_LABEL_SITE_SIZE > s) {
				ret = 1;
				break;
			}
		}
	if (locked)
		jump_label_unlock();
	return ret;
}

SK_EXPORT const char *statickeys_text_poke_method(void)
{
	return sk_text_poke_method();
}

/**
 * statickeys_batch_begin() - start a batch of key changes.
 *
 * Until the matching statickeys_batch_commit(), the key changes this thread
 * makes queue their sites instead of writing them.  The thread holds the
 * jump-label lock meanwhile: other threads' changes wait.  Batches nest: an
 * inner pair joins the outer batch.  Inside the caller's own
 * jump_label_lock() section no batch opens: its changes are refused as
 * any change there is, and its commit returns -EDEADLK.
 */
SK_EXPORT void statickeys_batch_begin(void)
{
	if (sk_batch_enter() || sk_batch_refuse())
		return;
	jump_label_lock();	/* before the batch opens: a batch's lock only counts */
	sk_batch_start();
	/*
	 * The write method is chosen (by writing a probe site through the
	 * update path, which a batch does not defer) before anything is
	 * queued; if it fails here, the first change tries again.
	 */
	sk_queue_ready();
}

/**
 * statickeys_batch_commit() - write the sites of every key changed since
 * statickeys_batch_begin(), in one update.
 *
 * Returns 0, or a negative errno when the update failed: then no key the
 * batch was switching changed (each has the count it had before its
 * switch), and statickeys_last_error() says why; -EDEADLK for a batch
 * begun inside the caller's own jump_label_lock() section.  A change refused when it
 * was made (a read-only key, a count out of range, a site that does not
 * hold the expected instruction) was refused at once, as outside a batch,
 * and leaves the other keys of the batch alone.
 */
SK_EXPORT int statickeys_batch_commit(void)
{
	int err, ret = sk_batch_end(&err);

	if (ret == -EDEADLK)	/* a refused batch */
		sk_set_error(EDEADLK);
	if (ret)		/* no batch, or an inner one */
		return ret < 0 ? ret : 0;
	sk_set_error(-err);
	jump_label_unlock();
	return err;
}
