/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The functions whose cost `make bench` measures, one per kind of branch,
 * and the keys and flags they test.  See Documentation/benchmarks.rst.
 */
#ifndef _BENCH_BENCH_H
#define _BENCH_BENCH_H

#include <linux/jump_label.h>

/* The kernel's READ_ONCE(): one volatile load the compiler cannot elide. */
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))

/* bench_key_off is never enabled; bench_key_on is enabled before any call. */
DECLARE_STATIC_KEY_FALSE(bench_key_off);
DECLARE_STATIC_KEY_FALSE(bench_key_on);
extern int bench_flag_off, bench_flag_on;

/* Incremented by the body of every taken branch: a store cannot be if-converted. */
extern unsigned long bench_hits;

typedef unsigned long (*bench_fn)(unsigned long x);

/*
 * Each returns x + 1 and, when its branch is taken, increments bench_hits.
 * Measured functions are named bench_* and nothing else is, so that
 * callgrind --toggle-collect='bench_*' counts exactly their instructions.
 */
unsigned long bench_none(unsigned long x);
unsigned long bench_static_off(unsigned long x);
unsigned long bench_static_on(unsigned long x);
unsigned long bench_flag_off_fn(unsigned long x);
unsigned long bench_flag_on_fn(unsigned long x);
unsigned long bench_fallback_off(unsigned long x);
unsigned long bench_fallback_on(unsigned long x);

/*
 * A disabled pr_debug() site (bench/branch_dd.c): bench_pr_debug_off is
 * bench_pr_debug_none with one, bench_pr_debug_live is bench_none with
 * one whose argument lives across it.
 */
unsigned long bench_pr_debug_none(unsigned long x);
unsigned long bench_pr_debug_off(unsigned long x);
unsigned long bench_pr_debug_live(unsigned long x);

#endif /* _BENCH_BENCH_H */
