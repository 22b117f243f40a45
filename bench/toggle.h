/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * One generated set of sites for the toggle benchmark: a key and the
 * functions that hold its sites (bench/gen-sites writes them).
 */
#ifndef _BENCH_TOGGLE_H
#define _BENCH_TOGGLE_H

#include <linux/jump_label.h>

struct bench_sites {
	struct static_key_false *key;
	unsigned long nr;			/* sites */
	unsigned long nr_fns;
	unsigned long (*const *fns)(void);	/* sum of i + 1 over taken sites i */
};

/*
 * Each generated file puts a pointer to its set into the section
 * bench_sets: the benchmark finds every set linked in without a list.
 */
#define BENCH_SITES_SET(set)						\
	static const struct bench_sites *__bench_set_##set		\
	__attribute__((used, section("bench_sets"))) = &(set)

#endif /* _BENCH_TOGGLE_H */
