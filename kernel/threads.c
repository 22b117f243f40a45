// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The per-thread scan before breakpoints go in: no thread, and no process
 * sharing this memory, may block SIGTRAP (or lack a handler for it) while
 * sites hold INT3, or the kernel kills it.  Read from /proc.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "threads.h"
#include "trap.h"

/*
 * A thread that meets an INT3 with SIGTRAP blocked is killed, and the
 * process with it: the kernel unblocks the signal and resets it to SIG_DFL
 * before it delivers it.  Daemons block every signal in their workers.  So
 * before the first INT3 of an update goes in, every thread's blocked mask
 * is read from /proc/self/task/<tid>/stat, and the update is
 * refused, naming the thread, if one blocks SIGTRAP.  (SIG_IGN, SIG_DFL or
 * a program's handler in place of the library's are taken care of by
 * sk_trap_install() before every step; a thread short of stack for
 * the signal frame cannot be seen from here: see the rules for programs.)
 *
 * glibc blocks every signal for a moment inside some of its functions
 * (pthread_create() in the new thread and its creator, pthread_kill(),
 * raise(), posix_spawn()), with its own internal signals (32 and 33) in
 * the set: masks no program can set through glibc, and code that runs no
 * site.  Such a mask is passed over.  A thread that blocks SIGTRAP itself
 * is looked at again, 1 ms apart, and the update refused only if it never
 * had SIGTRAP unblocked meanwhile.  A thread that blocks SIGTRAP after the
 * check is not seen: the rule for programs stays.  Where /proc cannot be
 * read the check is skipped.
 */
#define BLOCKED_TRIES	50

/*
 * What a look at one thread's mask says:
 *
 *   MASK_TAKES_IT   SIGTRAP is not blocked
 *   MASK_BLOCKS_IT  it is, by the program's doing
 *   MASK_LIBC       it is, inside glibc (signals 32 and 33 blocked too)
 *   MASK_SANITIZER  every standard signal is, in a ThreadSanitizer process:
 *                   its own thread (see sk_under_tsan())
 *   MASK_EMULATOR   under a user-mode emulator, a thread that runs none of
 *                   the program's code now (see emulated())
 *   MASK_GONE       the thread ended, or its files say nothing readable
 *   MASK_ERROR      the files could not be read for want of a resource
 *                   (errno says which): nothing can be told
 */
enum trap_mask {
	MASK_TAKES_IT, MASK_BLOCKS_IT, MASK_LIBC, MASK_SANITIZER,
	MASK_EMULATOR, MASK_GONE, MASK_ERROR
};

/* Whether a resource ran out: the look failed, not the thread. */
static bool out_of_resources(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/*
 * Read @tid's file @file into @buf; @val: where @field first appears.
 * MASK_TAKES_IT when it was read (a placeholder: the caller decides),
 * MASK_GONE or MASK_ERROR when not.
 */
static enum trap_mask task_field(int task, const char *tid, const char *file,
				 const char *field, char *buf, size_t size,
				 const char **val)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tid, file);
	fd = openat(task, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return out_of_resources(errno) ? MASK_ERROR : MASK_GONE;
	/* pread: should the number be another file's by now, it is only read. */
	n = pread(fd, buf, size - 1, 0);
	if (n < 0 && out_of_resources(errno)) {
		close(fd);
		return MASK_ERROR;
	}
	close(fd);
	if (n <= 0)
		return MASK_GONE;
	buf[n] = 0;
	*val = strstr(buf, field);
	return *val ? MASK_TAKES_IT : MASK_GONE;
}

