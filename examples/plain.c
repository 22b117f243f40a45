// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plain key: off at start, so the branch in work() costs one NOP until
 * static_branch_enable() rewrites that instruction into a jump.
 *	make plain && ./plain	prints "work(2) traced" only
 */
#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

DEFINE_STATIC_KEY_FALSE(tracing);

static __attribute__((noinline)) int work(int x)
{
	if (static_branch_unlikely(&tracing))
		printf("work(%d) traced\n", x);
	return 2 * x;
}

int main(void)
{
	work(1);			/* the site is a NOP: nothing printed */
	static_branch_enable(&tracing);	/* every site of tracing: a jump */
	work(2);
	static_branch_disable(&tracing);
	work(3);
	/* A change the library refused says why here (errno values). */
	return statickeys_last_error() != 0 || static_key_enabled(&tracing);
}
