// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Exit order: the destructors of the libraries a program links run after
 * the program's own.  A key change of a program key made there must still
 * reach the program's sites (its code runs until _exit()), or be refused
 * with the key unchanged: never "done" with the site left behind.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <statickeys/statickeys.h>
#include "exit_dtor.h"
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(exit_key);

static __attribute__((noinline)) int exit_site(void)
{
	if (static_branch_unlikely(&exit_key))
		return 1;
	return 0;
}

/*
 * A child that sets the key to !@on, arms the library to set it to @on
 * at exit, and exits; the report comes back through shared memory.
 */
static void check(bool on, const char *what)
{
	struct exit_dtor_report *r;
	int status;
	pid_t pid;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		tap_ok(0, "%s: mmap", what);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (on)
			static_branch_disable(&exit_key);
		else
			static_branch_enable(&exit_key);
		if (exit_site() != !on)
			_exit(2);
		exit_dtor_arm(&exit_key, on, exit_site, r);
		exit(0);	/* destructors run */
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		tap_ok(0, "%s: fork", what);
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !r->ran) {
		tap_ok(0, "%s: the child ended with status %#x, destructor ran: %d",
			 what, status, r->ran);
		return;
	}
	tap_diag("%s: error %d, static_key_enabled() %d, the site ran the %s branch",
		 what, r->err, r->enabled, r->site ? "enabled" : "disabled");
	tap_ok(r->site == r->enabled && (r->err || r->enabled == on),
		  "%s: the site runs the branch the key says", what);
	munmap(r, sizeof(*r));
}

int main(void)
{
	tap_plan(2);
	check(false, "a library destructor disables a program key at exit");
	check(true, "a library destructor enables a program key at exit");
	return tap_exit();
}
