// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The library's one pthread_atfork() registration, and its atexit() ones.  Separate
 * registrations would run in an order set by constructor order, not by
 * the lock order, and glibc runs the prepare handlers of concurrent
 * fork()s concurrently: so the order is fixed here, by level, from the
 * handlers each layer placed in the "sk_lifecycle" section
 * (lib/lifecycle.h).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "lifecycle.h"
#include "warn.h"

SK_SECTION_TABLE(struct sk_lifecycle, sk_lifecycle);

enum phase { PREPARE, PARENT, CHILD };

static void (*handler(const struct sk_lifecycle *e, enum phase p))(void)
{
	return p == PREPARE ? e->prepare : p == PARENT ? e->parent : e->child;
}

/* The exit phase: every exit handler, top level first, in link order. */
static void run_exit(bool main_program)
{
	const struct sk_lifecycle *e;
	int level;

	for (level = SK_LC_NR - 1; level >= 0; level--)
		sk_section_for_each(e, sk_lifecycle)
			if ((int)e->level == level && e->exit)
				e->exit(main_program);
}

static void exit_main(void)
{
	run_exit(true);
}

static void exit_other(void)
{
	run_exit(false);
}

void sk_lifecycle_exit_arm(bool main_program)
{
	static bool for_main, for_other;
	bool *done = main_program ? &for_main : &for_other;

	if (__atomic_exchange_n(done, true, __ATOMIC_RELAXED))
		return;
	if (atexit(main_program ? exit_main : exit_other))
		sk_warn("cannot register the exit handlers: objects are unregistered by their destructors at exit, and a later destructor's change of their keys does not reach their sites");
}

static void run_level(int level, enum phase p)
{
	const struct sk_lifecycle *first = sk_section_start(sk_lifecycle);
	const struct sk_lifecycle *last = sk_section_stop(sk_lifecycle);
	const struct sk_lifecycle *e;
	void (*fn)(void);

	if (p == PREPARE) {
		for (e = first; e < last; e++)
			if ((int)e->level == level && (fn = handler(e, p)))
				fn();
		return;
	}
	for (e = last; e > first; e--)
		if ((int)e[-1].level == level && (fn = handler(&e[-1], p)))
			fn();
}

/*
 * A handful of entries: one pass per level, forwards over the section for
 * prepare (top level first), backwards for parent and child (bottom first).
 */
static void run(enum phase p)
{
	int i;

	if (sk_section_empty(sk_lifecycle))
		return;
	for (i = 0; i < SK_LC_NR; i++)
		run_level(p == PREPARE ? SK_LC_NR - 1 - i : i, p);
}

static void prepare(void)
{
	run(PREPARE);
}

static void parent(void)
{
	run(PARENT);
}

static void child(void)
{
	run(CHILD);
}

static void register_once(void)
{
	int err = pthread_atfork(prepare, parent, child);

	if (err)
		sk_warn("cannot register the fork() handlers (error %d): a child forked while a key changes may inherit a held lock",
			err);
}

void sk_lifecycle_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_once);
}
