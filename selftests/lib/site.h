/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * SITE(name, expr) - a function holding one static-key site, kept out of
 * line so that calling it really executes the site: 1 when @expr is true.
 */
#ifndef _SELFTESTS_SITE_H
#define _SELFTESTS_SITE_H

#define SITE(name, expr)					\
	static __attribute__((noinline)) int name(void)		\
	{							\
		if (expr)					\
			return 1;				\
		return 0;					\
	}

#endif /* _SELFTESTS_SITE_H */
