// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Privilege separation: a root process that changed a key (and so holds the
 * library's /proc/self/mem descriptor) makes a worker, which drops to an
 * unprivileged user and then tries every descriptor it inherited: none may
 * write the parent's memory.  Workers made by fork(), by _Fork() and by a
 * raw clone() system call; the last two run no fork handler, and are
 * covered from their first call into the library: a key change, or only
 * jump_label_lock().  Also with madvise() refused (no MADV_WIPEONFORK page:
 * the library then asks getpid() at each change).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

#define NOBODY	65534

DEFINE_STATIC_KEY_FALSE(k_fw);
SITE(s_fw, static_branch_unlikely(&k_fw))
static int (*volatile run_fw)(void) = s_fw;

/*
 * A byte of the parent's memory, at the same address in the worker: a
 * descriptor that writes it without changing the worker's own copy wrote
 * another process (a code byte could be written just as well).
 */
static volatile unsigned char canary = 1;

pid_t _Fork(void) __attribute__((weak));

enum how { BY_FORK, BY_UNDERSCORE_FORK, BY_CLONE };
static const char *const how_name[] = { "fork()", "_Fork()", "syscall(SYS_clone)" };

/*
 * In the worker, unprivileged: every descriptor of procfs is asked to write
 * the canary.  Returns the number of the first that wrote it elsewhere than
 * here, or -1.
 */
static int foreign_writable_fd(void)
{
	unsigned char mark = 2;
	struct rlimit rl;
	struct statfs sf;
	int fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	for (fd = 0; fd < (int)rl.rlim_cur; fd++) {
		if (fstatfs(fd, &sf) || sf.f_type != PROC_SUPER_MAGIC)
			continue;
		if (pwrite(fd, &mark, 1, (off_t)(uintptr_t)&canary) != 1)
			continue;
		if (canary != mark)
			return fd;
		canary = 1;	/* its own memory: harmless */
	}
	return -1;
}

static int drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return getuid() == NOBODY && geteuid() == NOBODY ? 0 : -1;
}

/* What the worker does, and how the case is set up. */
#define W_CHANGE	0x100	/* its own key change, which flips its own code only */
#define W_LOCK		0x200	/* jump_label_lock() and _unlock(), nothing else */
#define W_CONTROL	0x400	/* the parent passes on its own /proc/self/mem */
#define W_NO_MADVISE	0x800	/* madvise() fails in the parent from the start */

/*
 * The worker.  Exit 0 when nothing could write the parent, 10 + fd when a
 * descriptor did, 3 when the drop failed.
 */
static int worker(int what)
{
	int fd;

	if (what & W_CHANGE) {
		static_branch_enable(&k_fw);
		if (statickeys_last_error() || run_fw() != 1)
			return 2;
	}
	if (what & W_LOCK) {
		jump_label_lock();
		jump_label_unlock();
	}
	if (drop_privileges())
		return 3;
	fd = foreign_writable_fd();
	return fd < 0 ? 0 : 10 + fd;
}

static pid_t make_worker(enum how how, int what)
{
	pid_t pid;

	fflush(NULL);
	switch (how) {
	case BY_FORK:
		pid = fork();
		break;
	case BY_UNDERSCORE_FORK:
		pid = _Fork();
		break;
	default:
		pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		break;
	}
	if (pid == 0)
		_exit(worker(what));
	return pid;
}

/* arg: how | W_*, in the root process that holds the descriptor. */
static int parent_case(void *arg)
{
	int a = (int)(intptr_t)arg, how = a & 0xff, st, own = -1;
	bool control = a & W_CONTROL;
	pid_t pid;

	if (a & W_NO_MADVISE) {
		static const int nrs[] = { SYS_madvise };

		if (hard_deny(nrs, 1, EINVAL))
			return 76;
	}
	static_branch_enable(&k_fw);
	static_branch_disable(&k_fw);
	if (statickeys_last_error() || run_fw() != 0)
		return 4;
	if (strcmp(statickeys_text_poke_method(), "procmem"))
		return 77;
	/* control: a descriptor the program itself passes on is found */
	if (control && (own = open("/proc/self/mem", O_RDWR)) < 0)
		return 5;
	pid = make_worker(how, a);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 6;
	if (run_fw() != 0 || static_key_enabled(&k_fw))
		return 7;	/* the worker's change landed here */
	if (!WIFEXITED(st))
		return 8;
	st = WEXITSTATUS(st);
	if ((canary != 1) != (st >= 10))
		return 9;	/* the worker's account and this memory differ */
	canary = 1;
	if (control)	/* the first that wrote here: the library's may come first */
		return st >= 10 && st <= 10 + own ? 0 : 1;
	return st;
}

static void one(enum how how, int what)
{
	int st = hard_child(parent_case, (void *)(intptr_t)(how | what), 30);
	char desc[256];

	snprintf(desc, sizeof(desc), "%s worker%s%s%s, dropped to uid %d: %s", how_name[how],
		 what & W_CHANGE ? " that changed a key of its own" : "",
		 what & W_LOCK ? " that took jump_label_lock() only" : "",
		 what & W_NO_MADVISE ? " (madvise() refused)" : "", NOBODY,
		 what & W_CONTROL ?
		 "control: the program's own O_RDWR /proc/self/mem, not close-on-exec, is found" :
		 "no inherited descriptor writes the root parent's memory");
	if (st == 77)
		tap_skip("the write method is not procmem here", "%s", desc);
	else if (st == 76)
		tap_skip("seccomp is not available here", "%s", desc);
	else if (st == 3)
		tap_skip("setresuid() to 65534 failed", "%s", desc);
	else if (how == BY_UNDERSCORE_FORK && !_Fork)
		tap_skip("the C library has no _Fork()", "%s", desc);
	else
		tap_ok(st == 0, "%s (%s%s)", desc, hard_status(st),
		       st >= 10 && st < 128 ? ": a descriptor wrote the parent" : "");
}

static const int cases[][2] = {
	{ BY_FORK, W_CONTROL },
	{ BY_FORK, 0 },
	{ BY_FORK, W_CHANGE },
	{ BY_UNDERSCORE_FORK, W_CHANGE },
	{ BY_UNDERSCORE_FORK, W_LOCK },
	{ BY_CLONE, W_CHANGE },
	{ BY_CLONE, W_LOCK },
	{ BY_FORK, W_NO_MADVISE },
	{ BY_UNDERSCORE_FORK, W_CHANGE | W_NO_MADVISE },
	{ BY_CLONE, W_CHANGE | W_NO_MADVISE },
};
#define NR_CASES	(int)(sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	int i;

	tap_plan(NR_CASES);
	for (i = 0; i < NR_CASES; i++) {
		if (geteuid() != 0)
			tap_skip("needs root (a daemon that drops privileges)",
				 "privilege-separated worker %d", i + 1);
		else if (cases[i][0] == BY_UNDERSCORE_FORK && !_Fork)
			tap_skip("the C library has no _Fork()", "_Fork() worker %d", i + 1);
		else
			one(cases[i][0], cases[i][1]);
	}
	return tap_exit();
}
