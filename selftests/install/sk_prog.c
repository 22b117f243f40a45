// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A small program written against an installed libstatickeys, the way a
 * user outside the tree would: built by test_pkgconfig.sh with pkg-config.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

#define CONFIG_PROG_FAST_PATH	1

DEFINE_STATIC_KEY_MAYBE(CONFIG_PROG_FAST_PATH, fast_path);
DEFINE_STATIC_KEY_MAYBE(CONFIG_PROG_TRACING, tracing);
DEFINE_STATIC_KEY_FALSE_RO(locked_down);

static __attribute__((noinline)) int use_fast_path(void)
{
	return static_branch_maybe(CONFIG_PROG_FAST_PATH, &fast_path) ? 1 : 0;
}

static __attribute__((noinline)) int trace_on(void)
{
	return static_branch_maybe(CONFIG_PROG_TRACING, &tracing) ? 1 : 0;
}

static __attribute__((noinline)) int is_locked_down(void)
{
	return static_branch_unlikely(&locked_down) ? 1 : 0;
}

/* A stray store to a sealed key faults when the linker fragment was used. */
static const char *ro_store(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		*(volatile int *)&locked_down.key.enabled = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return "error";
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV)
		return "fault";
	return "no-fault";
}

int main(void)
{
	printf("version %d.%d.%d\n", STATICKEYS_VERSION_MAJOR,
	       STATICKEYS_VERSION_MINOR, STATICKEYS_VERSION_PATCH);
	printf("start fast=%d trace=%d\n", use_fast_path(), trace_on());
	static_branch_enable(&tracing);
	static_branch_disable(&fast_path);
	printf("flipped fast=%d trace=%d err=%d\n", use_fast_path(), trace_on(),
	       statickeys_last_error());
	static_branch_enable(&locked_down);
	printf("ro refused=%d locked=%d store=%s\n",
	       statickeys_last_error() == EPERM, is_locked_down(), ro_store());
	return 0;
}
