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

/* The entry's key: a 32-bit pointer, printed bare by %c. */
#define __SK_ASM_PTR		".long"
#define __SK_ASM_ALIGN		"4"
#define __SK_KEY_ASM		"%c0 + %c1"

/* The site, on a 4-byte boundary: B to the target or NOP, by operand 2. */
#define __SK_ARCH_SITE							\
	".balign 4\n"							\
	"1:\n\t"							\
	".if %c2\n\t"							\
	__SK_SITE_JUMP " %l[__sk_l_yes]\n\t"				\
	".else\n\t"							\
	__SK_SITE_NOP "\n\t"						\
	".endif\n\t"

#endif /* _ASM_ARM_JUMP_LABEL_H */
