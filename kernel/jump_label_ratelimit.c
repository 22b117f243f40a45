// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Delayed decrements of deferred keys, run by one library thread started on
 * first use.  The pending list is kept in due-time order.
 *
 * A decrement is taken off the list and made in one critical section of
 * jump_label_mutex (the worker, a flush, an object going away all do it
 * so): whoever holds the mutex, fork()'s handler included, sees every
 * decrement either still pending or made, never in flight.  work_lock is
 * innermost in the lock order (Documentation/static-keys.rst).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include <linux/jump_label_ratelimit.h>
#include "internal.h"
#include "../lib/lifecycle.h"
#include "../lib/thread.h"
#include "object_hooks.h"

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond;
static struct delayed_work *pending;
static bool worker_started;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void unlink_work(struct delayed_work *w)
{
	struct delayed_work **pp;

	for (pp = &pending; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	w->next = NULL;
	/* Stored atomically: callers may look at it without work_lock. */
	__atomic_store_n(&w->pending, 0, __ATOMIC_RELEASE);
}

/*
 * Take @w off the list and make its decrement, with jump_label_mutex held
 * by the caller and work_lock not held.  False if @w is not pending (a
 * flush or an unloading object got to it first).
 */
static bool run_work(struct delayed_work *w)
{
	struct static_key *key = NULL;

	pthread_mutex_lock(&work_lock);
	if (w->pending) {
		key = w->key;
		unlink_work(w);
	}
	pthread_mutex_unlock(&work_lock);
	if (key)
		__static_key_slow_dec(key);
	return key != NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&work_lock);
	for (;;) {
		struct delayed_work *w = pending;
		struct timespec ts;

		if (!w) {
			pthread_cond_wait(&work_cond, &work_lock);
			continue;
		}
		if (w->due_ns > now_ns()) {
			ts.tv_sec = w->due_ns / 1000000000ULL;
			ts.tv_nsec = w->due_ns % 1000000000ULL;
			pthread_cond_timedwait(&work_cond, &work_lock, &ts);
			continue;
		}
		/* Due: retake the locks in their order, and look again. */
		pthread_mutex_unlock(&work_lock);
		jump_label_lock();
		pthread_mutex_lock(&work_lock);
		if (pending == w && w->due_ns <= now_ns()) {
			pthread_mutex_unlock(&work_lock);
			run_work(w);
			pthread_mutex_lock(&work_lock);
		}
		pthread_mutex_unlock(&work_lock);
		__jump_label_unlock();
		pthread_mutex_lock(&work_lock);
	}
	return NULL;
}

static int start_worker(void)
{
	pthread_condattr_t ca;
	int err;

	if (worker_started)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&work_cond, &ca);
	pthread_condattr_destroy(&ca);
	err = sk_thread_start(worker, NULL);
	if (err)
		return err;
	worker_started = true;
	return 0;
}

/*
 * The worker thread does not survive fork(): the child starts its own if
 * decrements are pending.  work_lock is held across fork(), innermost in
 * the lock order (lib/lifecycle.c, SK_LC_DEFERRED), so that the list is
 * consistent in the child.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&work_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&work_lock);
}

static void fork_child(void)
{
	worker_started = false;
	if (pending && start_worker())
		sk_warn("cannot restart the deferred-key thread after fork()");
	pthread_mutex_unlock(&work_lock);
}

SK_LIFECYCLE(deferred, SK_LC_DEFERRED, fork_prepare, fork_parent, fork_child);

static bool in_range(const void *p, uintptr_t start, uintptr_t end)
{
	return (uintptr_t)p >= start && (uintptr_t)p < end;
}

/*
 * An object is going away: its delayed decrements are owed, so make them
 * now rather than drop them.  The worker makes its decrements holding
 * jump_label_mutex: once we hold it, none is in progress in the object.
 * Afterwards nothing pending points into [@start, @end).
 */
static void deferred_flush_range(uintptr_t start, uintptr_t end)
{
	struct delayed_work *w;

	jump_label_lock();
	for (;;) {
		pthread_mutex_lock(&work_lock);
		for (w = pending; w && !in_range(w, start, end); w = w->next)
			;
		pthread_mutex_unlock(&work_lock);
		if (!w)
			break;
		run_work(w);
	}
	__jump_label_unlock();
}

/* Told by kernel/object.c, with no library lock held. */
SK_OBJECT_HOOK(deferred_object_hook) = {
	.order = SK_HOOK_FIRST,
	.unmapping = deferred_flush_range,
};

/* Queue @w to run at @due_ns unless it is already pending. */
static void schedule_work(struct delayed_work *w, struct static_key *key,
			  unsigned long long due_ns)
{
	struct delayed_work **pp;

	if (w->pending)
		return;
	w->key = key;
	w->due_ns = due_ns;
	__atomic_store_n(&w->pending, 1, __ATOMIC_RELEASE);
	for (pp = &pending; *pp && (*pp)->due_ns <= due_ns; pp = &(*pp)->next)
		;
	w->next = *pp;
	*pp = w;
	pthread_cond_signal(&work_cond);
}

/**
 * __static_key_slow_dec_deferred() - drop a user; delay the last drop.
 * @key: the key
 * @work: the key's delayed work
 * @timeout: delay of the disabling decrement, in jiffies (milliseconds)
 */
SK_EXPORT void __static_key_slow_dec_deferred(struct static_key *key,
					      struct delayed_work *work,
					      unsigned long timeout)
{
	if (sk_static_key_dec_not_one(key))
		return;
	pthread_mutex_lock(&work_lock);
	if (start_worker()) {
		pthread_mutex_unlock(&work_lock);
		sk_warn("cannot start the deferred-key thread: decrementing now");
		static_key_slow_dec(key);
		return;
	}
	schedule_work(work, key, now_ns() + timeout * 1000000ULL);
	pthread_mutex_unlock(&work_lock);
}

/**
 * __static_key_deferred_flush() - run a pending delayed decrement now.
 * @key: the deferred key (named if the flush is refused)
 * @work: its delayed work
 *
 * Returns once no decrement of @work is pending or running.  Inside the
 * caller's own jump_label_lock() section it would wait for itself: refused
 * (EDEADLK).
 */
SK_EXPORT void __static_key_deferred_flush(void *key, struct delayed_work *work)
{
	/*
	 * The worker decrements under the mutex: none is half done now.  In
	 * the caller's own jump_label_lock() section the wait would never end.
	 */
	if (!sk_change_lock(key, "static_key_deferred_flush", false))
		return;
	run_work(work);
	jump_label_unlock();
}

/**
 * jump_label_rate_limit() - set the delay of a deferred key's last decrement.
 * @key: the deferred key
 * @rl: the delay in jiffies (milliseconds)
 */
SK_EXPORT void jump_label_rate_limit(struct static_key_deferred *key,
				     unsigned long rl)
{
	key->timeout = rl;
}
