// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Two copies of the library in one process: two shared objects that each
 * link libstatickeys.a privately, in a program that does not use the
 * library.  (Linked, not dlopen()ed: the library's initial-exec TLS does
 * not load late yet, issue 26 item 3.)  Each copy installs its SIGTRAP
 * handler; each must recognise the other's (neither stacks it nor warns
 * about it), and a trap at one copy's site while the other's handler is
 * installed must still reach the right copy.  Both toggled alternately, alone and with a thread running
 * both sites.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statickeys/config.h>

#include "hard.h"

#define ROUNDS	100

struct twin {
	int (*set)(int on);
	int (*site)(void);
};

/* libhard_twin_a.so and libhard_twin_b.so: twin_plugin.c twice. */
int twin_a_set(int on);
int twin_a_site(void);
int twin_b_set(int on);
int twin_b_site(void);
int twin_a_set_trapping(int on, unsigned long *traps);
int twin_b_set_trapping(int on, unsigned long *traps);

static const struct twin twins[2] = {
	{ twin_a_set, twin_a_site }, { twin_b_set, twin_b_site },
};
static int stop;

static void *runner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		twins[0].site();
		twins[1].site();
	}
	return NULL;
}

/*
 * Exit status: bit 0 a change failed or did not flip its site, bit 1
 * something was said on stderr, 8 the set-up failed.
 */
static int toggle_twins(void *with_thread)
{
	char path[] = "/tmp/test_twins.XXXXXX", buf[4096];
	int fd = mkstemp(path), i, k, bad = 0;
	pthread_t t;
	ssize_t n;

	if (fd < 0)
		return 8;
	unlink(path);
	dup2(fd, 2);
	if (with_thread && pthread_create(&t, NULL, runner, NULL))
		return 8;
	for (i = 0; i < ROUNDS; i++)
		for (k = 0; k < 2; k++) {
			int on = !(i & 1), err = twins[k].set(on);

			if (err || twins[k].site() != on) {
				tap_diag("round %d, plugin %d: error %d, site %d",
					 i, k, err, twins[k].site());
				bad |= 1;
			}
		}
	if (with_thread) {
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(t, NULL);
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = 0;
		tap_diag("stderr: %s", buf);
		bad |= 2;
	}
	return bad;
}

/*
 * Each copy's site run in the middle of its own update, while the other
 * copy's handler may be the one installed: the trap must reach the copy
 * whose site it is, which emulates the new instruction.  Exit status: bit
 * k for copy k.
 */
static int cross_traps(void *arg)
{
	int (*set_trapping[2])(int, unsigned long *) = {
		twin_a_set_trapping, twin_b_set_trapping,
	};
	unsigned long traps;
	int i, k, seen, bad = 0;

	(void)arg;
	for (i = 0; i < 8; i++)
		for (k = 0; k < 2; k++) {
			int on = !(i & 1);

			seen = set_trapping[k](on, &traps);
			if (seen != on || traps != 1 || twins[k].site() != on) {
				tap_diag("round %d, copy %d: mid-update site %d (want %d), %lu traps emulated",
					 i, k, seen, on, traps);
				bad |= 1 << k;
			}
		}
	return bad;
}

int main(void)
{
	int st;

	tap_plan(3);
	st = hard_child(toggle_twins, NULL, 120);
	tap_ok(st == 0, "two private copies of the library, alone: %d alternate changes each, every site flips, nothing said (%s)",
	       ROUNDS, hard_status(st));
	st = hard_child(toggle_twins, (void *)1, 120);
	tap_ok(st == 0, "two private copies, a thread running both sites: %d alternate changes each, every site flips, nothing said, no crash (%s)",
	       ROUNDS, hard_status(st));
#if defined(SK_TEST_X86) && defined(CONFIG_JUMP_LABEL)
	st = hard_child(cross_traps, NULL, 60);
	tap_ok(st == 0, "a trap at each copy's site, with either copy's handler installed, is emulated by the copy whose site it is (%s)",
	       hard_status(st));
#else
	(void)cross_traps;
	tap_skip("x86 with CONFIG_JUMP_LABEL=y only: no other site traps",
		 "a trap at each copy's site reaches the copy whose site it is");
#endif
	return tap_exit();
}
