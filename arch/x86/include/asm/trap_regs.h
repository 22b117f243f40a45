/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What SIGTRAP's handler (kernel/trap.c) and the breakpoint protocol need
 * of an x86 signal frame: the saved instruction pointer in a ucontext,
 * and rt_sigreturn as the C library's restorer spells it.  Internal to
 * the library: not installed.
 */
#ifndef _ASM_X86_TRAP_REGS_H
#define _ASM_X86_TRAP_REGS_H

#include <signal.h>
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

/*
 * sk_trap_mend_return() - make the signal frame the kernel built for a
 * handler of ours return through @restorer if it would return to address 0.
 * @info, @uc: the handler's arguments.
 *
 * The library installs its handler with SA_RESTORER, and the kernel reports
 * that flag to whoever reads the disposition.  The i386 glibc, which leaves
 * the return to the vDSO's rt_sigreturn when the kernel has one, passes
 * sa_flags on as it finds them but never a restorer: a program or a plugin
 * that saves the library's disposition and puts it back with sigaction()
 * installs SA_RESTORER with a NULL restorer, and the kernel makes the next
 * handler return to address 0.  x86-64's glibc and musl always pass their
 * own restorer, and need nothing.
 *
 * The i386 rt signal frame (native and ia32 emulation alike) starts with
 * the return address, the signal number and the two pointers the handler
 * is called with, followed by the siginfo and the ucontext themselves; a
 * call that did not come from the kernel does not have both pointers just
 * in front of what they point to, and is left alone.
 */
#ifdef __x86_64__
static inline void sk_trap_mend_return(siginfo_t *info, void *uc,
				       const void *restorer)
{
	(void)info;
	(void)uc;
	(void)restorer;
}
#else
static inline void sk_trap_mend_return(siginfo_t *info, void *uc,
				       const void *restorer)
{
	/* pretcode, sig, pinfo, puc: the four words in front of the siginfo */
	void **head = (void **)info - 4;

	if (uc != (void *)(info + 1) || head[2] != info || head[3] != uc)
		return;
	if (!head[0])
		head[0] = (void *)restorer;
}
#endif

#endif /* _ASM_X86_TRAP_REGS_H */
