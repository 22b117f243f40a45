// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A program built with -fsanitize=thread against the library as installed
 * (not instrumented): ThreadSanitizer starts a thread of its own with every
 * signal blocked once the program has a thread.  A worker that takes
 * SIGTRAP runs a site while the key changes 20 times; prints how many
 * changes went through and the last error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

DEFINE_STATIC_KEY_FALSE(k);

static __attribute__((noinline)) int site(void)
{
	return static_branch_unlikely(&k) ? 1 : 0;
}

static int (*volatile run)(void) = site;
static int stop;

static void *worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		run();
	return NULL;
}

int main(void)
{
	int i, done = 0, err = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	for (i = 0; i < 20; i++) {
		static_branch_enable(&k);
		err = statickeys_last_error() ? statickeys_last_error() : err;
		done += run() == 1;
		static_branch_disable(&k);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("%d of 20 changes, last error %d (%s)\n", done, err, err ? strerror(err) : "none");
	return done == 20 ? 0 : 1;
}
