/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The CPU-hotplug read lock, for kernel code that holds it around the
 * _cpuslocked static-key calls (which take jump_label_lock() themselves,
 * as in the kernel).  A process has no CPU hotplug: the lock has no writer
 * and never waits.  It is counted per thread, so that
 * lockdep_assert_cpus_held() and the _cpuslocked calls can check their
 * caller as lockdep does.
 */
#ifndef _LINUX_CPU_H
#define _LINUX_CPU_H

#include <statickeys/export.h>

SK_BEGIN_DECLS

void cpus_read_lock(void) SK_SYM(cpus_read_lock);
void cpus_read_unlock(void) SK_SYM(cpus_read_unlock);
int cpus_read_trylock(void) SK_SYM(cpus_read_trylock);
void lockdep_assert_cpus_held(void) SK_SYM(lockdep_assert_cpus_held);

SK_END_DECLS

#endif /* _LINUX_CPU_H */
