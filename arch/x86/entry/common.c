// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * x86-64 entry: the dispatcher that randomizes the stack offset.  The
 * trusted system-call instruction, the stack switch and the signal frame's
 * registers are in gate.c, below the handler this dispatcher calls.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include <linux/randomize_kstack.h>

#include "../../../kernel/entry.h"

/*
 * The cycle counter: the extra source the kernel used on x86 (seeds/005).
 * Its low half, as rdtsc leaves it: zero-extended in %rax.
 */
static inline unsigned long rdtsc_low(void)
{
	unsigned long lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo;
}

/*
 * sk_do_syscall() - the randomizing half of the entry, do_syscall_64() in
 * the kernel; kernel/entry.c enters it when randomize_kstack_offset is on.
 * @regs is at a fixed place at the top of the entry stack; the offset goes
 * in below it, before anything else runs, and the next one is chosen on
 * the way out.  Built without stack protector and stack-clash probes, and
 * with nothing kept across the call but the frame pointer
 * (arch/x86/entry/Makefile.flags).  Never inlined: the allocation would
 * give its caller a frame on the path that does not randomize.
 */
__attribute__((noinline)) void sk_do_syscall(struct pt_regs *regs)
{
	struct kstack_state *ks = regs->kstack;

	__add_random_kstack_offset_state(ks);
	sk_invoke_syscall(regs);
	__choose_random_kstack_offset_state(ks, rdtsc_low());
}
