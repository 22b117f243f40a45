/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Static keys: a branch that costs one NOP until it is switched, and a run-time
 * switch that rewrites the instruction.  Names and semantics are the Linux
 * kernel's (6.1), so kernel code compiles against this header unchanged.
 * Documentation/static-keys.rst is the guide; Documentation/api-parity.rst
 * lists every kernel name and whether it is provided.
 */
#ifndef _LINUX_JUMP_LABEL_H
#define _LINUX_JUMP_LABEL_H

#include <statickeys/config.h>
#include <statickeys/export.h>
#include <linux/kconfig.h>
#include <statickeys/sections.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <stdint.h>

/*
 * A key.  @enabled is the reference count (atomic; -1 while the first enable
 * is being patched in).  @type records the state the key was defined with
 * (JUMP_TYPE_TRUE or JUMP_TYPE_FALSE); the library never writes it.  The
 * layout is the same with and without CONFIG_JUMP_LABEL, so objects built in
 * either mode can share keys.
 */
struct static_key {
	int enabled;
	unsigned long type;
};

#define JUMP_TYPE_FALSE		0UL
#define JUMP_TYPE_TRUE		1UL
#define JUMP_TYPE_MASK		1UL

enum jump_label_type {
	JUMP_LABEL_NOP = 0,
	JUMP_LABEL_JMP,
};

/*
 * One site, as emitted by the arch asm into the section __jump_table of the
 * object that contains it.  @code and @target are relative to the field's own
 * address (no relocation needed); @key is an absolute pointer, filled in by
 * the dynamic loader, so that a site can name a key defined in another shared
 * object.  Bit 0 of @key is the branch polarity (1 for the "likely" forms).
 */
struct jump_entry {
	int32_t code;
	int32_t target;
	uintptr_t key;
};

#define JUMP_ENTRY_BRANCH	1UL

/*
 * The arch header is found through the include path (arch/$ARCH/include in
 * the tree, <prefix>/include/statickeys once installed), and says with
 * HAVE_ARCH_JUMP_LABEL that it gives what __sk_arch_branch() below needs:
 *
 *   __SK_ARCH_SITE       the site's instructions, labelled 1: the jump to
 *                        %l[__sk_l_yes] if operand 2 is 1, else the NOP
 *   __SK_KEY_CONSTRAINT  how the key's address (operand 0) is passed
 *   __SK_KEY_ASM         how it is printed, plus the branch bit (operand 1)
 *   __SK_ASM_PTR         the directive of a pointer, and
 *   __SK_ASM_ALIGN       its alignment, for the entry's key field
 */
#ifdef CONFIG_JUMP_LABEL
# if defined(__has_include)
#  if __has_include(<asm/jump_label.h>)
#   include <asm/jump_label.h>
#  endif
# else
#  include <asm/jump_label.h>
# endif
# ifndef HAVE_ARCH_JUMP_LABEL
#  error "CONFIG_JUMP_LABEL=y but there is no instruction patcher for this architecture (statickeys built it as ARCH=generic): build with CONFIG_JUMP_LABEL=n (the portable fallback, the default there), or add a patcher in arch/<arch>/ (Documentation/static-keys.rst, Architecture)"
# endif
#endif

#ifdef HAVE_ARCH_JUMP_LABEL
/*
 * __sk_arch_branch(key, branch, jump) - emit one site; true when it jumps.
 * @key: constant address of a struct static_key: the entry's key is an
 *       absolute address that the loader relocates, so a site may name a
 *       key of another shared object.
 * @branch: 1 for the likely forms, stored in bit 0 of the entry's key.
 * @jump: 1 to emit the jump, 0 for the NOP: the site's state at build time.
 *
 * The entry (struct jump_entry) is labelled 3: the directives of
 * <statickeys/sections.h> tie the site to it (--icf=all), keep it from
 * --gc-sections and put it in the function's COMDAT group (C++).
 *
 * A statement expression rather than an inline function, so that the
 * operands are constants even at -O0.
 */
