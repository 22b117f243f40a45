/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * 32-bit Arm (ARMv7, armhf) static-key sites, in ARM or Thumb-2 code: one
 * 4-byte NOP or one 4-byte B, and the __jump_table entry that describes it.
 * Included by <linux/jump_label.h>.
 */
#ifndef _ASM_ARM_JUMP_LABEL_H
#define _ASM_ARM_JUMP_LABEL_H

#if !defined(__arm__) || (defined(__thumb__) && !defined(__thumb2__))
#error "arch/arm/include/asm/jump_label.h is for ARMv7 targets (ARM or Thumb-2 code): check ARCH= and the include path"
#endif

#include <statickeys/sections.h>

#define HAVE_ARCH_JUMP_LABEL		1
#define HAVE_JUMP_LABEL_BATCH		1
#define JUMP_LABEL_NOP_SIZE		4

/*
 * How the key's address reaches the assembler under -fPIC/-fPIE:
 *
 *   compiler  constraint  rejects
 *   gcc       "X"         "i" (does not match constraints)
 *   clang 14  "i"         "X" (invalid operand)
 */
#ifdef __clang__
#define __SK_KEY_CONSTRAINT	"i"
#else
#define __SK_KEY_CONSTRAINT	"X"
#endif

/*
 * The two forms of a site: nop.w and b.w in Thumb-2 code (32-bit, on a
 * 4-byte boundary so that one aligned store replaces both halfwords at
 * once), nop and b in ARM code.  The library tells the two instruction
 * sets apart by the bytes a site holds (arch/arm/kernel/jump_label.c).
 */
#ifdef __thumb2__
#define __SK_SITE_NOP		"nop.w"
#define __SK_SITE_JUMP		"b.w"
#else
#define __SK_SITE_NOP		"nop"
#define __SK_SITE_JUMP		"b"
#endif

/*
 * __sk_arch_branch(key, branch, jump) - emit one site; true when it jumps.
 * @key: constant address of a struct static_key, printed bare by %c: the
 *       entry's key is an absolute address that the loader relocates, so
 *       a site may name a key of another shared object.
 * @branch: 1 for the likely forms, stored in bit 0 of the entry's key.
 * @jump: 1 to emit the B, 0 for the NOP: the site's state at build time.
 *
 * The site is local label 1 and its entry label 3, for the section
 * directives of <statickeys/sections.h> (--gc-sections, COMDAT, --icf=all).
 */
#define __sk_arch_branch(key, branch, jump) ({				\
	__label__ __sk_l_yes, __sk_l_out;				\
	bool __sk_ret;							\
	__asm__ goto(".balign 4\n"					\
		"1:\n\t"						\
		".if %c2\n\t"						\
		__SK_SITE_JUMP " %l[__sk_l_yes]\n\t"			\
		".else\n\t"						\
		__SK_SITE_NOP "\n\t"					\
		".endif\n\t"						\
		__SK_JUMP_TABLE_PUSHSECTION				\
		".balign 4\n"						\
		"3:\t.long 1b - ., %l[__sk_l_yes] - .\n\t"		\
		".long %c0 + %c1\n\t"					\
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

#endif /* _ASM_ARM_JUMP_LABEL_H */
