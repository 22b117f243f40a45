// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The counters of statickeys_get_stats(), at the bottom of the layers
 * (scripts/layers): every layer counts what it does here, and nothing here
 * calls anything of the library.  Relaxed atomics: a snapshot may be a few
 * counts behind a change in progress, never torn.
 */
#include <statickeys/statickeys.h>
#include "internal.h"

static struct statickeys_stats stats;

static void count(unsigned long *c, size_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

void sk_count_sites_written(size_t n)
{
	count(&stats.sites_written, n);
}

void sk_count_updates(size_t n)
{
	count(&stats.updates, n);
}

void sk_count_sync(void)
{
	count(&stats.sync_steps, 1);
}

void sk_count_refused(void)
{
	count(&stats.refused, 1);
}

/* The counters only: the caller fills in the objects and sites it knows. */
void sk_stats_read(struct statickeys_stats *s)
{
	s->updates = __atomic_load_n(&stats.updates, __ATOMIC_RELAXED);
	s->sites_written = __atomic_load_n(&stats.sites_written, __ATOMIC_RELAXED);
	s->sync_steps = __atomic_load_n(&stats.sync_steps, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&stats.refused, __ATOMIC_RELAXED);
	s->objects = 0;
	s->sites = 0;
}