/*
 * Whether the program runs under a user-mode emulator (qemu-i386,
 * qemu-x86_64): the kernel's threads are then the emulator's.  qemu
 * answers /proc/self/exe with the program, while the link the kernel keeps
 * for each thread (/proc/self/task/<tid>/exe, @tid in directory @task)
 * names the emulator itself: the two differ only under emulation.  Found
 * out once.
 *
 * There, each thread of the program is one host thread, whose host mask
 * qemu sets to the program's own mask whenever it goes back to running the
 * program's code, SIGSEGV and SIGBUS left out: it needs both delivered to
 * any thread that runs translated code (a fault in the program's memory, a
 * write to a page it translated).  A thread whose host mask blocks SIGBUS
 * runs none of the program's code at that moment: one of qemu's own
 * helpers (made blocking nearly every signal, and never running the
 * program's code), or a program thread inside qemu's signal bookkeeping
 * for the length of a system call, which sets its mask again before it
 * runs a site.  Such a thread is passed over, as one that blocks SIGTRAP
 * only after the check.
 */
static bool emulated(int task, const char *tid)
{
	static int ret = -1;
	char a[256], b[256], path[32];
	ssize_t n, m;

	if (ret >= 0)
		return ret;
	snprintf(path, sizeof(path), "%s/exe", tid);
	n = readlink("/proc/self/exe", a, sizeof(a));
	m = readlinkat(task, path, b, sizeof(b));
	if (n <= 0 || m <= 0)
		return false;	/* not known: looked at again next time */
	ret = n != m || memcmp(a, b, n);
	return ret;
}

/*
 * How thread @tid's mask stands, and its name in @name.  Its stat file has
 * the name and the low 31 bits of the mask (after the name, field 30 of
 * the rest, "blocked"), and costs less to make than its status file, read
 * only for the 64 bits of a mask that blocks SIGTRAP.
 */
static enum trap_mask trap_mask(int task, const char *tid, char *name,
				size_t len)
{
	const unsigned long long libc = 3ULL << 31;	/* signals 32, 33 */
	/*
	 * Signals 1 to 30 but SIGKILL and SIGSTOP, which no mask holds: the
	 * sanitizer runtimes' own threads block them all (gcc's libtsan the
	 * real-time ones and SIGSYS too, clang's not SIGSYS).
	 */
	const unsigned long long std = ((1ULL << 30) - 1) &
				       ~(1ULL << (SIGKILL - 1)) &
				       ~(1ULL << (SIGSTOP - 1));
	unsigned long long blk;
	enum trap_mask m;
	char buf[2048];
	const char *p, *q;
	int i;

	m = task_field(task, tid, "stat", "(", buf, sizeof(buf), &p);
	if (m != MASK_TAKES_IT)
		return m;
	q = strrchr(p, ')');	/* the name may hold ')' */
	if (!q)
		return MASK_GONE;
	snprintf(name, len, "%.*s", (int)(q - p - 1), p + 1);
	for (p = q + 2, i = 3; p && i < 32; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p)
		return MASK_GONE;
	if (!(strtoull(p, NULL, 10) & (1ULL << (SIGTRAP - 1))))
		return MASK_TAKES_IT;
	m = task_field(task, tid, "status", "\nSigBlk:", buf, sizeof(buf), &p);
	if (m != MASK_TAKES_IT)
		return m;
	blk = strtoull(p + 8, NULL, 16);
	if ((blk & (1ULL << (SIGBUS - 1))) && emulated(task, tid))
		return MASK_EMULATOR;
	if (blk & libc)
		return MASK_LIBC;
	return (blk & std) == std && sk_under_tsan() ? MASK_SANITIZER :
						    MASK_BLOCKS_IT;
}

static bool shares_memory(pid_t pid);

/*
 * How a process outside the thread group that shares this memory stands
 * (a clone(CLONE_VM) without CLONE_THREAD: see sharers_take_traps()), in
 * the words of trap_mask(): MASK_BLOCKS_IT if a trap would kill it, as it
 * blocks SIGTRAP or has no handler for it (SIG_DFL, SIG_IGN: its
 * dispositions are its own, those it had when it was made); MASK_TAKES_IT
 * if it has a handler (the library's, inherited, or the program's own).
 * @dir is its /proc directory; its name goes in @name.
 */
