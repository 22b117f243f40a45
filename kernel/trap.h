/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * SIGTRAP ownership (kernel/trap.c), for the architectures whose patching
 * protocol plants breakpoints: the handler the protocol installs, and how
 * it learns which traps are the protocol's own.
 */
#ifndef _SK_KERNEL_TRAP_H
#define _SK_KERNEL_TRAP_H

#include <stdbool.h>

#ifndef __hidden
#define __hidden	__attribute__((visibility("hidden")))
#endif

/*
 * sk_trap_claim_fn - asked, in the signal handler, about every breakpoint
 * trap: true if the breakpoint is the protocol's and @uc (a ucontext_t)
 * now says where the thread goes on; false to hand the trap on to the
 * program's handlers.  Lock-free and async-signal-safe.
 */
typedef bool (*sk_trap_claim_fn)(void *uc);

__hidden int sk_trap_install(sk_trap_claim_fn claim);

/*
 * Whether the program runs under ThreadSanitizer, built into it or into
 * this library: its runtime defines __tsan_init, keeps the program's
 * signal dispositions itself, and starts a thread of its own that blocks
 * every standard signal (1 to 30, SIGSYS aside) and runs no site.
 */
extern void __tsan_init(void) __attribute__((weak));

static inline bool sk_under_tsan(void)
{
#ifdef __SANITIZE_THREAD__
	return true;
#else
	return __tsan_init != NULL;
#endif
}

#endif /* _SK_KERNEL_TRAP_H */
