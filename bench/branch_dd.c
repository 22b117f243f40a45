// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The cost of a disabled pr_debug() site: the same function with and
 * without one.  The site comes first and the message needs nothing the
 * rest of the function keeps, so the compiler need not save a register
 * around the call on the cold path: what is left is the site's NOP.  The
 * third function keeps its argument across the site, as much real code
 * does, to show what that costs (Documentation/dynamic-debug.rst, "Cost").
 */
#include <linux/printk.h>
#include "bench.h"

unsigned long bench_dd_count;

__attribute__((noinline)) unsigned long bench_pr_debug_none(unsigned long x)
{
	(void)x;
	return bench_dd_count + 1;
}

__attribute__((noinline)) unsigned long bench_pr_debug_off(unsigned long x)
{
	pr_debug("bench: x = %lu\n", x);
	return bench_dd_count + 1;
}

__attribute__((noinline)) unsigned long bench_pr_debug_live(unsigned long x)
{
	pr_debug("bench: x = %lu\n", x);
	return x + 1;
}