#define __sk_arch_branch(key, branch, jump) ({				\
	__label__ __sk_l_yes, __sk_l_out;				\
	bool __sk_ret;							\
	__asm__ goto(__SK_ARCH_SITE					\
		__SK_JUMP_TABLE_PUSHSECTION				\
		".balign " __SK_ASM_ALIGN "\n"				\
		"3:\t.long 1b - ., %l[__sk_l_yes] - .\n\t"		\
		__SK_ASM_PTR " " __SK_KEY_ASM "\n\t"			\
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
#endif

#include <statickeys/object.h>

SK_BEGIN_DECLS

#define STATIC_KEY_INIT_TRUE	{ 1, JUMP_TYPE_TRUE }
#define STATIC_KEY_INIT_FALSE	{ 0, JUMP_TYPE_FALSE }
#define STATIC_KEY_INIT		STATIC_KEY_INIT_FALSE

struct static_key_true {
	struct static_key key;
};

struct static_key_false {
	struct static_key key;
};

#ifdef __cplusplus
#define STATIC_KEY_TRUE_INIT	{ STATIC_KEY_INIT_TRUE }
#define STATIC_KEY_FALSE_INIT	{ STATIC_KEY_INIT_FALSE }
#else
#define STATIC_KEY_TRUE_INIT	(struct static_key_true) { .key = STATIC_KEY_INIT_TRUE }
#define STATIC_KEY_FALSE_INIT	(struct static_key_false) { .key = STATIC_KEY_INIT_FALSE }
#endif

/*
 * Read-only-after-init keys live in their own section, __sk_ro_after_init;
 * the library makes it read-only when the defining object has been
 * initialised ("sealed"), see Documentation/static-keys.rst.  No linker
 * script is needed: every DEFINE_*_RO emits, next to the key, a page
 * alignment in subsection 1 of the key's section.  The assembler puts
 * subsection 1 after everything else in that section of the translation
 * unit and gives the section page alignment, so each translation unit adds
 * to the output section whole pages that hold only read-only keys, whatever
 * the linker (bfd, gold, lld) and wherever it places the section.  The
 * cost: one page per translation unit that defines read-only keys.
 *
 * __SK_RO_PAGE is the largest page size a kernel of the architecture may
 * run with (<statickeys/sections.h>: arm64's may use 4, 16 or 64 KiB).
 */
#define __SK_RO_SECTION		"__sk_ro_after_init"
#define __SK_RO_PAGE		SK_ARCH_RO_PAGE
#define __ro_after_init_key	__attribute__((section(__SK_RO_SECTION)))
#define __sk_ro_key_pages						\
	__asm__(".pushsection " __SK_RO_SECTION ", \"aw\", %progbits\n\t" \
		".subsection 1\n\t"					\
		".balign " __SK_RO_PAGE "\n\t"				\
		".popsection")

/*
 * The _RO definitions end in a top-level asm statement; the caller's ';'
 * ends it, and a storage class or attribute written before the macro
 * applies to the key, as in the kernel.
 */
#define DEFINE_STATIC_KEY_TRUE(name)	\
	struct static_key_true name = { STATIC_KEY_INIT_TRUE }
#define DEFINE_STATIC_KEY_TRUE_RO(name)	\
	struct static_key_true name __ro_after_init_key = { STATIC_KEY_INIT_TRUE }; \
	__sk_ro_key_pages
#define DECLARE_STATIC_KEY_TRUE(name)	\
	extern struct static_key_true name

#define DEFINE_STATIC_KEY_FALSE(name)	\
	struct static_key_false name = { STATIC_KEY_INIT_FALSE }
#define DEFINE_STATIC_KEY_FALSE_RO(name)	\
	struct static_key_false name __ro_after_init_key = { STATIC_KEY_INIT_FALSE }; \
	__sk_ro_key_pages
#define DECLARE_STATIC_KEY_FALSE(name)	\
	extern struct static_key_false name

/* Range designators are GNU C: not available to C++ code. */
#ifndef __cplusplus
#define DEFINE_STATIC_KEY_ARRAY_TRUE(name, count)		\
	struct static_key_true name[count] = {			\
		[0 ... (count) - 1] = { STATIC_KEY_INIT_TRUE },	\
	}
#endif
#define DEFINE_STATIC_KEY_ARRAY_FALSE(name, count)		\
	struct static_key_false name[count]

/*
 * The MAYBE layer: a Kconfig option picks both the initial state and the
 * code layout.  IS_ENABLED(cfg) is a literal 0 or 1, pasted onto a name.
 */
#define _DEFINE_STATIC_KEY_1(name)	DEFINE_STATIC_KEY_TRUE(name)
#define _DEFINE_STATIC_KEY_0(name)	DEFINE_STATIC_KEY_FALSE(name)
#define DEFINE_STATIC_KEY_MAYBE(cfg, name)			\
	__PASTE(_DEFINE_STATIC_KEY_, IS_ENABLED(cfg))(name)

#define _DEFINE_STATIC_KEY_RO_1(name)	DEFINE_STATIC_KEY_TRUE_RO(name)
#define _DEFINE_STATIC_KEY_RO_0(name)	DEFINE_STATIC_KEY_FALSE_RO(name)
#define DEFINE_STATIC_KEY_MAYBE_RO(cfg, name)			\
	__PASTE(_DEFINE_STATIC_KEY_RO_, IS_ENABLED(cfg))(name)

#define _DECLARE_STATIC_KEY_1(name)	DECLARE_STATIC_KEY_TRUE(name)
#define _DECLARE_STATIC_KEY_0(name)	DECLARE_STATIC_KEY_FALSE(name)
#define DECLARE_STATIC_KEY_MAYBE(cfg, name)			\
	__PASTE(_DECLARE_STATIC_KEY_, IS_ENABLED(cfg))(name)

/*
 * __sk_key_is_true(x) - 1 for a struct static_key_true *, 0 for a struct
 * static_key_false *, and a compile-time error for anything else: the
 * kernel's ____wrong_branch_error(), caught by the compiler instead of the
 * linker.
 */
#ifdef __cplusplus
extern "C++" {
template <typename T> struct __sk_key_kind;
template <> struct __sk_key_kind<struct static_key_true> { enum { value = 1 }; };
template <> struct __sk_key_kind<struct static_key_false> { enum { value = 0 }; };
template <> struct __sk_key_kind<const struct static_key_true> { enum { value = 1 }; };
template <> struct __sk_key_kind<const struct static_key_false> { enum { value = 0 }; };
}
#define __sk_key_is_true(x)	(__sk_key_kind<__typeof__(*(x))>::value)
/* Any of the three key types, as a struct static_key *; others do not build. */
extern "C++" {
static inline struct static_key *__sk_any_key(struct static_key *k) { return k; }
static inline struct static_key *__sk_any_key(struct static_key_true *k) { return &k->key; }
static inline struct static_key *__sk_any_key(struct static_key_false *k) { return &k->key; }
}
#else
#define __sk_key_is_true(x)					\
	_Generic((x),						\
		 struct static_key_true *: 1,			\
		 const struct static_key_true *: 1,		\
		 struct static_key_false *: 0,			\
		 const struct static_key_false *: 0)
/* Any of the three key types, as a struct static_key *; others do not build. */
#define __sk_any_key(x)						\
	((struct static_key *)_Generic((x),			\
		 struct static_key *: (x),			\
		 struct static_key_true *: (x),			\
		 struct static_key_false *: (x)))
#endif

#define __sk_likely(x)		__builtin_expect(!!(x), 1)
#define __sk_unlikely(x)	__builtin_expect(!!(x), 0)

/* The key's reference count; > 0 means enabled. */
static inline int static_key_count(struct static_key *key)
{
	return __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
}

#define static_key_enabled(x)	(static_key_count(__sk_any_key(x)) > 0)
#define jump_label_enabled	static_key_enabled

#ifdef CONFIG_JUMP_LABEL

/*
 * arch_static_branch(key, branch) emits a NOP, arch_static_branch_jump() a
 * jump; both return true when the site currently jumps.  The site's initial
 * instruction must agree with the key's initial state, which is what the
 * branch macros below arrange: jump = (key defined true) XOR branch.
 */
#define arch_static_branch(key, branch)		__sk_arch_branch(key, branch, 0)
#define arch_static_branch_jump(key, branch)	__sk_arch_branch(key, branch, 1)

#define static_branch_likely(x)						\
	__sk_likely(!__sk_arch_branch(&(x)->key, 1, __sk_key_is_true(x) ^ 1))
#define static_branch_unlikely(x)					\
	__sk_unlikely(__sk_arch_branch(&(x)->key, 0, __sk_key_is_true(x)))

/* The old API: the key must have been initialised to match (TRUE/FALSE). */
#define static_key_false(key)	__sk_unlikely(arch_static_branch(key, 0))
#define static_key_true(key)	__sk_likely(!arch_static_branch(key, 1))

#else /* !CONFIG_JUMP_LABEL: the portable fallback, one atomic load a site */

#define static_branch_likely(x)						\
	((void)__sk_key_is_true(x), __sk_likely(static_key_enabled(&(x)->key)))
#define static_branch_unlikely(x)					\
	((void)__sk_key_is_true(x), __sk_unlikely(static_key_enabled(&(x)->key)))

#define static_key_false(key)	__sk_unlikely(static_key_count(key) > 0)
#define static_key_true(key)	__sk_likely(static_key_count(key) > 0)

#endif /* CONFIG_JUMP_LABEL */

/* Lay the CONFIG-expected path inline, as in patch 1/5 of the seed series. */
#define static_branch_maybe(config, x)					\
	(IS_ENABLED(config) ? static_branch_likely(x)			\
			    : static_branch_unlikely(x))

/*
 * The slow path.  Every function here may sleep (takes the jump-label lock)
 * and patches code in every loaded object that has sites of the key.
 */
extern bool static_key_initialized SK_SYM(static_key_initialized);

void jump_label_init(void) SK_SYM(jump_label_init);
void jump_label_lock(void) SK_SYM(jump_label_lock);
void jump_label_unlock(void) SK_SYM(jump_label_unlock);
int jump_label_text_reserved(void *start, void *end) SK_SYM(jump_label_text_reserved);
enum jump_label_type jump_label_init_type(struct jump_entry *entry) SK_SYM(jump_label_init_type);

bool static_key_slow_inc(struct static_key *key) SK_SYM(static_key_slow_inc);
bool static_key_fast_inc_not_disabled(struct static_key *key) SK_SYM(static_key_fast_inc_not_disabled);
void static_key_slow_dec(struct static_key *key) SK_SYM(static_key_slow_dec);
void static_key_enable(struct static_key *key) SK_SYM(static_key_enable);
void static_key_disable(struct static_key *key) SK_SYM(static_key_disable);

/*
 * The _cpuslocked spellings, as in the kernel: the caller holds
 * cpus_read_lock() (<linux/cpu.h>) and the function takes jump_label_lock()
 * itself.  Every change is refused (EDEADLK) inside the caller's own
 * jump_label_lock() section, where the kernel's would deadlock.
 */
bool static_key_slow_inc_cpuslocked(struct static_key *key) SK_SYM(static_key_slow_inc_cpuslocked);
void static_key_slow_dec_cpuslocked(struct static_key *key) SK_SYM(static_key_slow_dec_cpuslocked);
void static_key_enable_cpuslocked(struct static_key *key) SK_SYM(static_key_enable_cpuslocked);
void static_key_disable_cpuslocked(struct static_key *key) SK_SYM(static_key_disable_cpuslocked);

#define static_branch_inc(x)		static_key_slow_inc(&(x)->key)
#define static_branch_dec(x)		static_key_slow_dec(&(x)->key)
#define static_branch_inc_cpuslocked(x)	static_key_slow_inc_cpuslocked(&(x)->key)
#define static_branch_dec_cpuslocked(x)	static_key_slow_dec_cpuslocked(&(x)->key)

#define static_branch_enable(x)			static_key_enable(&(x)->key)
#define static_branch_disable(x)		static_key_disable(&(x)->key)
#define static_branch_enable_cpuslocked(x)	static_key_enable_cpuslocked(&(x)->key)
#define static_branch_disable_cpuslocked(x)	static_key_disable_cpuslocked(&(x)->key)

#define STATIC_KEY_CHECK_USE(key)	((void)(key))

SK_END_DECLS

#endif /* _LINUX_JUMP_LABEL_H */
