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
#define HAVE_JUMP_LABEL_BATCH		1
#define JUMP_LABEL_NOP_SIZE		4

/*
 * The key's address under -fPIC/-fPIE: gcc and clang both take "i" for
 * the address of a global and print it bare with %0.
 */
#define __SK_KEY_CONSTRAINT	"i"

/*
 * __sk_arch_branch(key, branch, jump) - emit one site; true when it jumps.
 * @key: constant address of a struct static_key, printed bare: the entry's
 *       key is an absolute address that the loader relocates, so a site may
 *       name a key of another shared object.
 * @branch: 1 for the likely forms, stored in bit 0 of the entry's key.
 * @jump: 1 to emit the JAL, 0 for the NOP: the site's state at build time.
 *
 * The site must be one aligned 32-bit word, so that one store replaces it
 * whole: .balign 4 first (with the C extension code is only 2-aligned),
 * no compressed form (norvc: the assembler would turn both into 2-byte
 * instructions), and no linker relaxation of the JAL (norelax).
 *
 * The site is local label 1 and its entry label 3, for the section
 * directives of <statickeys/sections.h> (--gc-sections, COMDAT, --icf=all).
 */
#define __sk_arch_branch(key, branch, jump) ({				\
	__label__ __sk_l_yes, __sk_l_out;				\
	bool __sk_ret;							\
	__asm__ goto(".balign 4\n\t"					\
		".option push\n\t"					\
		".option norvc\n\t"					\
		".option norelax\n"					\
		"1:\n\t"						\
		".if %c2\n\t"						\
		"jal zero, %l[__sk_l_yes]\n\t"				\
		".else\n\t"						\
		"nop\n\t"						\
		".endif\n\t"						\
		".option pop\n\t"					\
		__SK_JUMP_TABLE_PUSHSECTION				\
		".balign 8\n"						\
		"3:\t.long 1b - ., %l[__sk_l_yes] - .\n\t"		\
		".quad %0 + %1\n\t"					\
		__SK_JUMP_TABLE_POPSECTION				\
		: : __SK_KEY_CONSTRAINT (key), "i" (branch), "i" (jump)	\
		: : __sk_l_yes);					\
	__sk_ret = false;						\
	goto __sk_l_out;						\
__sk_l_yes:								\
	__sk_ret = true;						\
__sk_l_out:								\
	__sk_ret;							\
})

#endif /* _ASM_RISCV_JUMP_LABEL_H */
