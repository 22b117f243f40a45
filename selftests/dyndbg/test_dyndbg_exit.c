// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A site that prints after its object's table is gone.  At exit() the
 * object's destructor takes its table out of the library while the
 * object stays mapped: another thread, or a destructor that runs later,
 * can still reach a pr_debug() whose +m prefix names the object.  That
 * name must outlive the table.
 *
 * A child sets +pm and returns from main(); its destructor of priority
 * 101 runs after the header's (102), which removed the table: it fills
 * the freed heap with 'Z' and prints.  A name freed with the table
 * shows as "ZZZ..." (memcheck: an invalid read).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/printk.h>
#include "tap.h"
#include "dd.h"

static void site(int v)
{
	pr_debug("late %d\n", v);
}

static int in_child;
void *spoilt[512];	/* reachable: not a leak */

static void __attribute__((destructor(101))) after_the_table(void)
{
	static char out[256];
	const char *want = "test_dyndbg_exit: late 7\n";
	size_t size;

	if (!in_child)
		return;
	/* Take back every small free block, and spoil it. */
	for (size = 1; size <= 512; size++) {
		spoilt[size - 1] = malloc(size);
		if (spoilt[size - 1])
			memset(spoilt[size - 1], 'Z', size);
	}
	dd_capture_begin();
	site(7);
	dd_capture_end(out, sizeof(out));
	if (strcmp(out, want)) {
		fprintf(stderr, "printed after the table went: \"%.60s\", wanted \"%s\"\n",
			out, want);
		_exit(1);
	}
	_exit(0);
}

int main(void)
{
	int status = 0, ret;
	pid_t pid;

	tap_plan(2);
	ret = dynamic_debug_exec_queries("func site +pm", NULL);
	tap_ok(ret == 1, "func site +pm selects the one site (%d)", ret);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		in_child = 1;
		return 0;	/* exit(): the destructors run */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a site that prints after exit() removed its table names its object (status %#x)",
	       status);
	return tap_exit();
}
