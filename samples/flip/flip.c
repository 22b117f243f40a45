// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The smallest program of a user outside the tree: one key, flipped at run
 * time, its branch executed before and after.  Built against an installed
 * libstatickeys (README.md, make check-fresh, make check-package):
 *	cc flip.c $(pkg-config --cflags --libs statickeys) -o flip
 */
#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

DEFINE_STATIC_KEY_FALSE(verbose);

static __attribute__((noinline)) const char *branch(void)
{
	if (static_branch_unlikely(&verbose))
		return "taken";
	return "not taken";
}

int main(void)
{
	const char *before = branch();

	static_branch_enable(&verbose);
	printf("statickeys %d.%d.%d: branch %s, after static_branch_enable() %s\n",
	       STATICKEYS_VERSION_MAJOR, STATICKEYS_VERSION_MINOR,
	       STATICKEYS_VERSION_PATCH, before, branch());
	return statickeys_last_error() != 0 || !static_key_enabled(&verbose);
}