static enum trap_mask sharer_mask(int unused, const char *dir, char *name,
				  size_t len)
{
	const unsigned long long libc = 3ULL << 31;	/* signals 32, 33 */
	const unsigned long long trap = 1ULL << (SIGTRAP - 1);
	unsigned long long blk, cgt;
	enum trap_mask m;
	const char *p, *q;
	char buf[2048];

	(void)unused;
	/* Looked at again: it may have called execve() or ended since. */
	if (!shares_memory(atoi(dir + strlen("/proc/"))))
		return MASK_GONE;
	m = task_field(AT_FDCWD, dir, "status", "\nSigBlk:", buf, sizeof(buf),
		       &p);
	if (m != MASK_TAKES_IT)
		return m;
	q = strstr(p, "\nSigCgt:");
	if (!q)
		return MASK_GONE;
	if (!strncmp(buf, "Name:\t", 6))
		snprintf(name, len, "%.*s", (int)strcspn(buf + 6, "\n"), buf + 6);
	blk = strtoull(p + 8, NULL, 16);
	cgt = strtoull(q + 8, NULL, 16);
	if (blk & libc)		/* inside glibc: vfork() for posix_spawn() */
		return MASK_LIBC;
	return (blk & trap) || !(cgt & trap) ? MASK_BLOCKS_IT : MASK_TAKES_IT;
}

/*
 * Whether @tid (read by @mask) keeps SIGTRAP from reaching a handler, by
 * its own doing: 1 if it does, 0 if not, -errno if its files could not be
 * read.
 */
static int keeps_sigtrap_blocked(enum trap_mask (*mask)(int, const char *,
							char *, size_t),
				 int task, const char *tid, char *name,
				 size_t len)
{
	const struct timespec ms = { 0, 1000000 };
	bool blocked = false;
	int i;

	for (i = 0; i < BLOCKED_TRIES; i++) {
		switch (mask(task, tid, name, len)) {
		case MASK_TAKES_IT:
		case MASK_SANITIZER:
		case MASK_EMULATOR:
		case MASK_GONE:
			return 0;
		case MASK_ERROR:
			return -errno;
		case MASK_BLOCKS_IT:
			blocked = true;
			break;
		case MASK_LIBC:
			break;
		}
		nanosleep(&ms, NULL);
	}
	return blocked;
}

/*
 * The check could not be made for want of a resource: the update is
 * refused with that error (nothing is written; the next change looks
 * again), never let through blind.
 */
static int cannot_look(int err, size_t nr_sites)
{
	sk_warn("reading /proc/self/task to see which threads block SIGTRAP: %s: nothing written to the %zu sites, key unchanged",
		strerror(-err), nr_sites);
	return err;
}

/*
 * 0, -EBUSY if thread @tid (in directory @task) blocks SIGTRAP, -errno if
 * that could not be found out; @self is the caller's thread id.
 */
static int thread_takes_traps(int task, const char *tid, pid_t self,
			      size_t nr_sites)
{
	char name[64] = "?";
	sigset_t cur;
	int ret;

	if (atoi(tid) == self) {	/* ours is at hand, and no passing state */
		if (pthread_sigmask(SIG_BLOCK, NULL, &cur) ||
		    !sigismember(&cur, SIGTRAP))
			return 0;
		trap_mask(task, tid, name, sizeof(name));	/* its name */
	} else {
		ret = keeps_sigtrap_blocked(trap_mask, task, tid, name,
					    sizeof(name));
		if (ret <= 0)
			return ret < 0 ? cannot_look(ret, nr_sites) : 0;
	}
	sk_warn("thread %s (%s) blocks SIGTRAP: it would be killed if it ran one of the %zu sites being changed while they hold INT3; nothing written, key unchanged (leave SIGTRAP unblocked in every thread: Documentation/static-keys.rst, rules for programs)",
		tid, name, nr_sites);
	return -EBUSY;
}

/*
 * Processes that share this memory outside the thread group: made with
 * clone(CLONE_VM) and without CLONE_THREAD (a raw clone(), vfork()).  They
 * run the sites, but are in no /proc/self/task and have signal
 * dispositions of their own, so the kernel's word decides: kcmp(KCMP_VM)
 * says whether a process has this memory.  Looked for among the children
 * of every thread and the parent; where the kernel says some task shares
 * it (unshare(CLONE_VM) fails with EINVAL) and the process has no other
 * thread, one not found there is still refused, unnamed.
 */
