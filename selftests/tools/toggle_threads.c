// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A program for the debugger and valgrind tests: reader threads run the
 * sites of a key in a loop while the main thread toggles it.  It prints
 * one line, "toggles N errors E bad B", and exits 0 when every toggle
 * succeeded and every read agreed with the key's old or new state.
 * Not a TAP program: test_gdb.sh and test_valgrind.sh judge its output.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "site.h"

#define NR_READERS	2

DEFINE_STATIC_KEY_FALSE(tt_key);

SITE(tt_unlikely, static_branch_unlikely(&tt_key))
SITE(tt_likely, static_branch_likely(&tt_key))

static int stop;
static unsigned long bad;

/* Both sites of the key must agree, except across a toggle. */
static void *reader(void *unused)
{
	unsigned long n = 0;

	(void)unused;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int a = tt_unlikely(), b = tt_likely();

		if ((a | b) > 1)
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
		n++;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	int toggles = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t t[NR_READERS];
	int i, errors = 0;

	for (i = 0; i < NR_READERS; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (i = 0; i < toggles; i++) {
		if (i & 1)
			static_branch_disable(&tt_key);
		else
			static_branch_enable(&tt_key);
		if (statickeys_last_error())
			errors++;
		if (tt_unlikely() != !(i & 1) || tt_likely() != !(i & 1))
			errors++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(t[i], NULL);
	printf("toggles %d errors %d bad %lu\n", toggles, errors, bad);
	return errors || bad;
}
