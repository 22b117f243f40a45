/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the selftests must know of the C library: the few places where
 * glibc and musl behave differently in ways the library cannot change
 * (Documentation/static-keys.rst, "C libraries").
 */
#ifndef _SELFTESTS_LIBC_H
#define _SELFTESTS_LIBC_H

#include <limits.h>	/* any libc header: glibc's defines __GLIBC__ */

#ifdef __GLIBC__
/* dlclose() of the last reference unmaps the object and runs destructors. */
#define SK_LIBC_UNLOADS			1
/*
 * fork() runs each pthread_atfork() handler with the handler list
 * unlocked, so one thread's prepare handler may wait for a lock that
 * another thread holds across its own fork().
 */
#define SK_LIBC_ATFORK_UNLOCKED		1
#define SK_LIBC_NAME			"glibc"
#else
/*
 * musl: dlclose() never unloads (destructors run at exit), and fork()
 * holds its handler lock while the prepare handlers run.
 */
#define SK_LIBC_UNLOADS			0
#define SK_LIBC_ATFORK_UNLOCKED		0
#define SK_LIBC_NAME			"musl"
#endif

#endif /* _SELFTESTS_LIBC_H */
