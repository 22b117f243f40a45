// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * x86-64 entry, the bottom of the kstack library: the one system-call
 * instruction the filter lets through, the stack switch, and the signal
 * frame's registers.  Calls nothing: everything above may call it.
 */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <stdint.h>
#include <ucontext.h>

#include "../../../kernel/entry.h"

const uint32_t sk_arch_audit = AUDIT_ARCH_X86_64;

/* The kernel rolled back %rax to the number: syscall_rollback(). */
void sk_arch_regs_from_uc(struct pt_regs *regs, const ucontext_t *uc)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	regs->nr = g[REG_RAX];
	regs->args[0] = g[REG_RDI];
	regs->args[1] = g[REG_RSI];
	regs->args[2] = g[REG_RDX];
	regs->args[3] = g[REG_R10];
	regs->args[4] = g[REG_R8];
	regs->args[5] = g[REG_R9];
	regs->ip = g[REG_RIP];
}

/* The return value; %rip already points past the syscall instruction. */
void sk_arch_regs_to_uc(const struct pt_regs *regs, ucontext_t *uc)
{
	uc->uc_mcontext.gregs[REG_RAX] = regs->ret;
}

/*
 * sk_syscall_gate(nr, a0..a5): the only syscall instruction the filter lets
 * through, recognised by the address after it (seccomp_data's
 * instruction_pointer).  The seventh argument comes on the stack.
 *
 * sk_call_on_stack(fn, arg, sp): fn(arg) on another stack, %rbp keeping the
 * way back.  @sp is 16-byte aligned, as the ABI wants it before a call.
 */
__asm__(
	".pushsection .text\n"
	".globl sk_syscall_gate\n"
	".hidden sk_syscall_gate\n"
	".type sk_syscall_gate, @function\n"
	".p2align 4\n"
	"sk_syscall_gate:\n"
	".cfi_startproc\n"
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	movq %rdx, %rsi\n"
	"	movq %rcx, %rdx\n"
	"	movq %r8, %r10\n"
	"	movq %r9, %r8\n"
	"	movq 8(%rsp), %r9\n"
	"	syscall\n"
	".globl sk_syscall_gate_ret\n"
	".hidden sk_syscall_gate_ret\n"
	"sk_syscall_gate_ret:\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sk_syscall_gate, . - sk_syscall_gate\n"
	"\n"
	".globl sk_call_on_stack\n"
	".hidden sk_call_on_stack\n"
	".type sk_call_on_stack, @function\n"
	".p2align 4\n"
	"sk_call_on_stack:\n"
	".cfi_startproc\n"
	"	pushq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"	movq %rdx, %rsp\n"
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	call *%rax\n"
	"	movq %rbp, %rsp\n"
	"	popq %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sk_call_on_stack, . - sk_call_on_stack\n"
	".popsection\n");
