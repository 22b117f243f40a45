/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * One line to stderr, the library's only way of saying something.  The
 * bottom layer: every file may call it, and it calls nothing of ours.
 */
#ifndef _STATICKEYS_LIB_WARN_H
#define _STATICKEYS_LIB_WARN_H

#include <stdbool.h>

/*
 * sk_warn() prints one "statickeys: ..." line to stderr; SK_WARN_ONCE()
 * prints it the first time a call site is reached only.
 */
__attribute__((visibility("hidden"), format(printf, 1, 2)))
void sk_warn(const char *fmt, ...);

#define SK_WARN_ONCE(cond, ...) ({					\
	static bool __sk_warned;					\
	bool __sk_c = !!(cond);						\
	if (__sk_c && !__atomic_exchange_n(&__sk_warned, true,		\
					   __ATOMIC_RELAXED))		\
		sk_warn(__VA_ARGS__);					\
	__sk_c;								\
})

#endif /* _STATICKEYS_LIB_WARN_H */
