/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the hardening tests share: a child with a deadline (a hang or a
 * crash is a failed check, never a stuck suite) and a seccomp filter that
 * makes chosen system calls fail, to take a resource away from a process
 * the way a sandbox or a container would.
 */
#ifndef _SELFTESTS_HARD_H
#define _SELFTESTS_HARD_H

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "arch.h"
#include "tap.h"

#define HARD_AUDIT_ARCH		SK_TEST_AUDIT_ARCH

/*
 * hard_child() - run @fn in a child that SIGALRM kills after @secs.
 * Returns what tap_fork() returns: 128 + SIGALRM means it hung.
 */
struct hard_call {
	int (*fn)(void *);
	void *arg;
	unsigned int secs;
};

static inline int hard_call_fn(void *p)
{
	struct hard_call *c = p;

	alarm(c->secs);
	return c->fn(c->arg);
}

static inline int hard_child(int (*fn)(void *), void *arg, unsigned int secs)
{
	struct hard_call c = { fn, arg, secs };

	return tap_fork(hard_call_fn, &c);
}

static inline const char *hard_status(int st)
{
	static char buf[64];

	if (st == 128 + SIGALRM)
		return "hung (killed by the deadline)";
	if (st > 128)
		snprintf(buf, sizeof(buf), "killed by signal %d", st - 128);
	else
		snprintf(buf, sizeof(buf), "exit status %d", st);
	return buf;
}

/*
 * hard_chain() - what a polite signal handler does with a signal it does not
 * own: pass it to the handler it replaced, @prev, if that is a handler.
 */
static inline void hard_chain(const struct sigaction *prev, int sig,
			      siginfo_t *info, void *uc)
{
	if (prev->sa_flags & SA_SIGINFO)
		prev->sa_sigaction(sig, info, uc);
	else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN)
		prev->sa_handler(sig);
}

/*
 * hard_deny() - from now on, the @n system calls in @nrs fail with @err in
 * this process.  -1 where seccomp is not available (qemu-user).
 */
static inline int hard_deny(const int *nrs, int n, int err)
{
	struct sock_filter f[32];
	struct sock_fprog prog;
	int i, k = 0;

	if (n > 24)
		return -1;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				HARD_AUDIT_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				nrs[i], (unsigned char)(n - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA));
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * hard_held_fd() - how many descriptors of this process name its own
 * /proc/<pid>/@what ("mem", "task"): the library's held ones.  *@last gets
 * the highest such number (untouched if none).
 */
static inline int hard_held_fd(const char *what, int *last)
{
	char path[64], link[64], want[64];
	int fd, n = 0;

	snprintf(want, sizeof(want), "/proc/%d/%s", (int)getpid(), what);
	for (fd = 0; fd < 1024; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, want)) {
			n++;
			*last = fd;
		}
	}
	return n;
}

/*
 * hard_emulator() - the user-mode emulator make runs this program under
 * (RUNNER names qemu-user), or NULL natively: for the checks that depend
 * on what the emulator, not the library, can do.
 */
static inline const char *hard_emulator(void)
{
	const char *r = getenv("RUNNER");

	return r && strstr(r, "qemu") ? r : NULL;
}

/*
 * hard_exec_self() - execute this program again as "@name @arg", through
 * RUNNER where there is one: the host cannot run a foreign program itself
 * (/proc/self/exe names the emulator's guest, which the kernel may not
 * execute).  Returns only if that failed.
 */
static inline void hard_exec_self(const char *name, const char *arg)
{
	const char *runner = getenv("RUNNER");
	char self[1024], cmd[4096];
	ssize_t n;

	if (!runner || !*runner) {
		execl("/proc/self/exe", name, arg, (char *)NULL);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = 0;
	snprintf(cmd, sizeof(cmd), "exec %s '%s' %s", runner, self, arg);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
}

#endif /* _SELFTESTS_HARD_H */
