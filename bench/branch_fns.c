// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The measured fast paths, built as configured (a patched NOP/JMP when
 * CONFIG_JUMP_LABEL=y), noinline and apart from their callers.
 */
#include "bench.h"

DEFINE_STATIC_KEY_FALSE(bench_key_off);
DEFINE_STATIC_KEY_FALSE(bench_key_on);
int bench_flag_off;
int bench_flag_on;
unsigned long bench_hits;

__attribute__((noinline)) unsigned long bench_none(unsigned long x)
{
	return x + 1;
}

__attribute__((noinline)) unsigned long bench_static_off(unsigned long x)
{
	if (static_branch_unlikely(&bench_key_off))
		bench_hits++;
	return x + 1;
}

__attribute__((noinline)) unsigned long bench_static_on(unsigned long x)
{
	if (static_branch_unlikely(&bench_key_on))
		bench_hits++;
	return x + 1;
}

__attribute__((noinline)) unsigned long bench_flag_off_fn(unsigned long x)
{
	if (READ_ONCE(bench_flag_off))
		bench_hits++;
	return x + 1;
}

__attribute__((noinline)) unsigned long bench_flag_on_fn(unsigned long x)
{
	if (READ_ONCE(bench_flag_on))
		bench_hits++;
	return x + 1;
}
