/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * riscv64 static-key sites: one 4-byte NOP or one JAL x0 (a plain jump),
 * and the __jump_table entry that describes it.  Included by
 * <linux/jump_label.h>.
 */
#ifndef _ASM_RISCV_JUMP_LABEL_H
#define _ASM_RISCV_JUMP_LABEL_H

#if !defined(__riscv) || __riscv_xlen != 64
#error "arch/riscv/include/asm/jump_label.h is for riscv64 targets: check ARCH= and the include path"
#endif

#include <statickeys/sections.h>

#define HAVE_ARCH_JUMP_LABEL		1
#define JUMP_LABEL_NOP_SIZE		4

/*
 * The key's address under -fPIC/-fPIE: gcc and clang both take "i" for
 * the address of a global and print it bare with %0 (__SK_KEY_ASM).
 */
#define __SK_KEY_CONSTRAINT	"i"

/* The entry's key: a 64-bit pointer. */
#define __SK_ASM_PTR		".quad"
#define __SK_ASM_ALIGN		"8"
#define __SK_KEY_ASM		"%0 + %1"

/*
 * The site: JAL x0 to the target or NOP, chosen by operand 2.  It must be
 * one aligned 32-bit word, so that one store replaces it whole: .balign 4
 * first (with the C extension code is only 2-aligned), no compressed form
 * (norvc: the assembler would turn both into 2-byte instructions), and no
 * linker relaxation of the JAL (norelax).
 */
#define __SK_ARCH_SITE							\
	".balign 4\n\t"						\
	".option push\n\t"						\
	".option norvc\n\t"						\
	".option norelax\n"						\
	"1:\n\t"							\
	".if %c2\n\t"							\
	"jal zero, %l[__sk_l_yes]\n\t"					\
	".else\n\t"							\
	"nop\n\t"							\
	".endif\n\t"							\
	".option pop\n\t"

#endif /* _ASM_RISCV_JUMP_LABEL_H */
