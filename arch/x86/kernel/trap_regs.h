/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The saved instruction pointer in a signal's ucontext, which the SIGTRAP
 * handler moves past an INT3: gregs[REG_RIP] on x86-64, gregs[REG_EIP] on
 * i386 (both <sys/ucontext.h> with _GNU_SOURCE, in glibc and musl).
 */
#ifndef _ARCH_X86_TRAP_REGS_H
#define _ARCH_X86_TRAP_REGS_H

#include <ucontext.h>

#ifdef __x86_64__
#define SK_REG_IP	REG_RIP
#else
#define SK_REG_IP	REG_EIP
#endif

#endif /* _ARCH_X86_TRAP_REGS_H */
