/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What SIGTRAP's handler (kernel/trap.c) and the breakpoint protocol need
 * of an x86 signal frame: the saved instruction pointer in a ucontext,
 * and rt_sigreturn as the C library's restorer spells it.  Internal to
 * the library: not installed.
 */
#ifndef _ASM_X86_TRAP_REGS_H
#define _ASM_X86_TRAP_REGS_H

#include <stdint.h>
#include <ucontext.h>

/*
 * gregs[REG_RIP] on x86-64, gregs[REG_EIP] on i386 (both <sys/ucontext.h>
 * with _GNU_SOURCE, in glibc and musl).
 */
#ifdef __x86_64__
#define SK_REG_IP	REG_RIP
/* mov $15, %rax; syscall */
#define SK_RT_SIGRETURN	".byte 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05\n"
#else
#define SK_REG_IP	REG_EIP
/* mov $173, %eax; int $0x80 */
#define SK_RT_SIGRETURN	".byte 0xb8, 0xad, 0, 0, 0, 0xcd, 0x80\n"
#endif

/* Where the thread of signal context @uc goes on (after an INT3: past it). */
static inline uintptr_t sk_trap_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[SK_REG_IP];
}

static inline void sk_trap_set_pc(void *uc, uintptr_t pc)
{
	((ucontext_t *)uc)->uc_mcontext.gregs[SK_REG_IP] = (greg_t)pc;
}

#endif /* _ASM_X86_TRAP_REGS_H */
