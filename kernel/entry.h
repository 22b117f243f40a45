/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the arch-neutral entry machinery (kernel/entry.c) and the arch entry
 * code (arch/<arch>/entry/) share.  Hidden: nothing here is exported.
 */
#ifndef _STATICKEYS_KERNEL_ENTRY_H
#define _STATICKEYS_KERNEL_ENTRY_H

#include <stdint.h>
#include <ucontext.h>

#ifndef __hidden
#define __hidden	__attribute__((visibility("hidden")))
#endif

/*
 * The saved register frame, the kernel's struct pt_regs for our purpose:
 * built first at the top of the entry stack, before anything else runs
 * there, and written back on the way out.
 */
struct pt_regs {
	long nr;		/* system-call number */
	long args[6];
	long ret;		/* result, kernel style: -errno on failure */
	unsigned long ip;	/* where the entry came from (informational) */
	unsigned int path;	/* STATICKEYS_ENTRY_* */
	unsigned int flags;	/* SK_REGS_* */
	/* the thread's kstack_state: the dispatcher reaches it without TLS */
	struct kstack_state *kstack;
};

#define SK_REGS_NESTED	0x1	/* not at the top of the entry stack */

/* ---- provided by arch/<arch>/entry ---- */

/* The one instruction allowed through the filter; ret is right after it. */
long sk_syscall_gate(long nr, long a0, long a1, long a2, long a3, long a4,
		     long a5) __hidden;
extern const char sk_syscall_gate_ret[] __hidden;

/* Call fn(arg) with the stack pointer set to @sp (16-byte aligned). */
void sk_call_on_stack(void (*fn)(struct pt_regs *), struct pt_regs *arg,
		      void *sp) __hidden;

/*
 * The randomizing dispatcher, entered only with randomize_kstack_offset on:
 * moves the stack by the offset, invokes, picks the next offset.
 */
void sk_do_syscall(struct pt_regs *regs) __hidden;

/* The signal frame's registers in and out of a struct pt_regs. */
void sk_arch_regs_from_uc(struct pt_regs *regs, const ucontext_t *uc) __hidden;
void sk_arch_regs_to_uc(const struct pt_regs *regs, ucontext_t *uc) __hidden;

/* The AUDIT_ARCH_* value seccomp reports for this ABI. */
extern const uint32_t sk_arch_audit __hidden;

/* ---- provided by kernel/entry.c ---- */

/*
 * The handler for regs->nr: the test hook, then the real system call, whose
 * result it stores in regs->ret (so that a dispatcher has nothing left to
 * do after it and can jump to it).
 */
void sk_invoke_syscall(struct pt_regs *regs) __hidden;

#define sk_raw_syscall(nr, a0, a1, a2, a3, a4, a5)			\
	sk_syscall_gate((nr), (long)(a0), (long)(a1), (long)(a2),	\
			(long)(a3), (long)(a4), (long)(a5))

#endif /* _STATICKEYS_KERNEL_ENTRY_H */
