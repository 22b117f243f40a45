// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A helper made with clone(CLONE_VM) without CLONE_SIGHAND (nor
 * CLONE_THREAD) runs the program's code in its memory but is a process of
 * its own: it is not among /proc/self/task, and it keeps the SIGTRAP
 * disposition it had when it was made.  If that is not the library's
 * handler, an INT3 of an update kills it.  Such a change must be refused
 * (EBUSY, the helper named, key and site unchanged); a helper that has the
 * library's handler lives through changes and sees them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

#define CHANGES		2000
#define HELPER_STACK	(256 * 1024)

DEFINE_STATIC_KEY_FALSE(k_vm);

SITE(s_vm, static_branch_unlikely(&k_vm))

static int (*volatile run_vm)(void) = s_vm;

/* Shared with the helper: the same memory. */
static int stop, loops, seen;

/* Runs the site until told to stop; only raw memory, no C library. */
static int helper(void *arg)
{
	(void)arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlives a hung test */
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		__atomic_store_n(&seen, run_vm(), __ATOMIC_RELAXED);
		__atomic_fetch_add(&loops, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static pid_t start_helper(void)
{
	char *stack = malloc(HELPER_STACK);
	pid_t pid;

	if (!stack)
		return -1;
	pid = clone(helper, stack + HELPER_STACK, CLONE_VM | SIGCHLD, NULL);
	while (pid > 0 && !__atomic_load_n(&loops, __ATOMIC_ACQUIRE))
		sched_yield();
	return pid;
}

/* 0 if the helper lived to be stopped, else its wait status. */
static int stop_helper(pid_t pid)
{
	int st;

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : st;
}

/* stderr into a file, read back at the end. */
static int capture_stderr(void)
{
	char path[] = "/tmp/test_clone_vm.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	dup2(fd, 2);
	return fd;
}

static bool said(int fd, const char *what)
{
	static char buf[8192];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, what) != NULL;
}

/*
 * Made before the library's handler is installed: SIGTRAP at SIG_DFL in
 * the helper.  Exit status: bit 0 the helper died, bit 1 a change claimed
 * done did not reach the site (or the key moved on a refusal), bit 2 a
 * refusal was not EBUSY or did not name the helper, bit 4 (x86 sites,
 * which trap) the first change was not refused.
 */
static int before_handler(void *arg)
{
	int i, err, bad = 0, fd = capture_stderr();
	char pid_s[32];
	pid_t pid;

	(void)arg;
	pid = start_helper();
	if (pid < 0 || fd < 0)
		return 8;
	for (i = 0; i < CHANGES; i++) {
		bool on = !(i & 1);

		on ? static_branch_enable(&k_vm) : static_branch_disable(&k_vm);
		err = statickeys_last_error();
		if (!err && (run_vm() != on || static_key_enabled(&k_vm) != on))
			bad |= 2;
		if (err && (err != EBUSY || static_key_enabled(&k_vm) ||
			    run_vm()))
			bad |= 2 | 4;
		if (err)
			break;
	}
	snprintf(pid_s, sizeof(pid_s), "process %d (", (int)pid);
	if (i < CHANGES && !said(fd, pid_s))
		bad |= 4;
#if defined(SK_TEST_X86) && defined(CONFIG_JUMP_LABEL)
	if (i)		/* the first change must already be refused */
		bad |= 16;
#endif
	if (stop_helper(pid))
		bad |= 1;
	if (bad)
		tap_diag("helper %s, %d changes made, error %d", pid_s, i,
			 statickeys_last_error());
	return bad;
}

/* Made with the library's handler installed: it inherits it. */
static int after_handler(void *arg)
{
	int i, bad = 0;
	pid_t pid;

	(void)arg;
	static_branch_enable(&k_vm);
	static_branch_disable(&k_vm);
	pid = start_helper();
	if (pid < 0)
		return 8;
	for (i = 0; i < CHANGES && !bad; i++) {
		bool on = !(i & 1);

		on ? static_branch_enable(&k_vm) : static_branch_disable(&k_vm);
		if (statickeys_last_error() || run_vm() != on)
			bad |= 2;
	}
	/* The helper sees the last state: the key disabled. */
	__atomic_store_n(&loops, 0, __ATOMIC_RELAXED);
	while (!bad && __atomic_load_n(&loops, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	if (!bad && __atomic_load_n(&seen, __ATOMIC_RELAXED))
		bad |= 2;
	if (stop_helper(pid))
		bad |= 1;
	if (bad)
		tap_diag("%d changes made, error %d", i, statickeys_last_error());
	return bad;
}

static int exit_at_once(void *arg)
{
	(void)arg;
	return 0;
}

/*
 * Can this process make a task that shares its memory but not its signal
 * handlers?  qemu-user cannot (clone() with CLONE_VM but not the thread
 * flags fails with EINVAL there).  0 if it can, else the errno.
 */
static int clone_vm_refused(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t pid = clone(exit_at_once, stack + sizeof(stack),
			  CLONE_VM | SIGCHLD, NULL);

	if (pid < 0)
		return errno;
	waitpid(pid, NULL, 0);
	return 0;
}

int main(void)
{
	int st, err;

	tap_plan(2);
	err = clone_vm_refused();
	if (err) {
		tap_skip("clone(CLONE_VM) without CLONE_THREAD refused here", "%s",
			 "a helper sharing the memory without the library's handler");
		tap_skip("clone(CLONE_VM) without CLONE_THREAD refused here", "%s",
			 "a helper sharing the memory with the library's handler");
		tap_diag("clone(CLONE_VM | SIGCHLD): %s", strerror(err));
		return tap_exit();
	}
	st = hard_child(before_handler, NULL, 60);
	tap_ok(st == 0, "a clone(CLONE_VM) helper without the library's SIGTRAP handler: every change reaches the site or is refused (EBUSY, helper named, key unchanged), and the helper lives (%s)",
	       hard_status(st));
	st = hard_child(after_handler, NULL, 60);
	tap_ok(st == 0, "a clone(CLONE_VM) helper made with the library's handler installed lives through %d changes and sees them (%s)",
	       CHANGES, hard_status(st));
	return tap_exit();
}
