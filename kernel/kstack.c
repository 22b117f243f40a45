// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * randomize_kstack_offset: the key, its boot parameter and the per-thread
 * offset state that the entry code in arch/<arch>/entry uses.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/randomize_kstack.h>

#include "entry.h"

#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET

/*
 * Read-only after init: the command line is applied to the library's own
 * early_param()s when it registers, then the key is sealed.
 */
SK_EXPORT DEFINE_STATIC_KEY_MAYBE_RO(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT,
				     randomize_kstack_offset);

SK_EXPORT __thread struct kstack_state kstack_state;

/* A malformed value leaves the default: the parser prints the one line. */
static int __init early_randomize_kstack_offset(char *buf)
{
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	if (on)
		static_branch_enable(&randomize_kstack_offset);
	else
		static_branch_disable(&randomize_kstack_offset);
	return 0;
}
early_param("randomize_kstack_offset", early_randomize_kstack_offset);

/*
 * The seed may be drawn inside an entry, where a trapped system call would
 * re-enter: both go through the trusted gate.  Without getrandom() (old
 * kernel, sandbox) the clock and the addresses have to do.
 */
static uint64_t kstack_weak_seed(void)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32);
	x ^= (uint64_t)(uintptr_t)&ts * 0x9e3779b97f4a7c15ULL;
	x ^= (uint64_t)sk_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0) << 17;
	return x;
}

/**
 * kstack_prng_seed() - a seed for the calling thread's generator
 *
 * Called once per thread, before its first entry (kernel/entry.c, when it
 * maps the thread's entry stack).  Never blocks: the entropy pool is
 * initialised long before a process runs.
 *
 * Return: 64 bits from getrandom(), never 0.
 */
SK_EXPORT uint64_t kstack_prng_seed(void)
{
	uint64_t x = 0;

	if (sk_raw_syscall(SYS_getrandom, &x, sizeof(x), GRND_NONBLOCK,
			   0, 0, 0) != sizeof(x))
		x = kstack_weak_seed();
	return x ? x : 0x2545f4914f6cdd1dULL;
}

#endif /* CONFIG_RANDOMIZE_KSTACK_OFFSET */
