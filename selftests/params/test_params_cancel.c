// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A thread with a cancellation pending applies a command line whose
 * handler changes a key (the key change's unlock is a cancellation
 * point).  The cancellation must not act inside statickeys_parse_cmdline():
 * the thread would unwind holding the library's parameter lock, and every
 * later command line and every fork() would wait for it.  It acts at the
 * thread's next cancellation point after the call returns.
 * NEEDS THE STATIC-KEY CORE (links against libstatickeys).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include <statickeys/cmdline.h>

#include "tap.h"

DEFINE_STATIC_KEY_FALSE(cancel_key);

static int __init cancel_setup(char *val)
{
	(void)val;
	static_branch_enable(&cancel_key);
	return 0;
}
early_param("sk_cancel_test", cancel_setup);

static volatile int returned, parse_ret = -1;

static void *cancelled_thread(void *arg)
{
	(void)arg;
	pthread_cancel(pthread_self());		/* pending: deferred */
	parse_ret = statickeys_parse_cmdline("sk_cancel_test=1");
	returned = 1;
	pthread_testcancel();			/* acts here */
	return NULL;
}

static int child(void *arg)
{
	pthread_t t;
	void *res = NULL;
	pid_t pid;
	int st;

	(void)arg;
	alarm(10);
	if (pthread_create(&t, NULL, cancelled_thread, NULL) ||
	    pthread_join(t, &res))
		return 10;
	if (!returned)
		return 1;	/* unwound inside the call */
	if (res != PTHREAD_CANCELED || parse_ret || !static_key_enabled(&cancel_key))
		return 2;
	if (statickeys_parse_cmdline("sk_cancel_test=0"))
		return 3;
	pid = fork();		/* its handlers take the parameter lock */
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st)
		return 4;
	return 0;
}

int main(void)
{
	int st;

	tap_plan(1);
	st = tap_fork(child, NULL);
	tap_ok(st == 0,
	       "a pending cancellation does not act inside statickeys_parse_cmdline(): it returns, then later lines and fork() work (child %d%s)",
	       st, st == 128 + SIGALRM ? ": hung" : st == 1 ? ": unwound inside" : "");
	return tap_exit();
}
