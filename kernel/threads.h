/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The per-thread SIGTRAP scan (kernel/threads.c), for the architectures
 * whose patching protocol plants breakpoints.
 */
#ifndef _SK_KERNEL_THREADS_H
#define _SK_KERNEL_THREADS_H

#include <stddef.h>

#ifndef __hidden
#define __hidden	__attribute__((visibility("hidden")))
#endif

__hidden int sk_threads_take_traps(size_t nr_sites);

#endif /* _SK_KERNEL_THREADS_H */