static bool shares_memory(pid_t pid)
{
	return pid > 0 && !syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0);
}

/* 0, -EBUSY if process @pid, which shares the memory, would die of a trap. */
static int sharer_takes_traps(pid_t pid, size_t nr_sites)
{
	char dir[32], name[64] = "?";
	int ret;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	ret = keeps_sigtrap_blocked(sharer_mask, -1, dir, name, sizeof(name));
	if (ret <= 0)
		return ret < 0 ? cannot_look(ret, nr_sites) : 0;
	sk_warn("process %d (%s) shares this memory (clone(CLONE_VM) without CLONE_THREAD) but has no SIGTRAP handler or blocks SIGTRAP: it would be killed if it ran one of the %zu sites being changed while they hold INT3; nothing written, key unchanged (Documentation/static-keys.rst, rules for programs)",
		(int)pid, name, nr_sites);
	return -EBUSY;
}

/* The children of thread @tid: each one that shares the memory is looked at. */
static int children_take_traps(int task, const char *tid, size_t nr_sites,
			       int *sharers)
{
	char buf[4096];
	const char *p;
	char *end;
	long pid;
	int err = 0;

	if (task_field(task, tid, "children", "", buf, sizeof(buf), &p) !=
	    MASK_TAKES_IT)
		return 0;	/* none, or no such file */
	for (; !err && (pid = strtol(p, &end, 10)) > 0; p = end)
		if (shares_memory(pid)) {
			++*sharers;
			err = sharer_takes_traps(pid, nr_sites);
		}
	return err;
}

/* After the threads: the parent, and a sharer the kernel knows of. */
static int others_take_traps(int threads, int sharers, size_t nr_sites)
{
	pid_t parent = getppid();
	int err;

	if (shares_memory(parent)) {
		sharers++;
		err = sharer_takes_traps(parent, nr_sites);
		if (err)
			return err;
	}
	if (sharers || threads != 1 || !unshare(CLONE_VM) || errno != EINVAL)
		return 0;
	sk_warn("a process outside this thread group shares this memory (clone(CLONE_VM) without CLONE_THREAD), and it is neither a child nor the parent (or kcmp() cannot say): it would be killed if it ran one of the %zu sites being changed while they hold INT3 without a SIGTRAP handler; nothing written, key unchanged (Documentation/static-keys.rst, rules for programs)",
		nr_sites);
	return -EBUSY;
}

/**
 * sk_threads_take_traps() - whether every thread of the process can take
 * the traps of an update of @nr_sites sites: 0, -EBUSY (one cannot: said
 * on stderr), or -errno when that could not be found out.
 *
 * A probe of a write method is passed over: only the prober runs the
 * probe site, after the update.  A process without a readable /proc
 * cannot be looked at: the update goes on, and the first time that
 * happens it is said, since a thread that blocks SIGTRAP would then be
 * killed unannounced.
 */
int sk_threads_take_traps(size_t nr_sites)
{
	int err = 0, threads = 0, sharers = 0;
	struct dirent *e;
	pid_t self;
	DIR *d;

	if (sk_text_poke_probing())
		return 0;
	self = gettid();	/* a system call: once, not once a thread */
	d = opendir("/proc/self/task");
	err = d ? 0 : errno;
	if (out_of_resources(err))
		return cannot_look(-err, nr_sites);
	if (!d) {
		SK_WARN_ONCE(true, "/proc/self/task cannot be read (%s): threads that block SIGTRAP cannot be seen, and one that ran a site being changed would be killed (Documentation/static-keys.rst, rules for programs)",
			     strerror(err));
		return 0;
	}
	while (!err && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		threads++;
		err = thread_takes_traps(dirfd(d), e->d_name, self, nr_sites);
		if (!err)
			err = children_take_traps(dirfd(d), e->d_name, nr_sites,
						  &sharers);
	}
	closedir(d);
	return err ? err : others_take_traps(threads, sharers, nr_sites);
}

