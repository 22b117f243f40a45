/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libobjs_exit_dtor.so: a library whose destructor changes a key of the
 * program that links it and then runs that key's site in the program.
 */
#ifndef _SELFTESTS_EXIT_DTOR_H
#define _SELFTESTS_EXIT_DTOR_H

#include <linux/jump_label.h>

/* What the destructor saw, in memory shared with the test's parent. */
struct exit_dtor_report {
	int ran;		/* the destructor ran */
	int err;		/* statickeys_last_error() after the change */
	int enabled;		/* static_key_enabled() after it */
	int site;		/* the program's site: 1 for the enabled branch */
};

/* At exit, set @key to @on, then report what @site runs in @r. */
void exit_dtor_arm(struct static_key_false *key, bool on, int (*site)(void),
		   struct exit_dtor_report *r);

#endif /* _SELFTESTS_EXIT_DTOR_H */
