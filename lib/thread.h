/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * sk_thread_start() - start one of the library's own threads, detached:
 * the deferred-key worker (kernel/jump_label_ratelimit.c) and the control
 * channel's server (kernel/control.c).  0, or -errno with no thread.
 */
#ifndef _STATICKEYS_LIB_THREAD_H
#define _STATICKEYS_LIB_THREAD_H

__attribute__((visibility("hidden")))
int sk_thread_start(void *(*fn)(void *), const char *name);

#endif /* _STATICKEYS_LIB_THREAD_H */
