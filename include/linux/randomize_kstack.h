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
 * be left stale by forcing a migration in the middle of a call).  @offset
 * is what the next entry uses; @prng is the PRNG's state, 0 until the
 * thread's first exit seeds it from getrandom().
 */
struct kstack_state {
	uint32_t offset;
	uint32_t __pad;
	uint64_t prng;
};

extern __thread struct kstack_state kstack_state SK_SYM(kstack_state)
	__attribute__((tls_model("initial-exec")));

/**
 * kstack_prng_seed() - a non-zero seed for the calling thread's PRNG
 *
 * Return: 64 bits from getrandom(), never 0.
 */
uint64_t kstack_prng_seed(void) SK_SYM(kstack_prng_seed);

/*
 * One step of a 64-bit LCG (Knuth's MMIX constants): three instructions.
 * Its high half is the well-mixed part and is what we return; bits 4-9 of
 * the output are bits 36-41 of the state, whose periods are 2^37 and more.
 * Not a CRNG, no more than the kernel's per-task prandom state: the state
 * never leaves the thread, and the cycle counter is folded in on top.
 */
static inline uint32_t kstack_prng_next(struct kstack_state *s)
{
	uint64_t x = s->prng;

	if (__builtin_expect(x == 0, 0))
		x = kstack_prng_seed();
	x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	s->prng = x;
	return (uint32_t)(x >> 32);
}

/*
 * add_random_kstack_offset() - at entry, after the register frame is saved:
 * grow the stack by the offset chosen on the previous exit.  The alloca
 * lives until the calling function returns, so everything the entry calls
 * runs below it.  The empty asm claims to write the area, or the compiler
 * would drop an allocation nobody uses.  The mask keeps it small (at most
 * 16 KiB), which is why a variable-size allocation is acceptable here and
 * nowhere else.  Build the caller with -fno-stack-protector and
 * -fno-stack-clash-protection, or probes and canaries surround it.
 */
#define add_random_kstack_offset() do {					\
	if (static_branch_maybe(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT,	\
				&randomize_kstack_offset)) {		\
		uint32_t __kso = kstack_state.offset;			\
		char *__ksp = (char *)__builtin_alloca(			\
				KSTACK_OFFSET_MAX(__kso));		\
		__asm__ volatile("" : "=m"(*__ksp));			\
	}								\
} while (0)

/*
 * choose_random_kstack_offset() - on the way out: pick the offset of the
 * thread's next entry, so that nothing observable during this entry tells
 * it.  @rand is the architecture's cheap extra source (the cycle counter),
 * folded into the PRNG's output.
 */
#define choose_random_kstack_offset(rand) do {				\
	if (static_branch_maybe(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT,	\
				&randomize_kstack_offset)) {		\
		struct kstack_state *__kss = &kstack_state;		\
		__kss->offset = kstack_prng_next(__kss) ^ (uint32_t)(rand); \
	}								\
} while (0)

#else /* !CONFIG_RANDOMIZE_KSTACK_OFFSET */

#define add_random_kstack_offset()		do { } while (0)
#define choose_random_kstack_offset(rand)	do { } while (0)

#endif /* CONFIG_RANDOMIZE_KSTACK_OFFSET */

SK_END_DECLS

#endif /* _LINUX_RANDOMIZE_KSTACK_H */
