// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * cpus_read_lock() and friends: the kernel's CPU-hotplug read lock, which
 * has nothing to exclude in a process (no CPU comes or goes under it), so
 * it is a per-thread count that never waits.  The count is what
 * lockdep_assert_cpus_held() and the _cpuslocked calls check.
 */
#include <stdbool.h>

#include <linux/cpu.h>
#include "internal.h"

static __thread unsigned int cpus_read_depth;

bool sk_cpus_read_held(void)
{
	return cpus_read_depth != 0;
}

/**
 * cpus_read_lock() - hold off CPU hotplug (here: count a holder; never waits).
 */
SK_EXPORT void cpus_read_lock(void)
{
	cpus_read_depth++;
}

/**
 * cpus_read_trylock() - cpus_read_lock() that may fail; it never does here.
 *
 * Returns 1: the lock has no writer to wait for.
 */
SK_EXPORT int cpus_read_trylock(void)
{
	cpus_read_depth++;
	return 1;
}

/**
 * cpus_read_unlock() - release cpus_read_lock(); unbalanced, it is said once
 * and ignored.
 */
SK_EXPORT void cpus_read_unlock(void)
{
	if (SK_WARN_ONCE(!cpus_read_depth,
			 "cpus_read_unlock() without cpus_read_lock() held: ignored"))
		return;
	cpus_read_depth--;
}

/**
 * lockdep_assert_cpus_held() - say (once) if the calling thread does not hold
 * cpus_read_lock(), as the kernel's lockdep would.
 */
SK_EXPORT void lockdep_assert_cpus_held(void)
{
	SK_WARN_ONCE(!cpus_read_depth,
		     "lockdep_assert_cpus_held(): cpus_read_lock() is not held by this thread");
}
