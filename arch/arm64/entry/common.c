// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * arm64 entry: the dispatcher that randomizes the stack offset.  The
 * trusted system-call instruction, the stack switch and the signal frame's
 * registers are in gate.c, below the handler this dispatcher calls.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include <linux/randomize_kstack.h>

#include "../../../kernel/entry.h"

/*
 * The virtual counter, readable at EL0: the cheap extra source.  It ticks
 * slowly (tens of MHz on many parts), so the PRNG carries the entropy.
 */
static inline uint64_t cntvct(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/*
 * sk_do_syscall() - the randomizing half of the entry, invoke_syscall() in
 * the kernel; kernel/entry.c enters it when randomize_kstack_offset is on.
 * @regs is at a fixed place at the top of the entry stack; the offset goes
 * in below it, before anything else runs, and the next one is chosen on
 * the way out.  Built without stack protector and stack-clash probes
 * (arch/arm64/entry/Makefile.flags).  Never inlined: the allocation would
 * give its caller a frame on the path that does not randomize.
 */
__attribute__((noinline)) void sk_do_syscall(struct pt_regs *regs)
{
	struct kstack_state *ks = regs->kstack;

	__add_random_kstack_offset_state(ks);
	sk_invoke_syscall(regs);
	__choose_random_kstack_offset_state(ks, cntvct());
}
