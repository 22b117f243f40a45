// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Sites that touch each other, of two keys interleaved: the patcher writes
 * a run of touching sites in one go, and must write only the sites of the
 * key being changed.  Every combination of the two keys is checked by
 * running the chain and by the bytes of every site, while other threads
 * run the chain all along, under each write method and merging off.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "arch.h"
#include "tap.h"

extern char __start___jump_table[] __attribute__((weak));
extern char __stop___jump_table[] __attribute__((weak));

DEFINE_STATIC_KEY_FALSE(ka);
DEFINE_STATIC_KEY_FALSE(kb);

#define NR_CHAIN	6
/* Which key each site of the chain belongs to: 0 = ka, 1 = kb. */
static const int owner[NR_CHAIN] = { 0, 1, 0, 0, 1, 1 };

/* The number of the first site taken, or 0. */
static __attribute__((noinline)) int chain(void)
{
	if (static_branch_unlikely(&ka)) goto h1;
	if (static_branch_unlikely(&kb)) goto h2;
	if (static_branch_unlikely(&ka)) goto h3;
	if (static_branch_unlikely(&ka)) goto h4;
	if (static_branch_unlikely(&kb)) goto h5;
	if (static_branch_unlikely(&kb)) goto h6;
	return 0;
h1:	return 1;
h2:	return 2;
h3:	return 3;
h4:	return 4;
h5:	return 5;
h6:	return 6;
}

static int (*volatile run_chain)(void) = chain;
static int stop;
static unsigned long bad_runs;

static void *runner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int r = run_chain();

		/* Only a site's own number, or 0, can come out. */
		if (r < 0 || r > NR_CHAIN)
			__atomic_fetch_add(&bad_runs, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int nr_sites;
static uintptr_t site_at[NR_CHAIN];

static void find_sites(void)
{
	struct jump_entry *e = (void *)__start___jump_table;

	for (; e && e < (struct jump_entry *)(void *)__stop___jump_table; e++) {
		uintptr_t code = (uintptr_t)&e->code + e->code;

		if (code >= (uintptr_t)chain && code < (uintptr_t)chain + 64 &&
		    nr_sites < NR_CHAIN)
			site_at[nr_sites++] = code;
	}
	/* In address order: the chain's order. */
	for (int i = 1; i < nr_sites; i++)
		for (int j = i; j > 0 && site_at[j - 1] > site_at[j]; j--) {
			uintptr_t t = site_at[j];

			site_at[j] = site_at[j - 1];
			site_at[j - 1] = t;
		}
}

static int adjacent(void)
{
	for (int i = 1; i < nr_sites; i++)
		if (site_at[i] != site_at[i - 1] + 5)
			return 0;
	return nr_sites == NR_CHAIN;
}

/* The bytes of every site match its key: JMP (e9) when on, the NOP when off. */
static int bytes_match(int a, int b)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	for (int i = 0; i < nr_sites; i++) {
		const uint8_t *p = (const uint8_t *)site_at[i];
		int on = owner[i] ? b : a;

		if (on ? p[0] != 0xe9 : memcmp(p, nop5, 5))
			return 0;
	}
	return 1;
}

static int expected(int a, int b)
{
	for (int i = 0; i < NR_CHAIN; i++)
		if (owner[i] ? b : a)
			return i + 1;
	return 0;
}

int main(void)
{
	static const int seq[][2] = { {1, 0}, {1, 1}, {0, 1}, {0, 0}, {0, 1},
				      {1, 1}, {1, 0}, {0, 0} };
	pthread_t t[2];
	int i, n = sizeof(seq) / sizeof(seq[0]), ok = 1;

	tap_plan(3);
#if !defined(SK_TEST_X86) || !defined(CONFIG_JUMP_LABEL)
	for (i = 0; i < 3; i++)
		tap_skip("x86 with CONFIG_JUMP_LABEL=y: 5-byte sites that touch",
			 "adjacent sites %d", i + 1);
	return tap_exit();
#endif
	find_sites();
	if (!adjacent()) {
		for (i = 0; i < 3; i++)
			tap_skip("the compiler did not lay the sites end to end",
				 "adjacent sites %d", i + 1);
		return tap_exit();
	}
	tap_ok(1, "%d sites of two keys end to end at %p", nr_sites,
	       (void *)site_at[0]);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, runner, NULL);
	for (int round = 0; round < 200; round++)
		for (i = 0; i < n; i++) {
			int a = seq[i][0], b = seq[i][1];

			if (a)
				static_branch_enable(&ka);
			else
				static_branch_disable(&ka);
			if (b)
				static_branch_enable(&kb);
			else
				static_branch_disable(&kb);
			if (statickeys_last_error() || run_chain() != expected(a, b) ||
			    !bytes_match(a, b)) {
				if (ok)
					tap_diag("ka=%d kb=%d: chain %d, want %d, error %d",
						 a, b, run_chain(), expected(a, b),
						 statickeys_last_error());
				ok = 0;
			}
		}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	tap_ok(ok, "every combination of the two keys, 200 rounds: each site holds its own key's instruction (%s)",
	       statickeys_text_poke_method());
	tap_ok(bad_runs == 0, "threads running the chain meanwhile: %lu impossible results",
	       bad_runs);
	return tap_exit();
}
