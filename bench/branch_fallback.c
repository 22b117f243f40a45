// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The same fast path as compiled with CONFIG_JUMP_LABEL=n: the header's
 * portable fallback, one relaxed atomic load of the key's count per site.
 */

/*
 * The configuration defines CONFIG_JUMP_LABEL under #ifndef and its include
 * guard keeps it from coming back: undefining it here gives this translation
 * unit exactly the code a CONFIG_JUMP_LABEL=n build of the same source gets.
 * The keys are shared with branch_fns.c (the layout does not depend on it).
 */
#include <statickeys/config.h>
#undef CONFIG_JUMP_LABEL

#include "bench.h"

#ifdef CONFIG_JUMP_LABEL
#error "branch_fallback.c must be compiled without CONFIG_JUMP_LABEL"
#endif

__attribute__((noinline)) unsigned long bench_fallback_off(unsigned long x)
{
	if (static_branch_unlikely(&bench_key_off))
		bench_hits++;
	return x + 1;
}

__attribute__((noinline)) unsigned long bench_fallback_on(unsigned long x)
{
	if (static_branch_unlikely(&bench_key_on))
		bench_hits++;
	return x + 1;
}
