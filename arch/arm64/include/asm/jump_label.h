/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * arm64 static-key sites: one NOP or one B, and the __jump_table entry that
 * describes it.  Included by <linux/jump_label.h>.
 */
#ifndef _ASM_ARM64_JUMP_LABEL_H
#define _ASM_ARM64_JUMP_LABEL_H

#ifndef __aarch64__
#error "arch/arm64/include/asm/jump_label.h is for arm64 targets: check ARCH= and the include path"
#endif

#include <statickeys/sections.h>

#define HAVE_ARCH_JUMP_LABEL		1
#define JUMP_LABEL_NOP_SIZE		4

/*
 * The constraint for "a link-time constant address" under -fPIC/-fPIE:
 *
 *   compiler  constraint  rejects
 *   gcc       "S"         "i" (impossible constraint)
 *   clang 14  "i"         "S" with an offset (&keys[2]: invalid operand)
 */
#ifdef __clang__
#define __SK_KEY_CONSTRAINT	"i"
#else
#define __SK_KEY_CONSTRAINT	"S"
#endif

/* The entry's key: a 64-bit pointer, printed bare by %c. */
#define __SK_ASM_PTR		".quad"
#define __SK_ASM_ALIGN		"8"
#define __SK_KEY_ASM		"%c0 + %c1"

/* The site: B to the target or NOP, chosen by operand 2. */
#define __SK_ARCH_SITE							\
	"1:\n\t"							\
	".if %c2\n\t"							\
	"b %l[__sk_l_yes]\n\t"						\
	".else\n\t"							\
	"nop\n\t"							\
	".endif\n\t"

#endif /* _ASM_ARM64_JUMP_LABEL_H */
