/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * randomize_kstack_offset: move the stack of an entry handler by a random
 * multiple of 16 bytes below its saved register frame, once per entry.  The
 * kernel's names; Documentation/randomize-kstack.rst tells how to wire it.
 */
#ifndef _LINUX_RANDOMIZE_KSTACK_H
#define _LINUX_RANDOMIZE_KSTACK_H

#include <stdint.h>

#include <statickeys/config.h>
#include <statickeys/export.h>
#include <linux/kconfig.h>
#include <linux/jump_label.h>

SK_BEGIN_DECLS

#ifndef CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS
#define CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS	6
#endif

/*
 * Offsets are multiples of 16 (the stack alignment of both ABIs), so the
 * low four bits are never used: with 6 bits the mask is 0b1111110000 and
 * the offsets are 0, 16, ..., 1008, as in the kernel on 64-bit.
 */
#define KSTACK_OFFSET_MASK						\
	(((1U << CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS) - 1) << 4)
#define KSTACK_OFFSET_MAX(x)	((x) & KSTACK_OFFSET_MASK)

#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET

/*
 * The key is in the library's read-only-after-init page.  A PIE that
 * addressed it directly (x86-64 does, for an extern it assumes local) would
 * get a copy relocation: a writable copy in the executable that every user,
 * the library included, would then use.  A weak declaration is never
 * assumed local, so the key is reached through the GOT and stays sealed.
 */
DECLARE_STATIC_KEY_MAYBE(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT,
			 randomize_kstack_offset) SK_SYM(randomize_kstack_offset)
	__attribute__((weak));

/*
 * The per-thread state (the kernel keeps it per task: a per-CPU value can
 * be left stale by forcing a migration in the middle of a call).  @prng is
 * the generator's state and @offset its upper half, which is what the next
 * entry uses: one load at entry, one read-modify-write on exit.
 */
struct kstack_state {
	union {
		uint64_t prng;
		struct {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			uint32_t offset, __low;
#else
			uint32_t __low, offset;
#endif
		};
	};
};

/*
 * The calling thread's state, in thread-local storage of the default model:
 * a program's own code reaches it as cheaply as initial-exec would, and a
 * shared object that uses it can still be loaded late (dlopen()).  The
 * library's dispatcher gets a pointer to it in the entry's register frame
 * and uses the _state() forms below.
 */
extern __thread struct kstack_state kstack_state SK_SYM(kstack_state);

/**
 * kstack_prng_seed() - a seed for the calling thread's generator
 *
 * Entry code stores it in kstack_state.prng once per thread, before the
 * thread's first entry (kernel/entry.c does it when it maps the thread's
 * entry stack).  Unseeded, every thread's generator starts from 0 and only
 * the @rand of choose_random_kstack_offset() tells threads apart.
 *
 * Return: 64 bits from getrandom().
 */
uint64_t kstack_prng_seed(void) SK_SYM(kstack_prng_seed);

/*
 * One step of a 64-bit LCG whose multiplier and increment fit in 32-bit
 * immediates (one imul, one lea on x86-64), with @rand added in: the
 * offset bits 4-9 of the upper half are bits 36-41 of the state, whose
 * periods are 2^37 and more when @rand is 0.  Not a CRNG, no more than
 * the kernel's per-task prandom state: the state never leaves the thread.
 */
#define KSTACK_PRNG_MUL		0x5851f42dULL	/* = 1 mod 4 */
#define KSTACK_PRNG_INC		0x3c6ef35fULL	/* odd */

/*
 * randomize_kstack_offset_enabled() - the one test of the key, for an
 * entry that branches once and then uses the unconditional halves below
 * (kernel/entry.c does; the dispatcher then holds a single site).
 */
#define randomize_kstack_offset_enabled()				\
	static_branch_maybe(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT,	\
			    &randomize_kstack_offset)

/*
 * __add_random_kstack_offset() - at entry, after the register frame is
 * saved: grow the stack by the offset chosen on the previous exit.  The
 * allocation lives until the calling function returns, so everything the
 * entry calls runs below it.  The offset is already a multiple of 16, so
 * an allocation that asks for no extra alignment is a single `sub' from
 * the stack pointer; the empty asm claims to write the area, or the
 * compiler would drop an allocation nobody uses.  The mask keeps it small
 * (at most 16 KiB), which is why a variable-size allocation is acceptable
 * here and nowhere else.  Build the caller with -fno-stack-protector and
 * -fno-stack-clash-protection, or probes and canaries surround it.
 */
#ifdef __CHECKER__
#define __kstack_alloca(size)	__builtin_alloca(size)	/* sparse 0.6 */
#else
#define __kstack_alloca(size)	__builtin_alloca_with_align(size, 8)
#endif

#define __add_random_kstack_offset_state(ks) do {			\
	char *__ksp = (char *)__kstack_alloca(				\
			KSTACK_OFFSET_MAX((ks)->offset));		\
	__asm__ volatile("" : "=m"(*__ksp));				\
} while (0)
#define __add_random_kstack_offset()					\
	__add_random_kstack_offset_state(&kstack_state)

/*
 * __choose_random_kstack_offset() - on the way out: step the thread's
 * generator, which picks the offset of its next entry, so that nothing
 * observable during this entry tells it.  @rand is the architecture's
 * cheap extra source (the cycle counter), added into the state.
 */
#define __choose_random_kstack_offset_state(ks, rand) do {		\
	(ks)->prng = (ks)->prng * KSTACK_PRNG_MUL +			\
		     KSTACK_PRNG_INC + (uint64_t)(rand);		\
} while (0)
#define __choose_random_kstack_offset(rand)				\
	__choose_random_kstack_offset_state(&kstack_state, rand)

/* The kernel's two macros: each tests the key itself. */
#define add_random_kstack_offset() do {					\
	if (randomize_kstack_offset_enabled())				\
		__add_random_kstack_offset();				\
} while (0)

#define choose_random_kstack_offset(rand) do {				\
	if (randomize_kstack_offset_enabled())				\
		__choose_random_kstack_offset(rand);			\
} while (0)

#else /* !CONFIG_RANDOMIZE_KSTACK_OFFSET */

#define randomize_kstack_offset_enabled()	false
#define __add_random_kstack_offset()		do { } while (0)
#define __choose_random_kstack_offset(rand)	do { } while (0)
#define __add_random_kstack_offset_state(ks)	do { (void)(ks); } while (0)
#define __choose_random_kstack_offset_state(ks, rand) do { (void)(ks); } while (0)
#define add_random_kstack_offset()		do { } while (0)
#define choose_random_kstack_offset(rand)	do { } while (0)

#endif /* CONFIG_RANDOMIZE_KSTACK_OFFSET */

SK_END_DECLS

#endif /* _LINUX_RANDOMIZE_KSTACK_H */
