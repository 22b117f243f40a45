// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * arm64 entry, the bottom of the kstack library: the one system-call
 * instruction the filter lets through, the stack switch, and the signal
 * frame's registers.  Calls nothing: everything above may call it.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <stdint.h>
#include <ucontext.h>

#include "../../../kernel/entry.h"

const uint32_t sk_arch_audit = AUDIT_ARCH_AARCH64;

#ifdef __CHECKER__
/* sparse reads the host's <ucontext.h>: the arm64 layout, to check against. */
struct sk_mcontext {
	unsigned long long fault_address, regs[31], sp, pc, pstate;
};
#define sk_mc(uc)	((struct sk_mcontext *)(void *)&(uc)->uc_mcontext)
#else
#define sk_mc(uc)	(&(uc)->uc_mcontext)
#endif

/* The kernel rolled back x0 to orig_x0: syscall_rollback(). */
void sk_arch_regs_from_uc(struct pt_regs *regs, const ucontext_t *uc)
{
	const unsigned long long *r = sk_mc(uc)->regs;
	int i;

	regs->nr = r[8];
	for (i = 0; i < 6; i++)
		regs->args[i] = r[i];
	regs->ip = sk_mc(uc)->pc;
}

/* The return value; pc already points past the svc. */
void sk_arch_regs_to_uc(const struct pt_regs *regs, ucontext_t *uc)
{
	sk_mc(uc)->regs[0] = regs->ret;
}

/*
 * sk_syscall_gate(nr, a0..a5): the only svc the filter lets through,
 * recognised by the address after it (seccomp_data's instruction_pointer).
 *
 * sk_call_on_stack(fn, arg, sp): fn(arg) on another stack, x29 keeping the
 * way back.  @sp is 16-byte aligned, as the architecture requires.
 */
__asm__(
	".pushsection .text\n"
	".globl sk_syscall_gate\n"
	".hidden sk_syscall_gate\n"
	".type sk_syscall_gate, %function\n"
	".p2align 2\n"
	"sk_syscall_gate:\n"
	".cfi_startproc\n"
	"	mov x8, x0\n"
	"	mov x0, x1\n"
	"	mov x1, x2\n"
	"	mov x2, x3\n"
	"	mov x3, x4\n"
	"	mov x4, x5\n"
	"	mov x5, x6\n"
	"	svc #0\n"
	".globl sk_syscall_gate_ret\n"
	".hidden sk_syscall_gate_ret\n"
	"sk_syscall_gate_ret:\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sk_syscall_gate, . - sk_syscall_gate\n"
	"\n"
	".globl sk_call_on_stack\n"
	".hidden sk_call_on_stack\n"
	".type sk_call_on_stack, %function\n"
	".p2align 2\n"
	"sk_call_on_stack:\n"
	".cfi_startproc\n"
	"	stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset x29, -16\n"
	".cfi_offset x30, -8\n"
	"	mov x29, sp\n"
	".cfi_def_cfa_register x29\n"
	"	mov sp, x2\n"
	"	mov x3, x0\n"
	"	mov x0, x1\n"
	"	blr x3\n"
	"	mov sp, x29\n"
	".cfi_def_cfa sp, 16\n"
	"	ldp x29, x30, [sp], #16\n"
	".cfi_def_cfa_offset 0\n"
	".cfi_restore x29\n"
	".cfi_restore x30\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sk_call_on_stack, . - sk_call_on_stack\n"
	".popsection\n");
