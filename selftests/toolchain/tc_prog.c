// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * One program for every compiler and linker the toolchain tests try (C and
 * C++, gcc and clang, bfd, gold and lld): its own keys, a key of the shared
 * object tc_lib.so, a read-only key and a boot parameter.  It prints what
 * its sites return before and after flipping every key; the script compares
 * the lines.  The same program is linked in every linker mode the tests
 * try (--gc-sections, --icf=all, -z separate-code, ld -r...).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "tc.h"
/* Last: its empty __init would eat a field of glibc's <stdlib.h>. */
#include <linux/init.h>

DEFINE_STATIC_KEY_TRUE(tc_true);
DEFINE_STATIC_KEY_FALSE(tc_false);
DEFINE_STATIC_KEY_FALSE_RO(tc_ro);
DEFINE_STATIC_KEY_ARRAY_FALSE(tc_arr, 4);	/* a key at symbol + offset */

/*
 * Set by tc_param=, which the script puts on the command line: __sk_setup
 * survived the link (lld --gc-sections drops a table nothing refers to).
 */
static int tc_param_seen;

static int tc_param(char *val)
{
	tc_param_seen = val && val[0] == '1';
	return 0;
}
early_param("tc_param", tc_param);

/*
 * site_false, site_lib, site_ro and site_arr differ only in their key:
 * identical code folding (--icf=all) must not make them one site.
 */
#define SITE(name, expr)					\
	static __attribute__((noinline)) int name(void)		\
	{							\
		return (expr) ? 1 : 0;				\
	}

SITE(site_true, static_branch_likely(&tc_true))
SITE(site_false, static_branch_unlikely(&tc_false))
SITE(site_lib, static_branch_unlikely(&tc_lib_key))
SITE(site_ro, static_branch_unlikely(&tc_ro))
SITE(site_arr, static_branch_unlikely(&tc_arr[2]))

static void show(const char *when)
{
	printf("%s true=%d false=%d arr=%d lib=%d libsite=%d\n", when,
	       site_true(), site_false(), site_arr(), site_lib(), tc_lib_site());
}

/* A stray store to the sealed read-only key, in a child: must fault. */
static int ro_store(void *unused)
{
	(void)unused;
	*(volatile int *)&tc_ro.key.enabled = 1;
	return 0;
}

int main(void)
{
	show("start");
	static_branch_disable(&tc_true);
	static_branch_enable(&tc_false);
	static_branch_enable(&tc_arr[2]);
	static_branch_enable(&tc_lib_key);
	show("flipped");
	printf("err=%d param=%d\n", statickeys_last_error(), tc_param_seen);
	static_branch_enable(&tc_ro);
	printf("ro refused=%d site=%d store=%s\n",
	       statickeys_last_error() == EPERM, site_ro(),
	       tap_fork(ro_store, NULL) == 128 + SIGSEGV ? "fault" : "no-fault");
	return 0;
}
