/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * How the tables that only the library reads (__jump_table, __sk_setup)
 * survive every linker mode.  One place for every architecture's header:
 * Documentation/tools.rst, "Linker modes", says what each flag is for.
 */
#ifndef _STATICKEYS_SECTIONS_H
#define _STATICKEYS_SECTIONS_H

/*
 * What the architecture's code layout asks, from its <asm/sk_arch.h>;
 * an architecture without one (any built as ARCH=generic) takes these:
 * SK_ARCH_RO_PAGE, the largest page size its kernels may run with;
 * SK_ARCH_REL, set where relocations keep their addends in the code
 * (REL, not RELA: i386, arm).
 */
#if defined(__has_include)
# if __has_include(<asm/sk_arch.h>)
#  include <asm/sk_arch.h>
# endif
#endif
#ifndef SK_ARCH_RO_PAGE
#define SK_ARCH_RO_PAGE		"4096"
#endif

/*
 * Nothing in an object refers to its tables but its constructor, through
 * the __start_/__stop_ symbols of the section, and lld 13 and later do not
 * count such references with --gc-sections (-z start-stop-gc): the tables
 * would be discarded, the keys would still count, and no code would ever
 * change.  SHF_GNU_RETAIN ("R", GNU as 2.36, LLVM 13; the retain attribute,
 * GCC 11, clang 13) makes each table a root of the garbage collection.
 * Where that cannot be said the build stops: clang before 13 (its
 * assembler rejects "R") here, a compiler without the attribute in
 * <linux/init.h>, an older GNU as on the "R" of the arch headers ("unknown
 * section attribute").  Never a program whose key changes do nothing.
 */
#if defined(CONFIG_JUMP_LABEL) && defined(__clang__) && __clang_major__ < 13
#error "statickeys needs clang 13 or later for CONFIG_JUMP_LABEL: older ones cannot keep __jump_table from the linker's --gc-sections (SHF_GNU_RETAIN); configure CONFIG_JUMP_LABEL=n for the portable fallback"
#endif

/* On a C object in a table section: kept by --gc-sections, as above. */
#if defined(__has_attribute)
# if __has_attribute(retain)
#  define __sk_retain		__attribute__((used, retain))
# endif
#endif
#ifndef __sk_retain
# define __SK_NO_RETAIN		1
# define __sk_retain		__attribute__((used))
#endif

/*
 * __SK_JUMP_TABLE_PUSHSECTION - the directive that opens a site's entry in
 * an arch header's asm goto (where '%' would name an operand: no type).
 *
 *   flag  ELF            why
 *   a     SHF_ALLOC      the library reads the table at run time
 *   w     SHF_WRITE      the key pointer is relocated, and sorted in place
 *   R     SHF_GNU_RETAIN kept by --gc-sections (see above)
 *   ?     the group of the section being left (the function's): a C++
 *         inline function, template or in-class method emitted in several
 *         translation units is a COMDAT group, and the linker keeps one
 *         copy; the entries of the copies it drops go with them instead of
 *         pointing into discarded code.  Outside a group "?" means nothing.
 */
#define __SK_JUMP_TABLE_PUSHSECTION	".pushsection __jump_table, \"awR?\"\n\t"

/*
 * __SK_JUMP_TABLE_POPSECTION - the directive that closes the entry, which
 * the arch header labels 3 (the site itself is 1), and ties the site's code
 * to its entry, for identical code folding (gold and lld --icf=all).  Two
 * functions that differ only in the key they test have the same bytes, and
 * their entries are in __jump_table, not in the function: the linker would
 * fold them into one site claimed by two keys.  A relocation that does
 * nothing (R_*_NONE: nothing is written and no dynamic relocation made),
 * at the site and naming its own entry, makes the code of every site differ
 * in the linker's eyes.  It names the entry, not the key: the key may be
 * another shared object's, which GNU ld cannot take in such a relocation
 * ("unresolvable R_X86_64_NONE relocation").  The library refuses a table
 * in which one site still has two keys (kernel/object.c,
 * check_shared_sites()).
 */
#ifdef SK_ARCH_REL
/*
 * i386 and arm keep addends in the code (REL, not RELA): a relocation
 * against the entry's label would become one against the section symbol of
 * __jump_table, with its addend in the site's own bytes, the same NOP for
 * every site, and the linker would fold again.  A named local symbol per
 * entry (%= is unique to each asm in the translation unit) keeps the
 * relocations apart.
 */
#define __SK_JUMP_TABLE_POPSECTION	\
	".popsection\n\t.reloc 1b, BFD_RELOC_NONE, __sk_entry_%=\n\t"	\
	".set __sk_entry_%=, 3b\n\t"
#else
#define __SK_JUMP_TABLE_POPSECTION	\
	".popsection\n\t.reloc 1b, BFD_RELOC_NONE, 3b\n\t"
#endif

#endif /* _STATICKEYS_SECTIONS_H */
