/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * x86 static-key sites (x86-64, and i386 with ARCH=i386): a 5-byte NOP or a
 * 5-byte JMP rel32, and the __jump_table entry that describes it.  Included
 * by <linux/jump_label.h>.
 */
#ifndef _ASM_X86_JUMP_LABEL_H
#define _ASM_X86_JUMP_LABEL_H

#if !defined(__x86_64__) && !defined(__i386__)
#error "arch/x86/include/asm/jump_label.h is for x86 targets: check ARCH= and the include path"
#endif

/*
 * The entry's key is a pointer: 8 bytes on x86-64, 4 on i386, where the
 * entry is 12 bytes, 4-aligned (struct jump_entry).
 */
#ifdef __x86_64__
#define __SK_ASM_PTR		".quad"
#define __SK_ASM_ALIGN		"8"
#else
#define __SK_ASM_PTR		".long"
#define __SK_ASM_ALIGN		"4"
#endif

#include <statickeys/sections.h>

#define HAVE_ARCH_JUMP_LABEL		1
#define HAVE_ARCH_JUMP_LABEL_STUCK	1	/* failed batches stay emulated */
#define JUMP_LABEL_NOP_SIZE		5

/* The two instructions a site can hold (the JMP's displacement varies). */
#define ARCH_JUMP_LABEL_NOP5		0x0f, 0x1f, 0x44, 0x00, 0x00
#define ARCH_JUMP_LABEL_JMP32_OPCODE	0xe9

/*
 * How the key's address reaches the assembler.  Under -fPIC/-fPIE neither
 * compiler takes "i" for the address of a global, and each has its own
 * spelling of "a link-time constant, printed bare":
 *
 *   compiler  constraint  operand  rejects
 *   gcc       "X"         %p       "s" (impossible constraint under -fPIC)
 *   clang     "s"         %c       "X" with %p (invalid operand)
 */
#ifdef __clang__
#define __SK_KEY_CONSTRAINT	"s"
#define __SK_KEY_ASM		"%c0 + %c1"
#else
#define __SK_KEY_CONSTRAINT	"X"
#define __SK_KEY_ASM		"%p0 + %c1"
#endif

/*
 * The site: a 5-byte JMP rel32 to the target or the 5-byte NOP, chosen by
 * operand 2 (<linux/jump_label.h> has the rest of __sk_arch_branch()).
 * The displacement is spelled out so that the assembler never shortens the
 * jump to two bytes: every site is as long as the NOP that replaces it.
 */
#define __SK_ARCH_SITE							\
	"1:\n\t"							\
	".if %c2\n\t"							\
	".byte 0xe9\n\t"						\
	".long %l[__sk_l_yes] - 2f\n"					\
	"2:\n\t"							\
	".else\n\t"							\
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"			\
	".endif\n\t"

#endif /* _ASM_X86_JUMP_LABEL_H */
