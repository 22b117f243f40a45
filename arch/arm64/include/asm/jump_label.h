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
#define HAVE_JUMP_LABEL_BATCH		1
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

/*
 * __sk_arch_branch(key, branch, jump) - emit one site; true when it jumps.
 * @key: constant address of a struct static_key, printed bare by %c with
 *       __SK_KEY_CONSTRAINT: the entry's key is an absolute address that the
 *       loader relocates, so a site may name a key of another shared object.
 * @branch: 1 for the likely forms, stored in bit 0 of the entry's key.
 * @jump: 1 to emit B, 0 for NOP: the site's state at build time.
 *
 * The site is local label 1 and its entry label 3: the section directives
 * of <statickeys/sections.h> tie one to the other (--icf=all), keep the
 * entry from --gc-sections and put it in the function's COMDAT group (C++).
 */
#define __sk_arch_branch(key, branch, jump) ({				\
	__label__ __sk_l_yes, __sk_l_out;				\
	bool __sk_ret;							\
	__asm__ goto("1:\n\t"						\
		".if %c2\n\t"						\
		"b %l[__sk_l_yes]\n\t"					\
		".else\n\t"						\
		"nop\n\t"						\
		".endif\n\t"						\
		__SK_JUMP_TABLE_PUSHSECTION				\
		".balign 8\n"						\
		"3:\t.long 1b - ., %l[__sk_l_yes] - .\n\t"		\
		".quad %c0 + %c1\n\t"					\
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

#endif /* _ASM_ARM64_JUMP_LABEL_H */
