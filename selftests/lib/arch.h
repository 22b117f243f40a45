/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the selftests must know of the architecture they run on: whether
 * sites follow the x86 breakpoint protocol (not on x86 built as
 * ARCH=generic, without a patcher), the seccomp audit arch, and a
 * harmless instruction of a site's size that is neither of its two forms.
 */
#ifndef _SELFTESTS_ARCH_H
#define _SELFTESTS_ARCH_H

#include <linux/audit.h>
#include <sys/syscall.h>

#if (defined(__x86_64__) || defined(__i386__)) && !defined(CONFIG_ARCH_GENERIC)
/* Sites change through INT3 and the library's SIGTRAP handler. */
#define SK_TEST_X86		1
#endif

#if defined(__x86_64__)
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_RISCV64
#elif defined(__arm__)
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_ARM
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SK_TEST_AUDIT_ARCH	AUDIT_ARCH_PPC64LE	/* ARCH=ppc64le, generic */
#endif

/* open(), where the architecture still has it (arm64, riscv: openat only). */
#ifdef __NR_open
#define SK_TEST_NR_OPEN		__NR_open
#else
#define SK_TEST_NR_OPEN		__NR_openat
#endif

/* Executed as a NOP, but not the NOP a site holds. */
#if defined(SK_TEST_X86)
#define SK_TEST_FOREIGN		{ 0x90, 0x90, 0x90, 0x90, 0x90 }	/* 5 x nop */
#elif defined(__aarch64__)
#define SK_TEST_FOREIGN		{ 0x3f, 0x20, 0x03, 0xd5 }	/* yield */
#elif defined(__riscv)
#define SK_TEST_FOREIGN		{ 0x13, 0x00, 0x10, 0x00 }	/* addi x0, x0, 1: a hint */
#elif defined(__thumb__)
#define SK_TEST_FOREIGN		{ 0xaf, 0xf3, 0x01, 0x80 }	/* yield.w */
#elif defined(__arm__)
#define SK_TEST_FOREIGN		{ 0x01, 0xf0, 0x20, 0xe3 }	/* yield */
#endif

#endif /* _SELFTESTS_ARCH_H */
