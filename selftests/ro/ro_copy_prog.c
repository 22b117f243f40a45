// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Uses a read-only key of a shared object through a plain DECLARE, as most
 * code would: an x86-64 PIE then gets a copy relocation for it.  Prints what
 * happened for test_ro_copy.sh to judge.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

DECLARE_STATIC_KEY_TRUE(dso_ro_key);
int dso_ro_site(void);

int main(void)
{
	int status = 0;
	pid_t pid;

	static_branch_disable(&dso_ro_key);
	printf("enabled=%d site=%d err=%d\n", static_key_enabled(&dso_ro_key),
	       dso_ro_site(), statickeys_last_error());
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		*(volatile int *)&dso_ro_key.key.enabled = 0;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	printf("write=%s\n", WIFSIGNALED(status) ? "faulted" : "allowed");
	return 0;
}
