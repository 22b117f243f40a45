// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The library's threads take no asynchronous signal: those are the
 * program's, for its own threads.  SIGTRAP stays unblocked, since the x86
 * patcher's breakpoints must be able to reach every thread, and so do the
 * synchronous faults (a fault with its signal blocked kills the process
 * without the program's handler).  @name (may be NULL) is what ps and
 * /proc show for the thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "thread.h"

int sk_thread_start(void *(*fn)(void *), const char *name)
{
	sigset_t all, old;
	pthread_t t;
	int err;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, fn, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	if (name)
		pthread_setname_np(t, name);
	pthread_detach(t);
	return 0;
}
