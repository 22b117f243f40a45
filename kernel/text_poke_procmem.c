// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The procmem method: writes through a held /proc/self/mem descriptor, the
 * kernel writing through a private copy of the page, no mapping's
 * protection changed.  Also what every method needs to know of the process
 * around it: whether the change began with no other thread (the
 * /proc/self/task descriptor held here), and a fork()'s child, which must
 * not keep its parent's descriptors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "text_poke.h"
#include "../lib/lifecycle.h"

/*
 * Two descriptors are held from the first change to the end of the process,
 * both O_CLOEXEC: /proc/self/mem, written through, and /proc/self/task,
 * whose link count says how many threads there are.  Opening and closing
 * them for every change cost more than the rest of a one-site change.
 *
 * A program may close them (closefrom() in a daemon), put another file on
 * their numbers, or open /proc/self/mem itself and get the old number.  So
 * each is known by the device and inode fstat() gave at open and by the
 * process that opened it, and looked at with one fstat() at the start of
 * every change: one that is not ours any more is forgotten and another
 * opened.  The process that opened a held descriptor never has it closed
 * (a child does, below): the library cannot prove a number is still its
 * own, as the program's own /proc/self/mem on it has the same device and
 * inode (a proc inode is shared by every open of the file),
 * and closing it would take the program's descriptor away.  Writing through
 * it is harmless when it is open for writing (pwrite() moves no offset, and
 * the file is this very memory); when it is not, the write fails, and a
 * write that failed or did not land makes the next look ask the open mode
 * too (@mem_doubted): only an O_RDWR, close-on-exec descriptor is kept.
 *
 * The descriptor is looked at again before the first write of every step
 * (@mem_checked is the serializing step it was last checked at) when other
 * threads exist: they may close descriptors between two steps.  A change
 * that begins with no thread but the caller (@alone) has nobody to race
 * with but its own signal handlers, which the rules for programs forbid to
 * close or replace descriptors that are not theirs while a key may be
 * changing; it looks once.  Every write is read back all the same.
 *
 * A child made by fork() closes both (sk_text_poke_fork_child(), from the
 * library's fork handler): the parent's /proc/self/mem is the parent's
 * memory, writable by whoever holds it, also after the child drops its
 * privileges (a daemon's worker).  A child made without the fork handlers
 * (_Fork(), a raw clone() system call) closes them at its first call into
 * the library that takes the lock, or at its first change, whichever it
 * makes (sk_text_poke_fork_check(), held_mine()): the descriptor's process
 * is not the caller's.  A number is closed only if it still shows what the
 * library opened there: the same proc inode, the same access mode,
 * close-on-exec.  Linux has no close-on-fork flag; a child that never
 * calls the library keeps the descriptors (Documentation/static-keys.rst,
 * "Rules for programs").
 */

struct held_fd {
	int fd;
	int mode;	/* O_ACCMODE of the open */
	pid_t pid;
	dev_t dev;
	ino_t ino;
};

static struct held_fd mem = { .fd = -1 }, task = { .fd = -1 };
static bool mem_doubted;
static unsigned long mem_checked = -1UL;

/*
 * Close @h if it is a descriptor another process (the one this child was
 * copied from) opened and the number still shows it; forget it either way.
 */
static void held_drop_inherited(struct held_fd *h)
{
	struct stat st;
	int fl, fdfl;

	if (h->fd < 0 || h->pid == sk_tp_pid())
		return;
	fl = fcntl(h->fd, F_GETFL);
	fdfl = fcntl(h->fd, F_GETFD);
	if (fl >= 0 && (fl & O_ACCMODE) == h->mode && fdfl >= 0 &&
	    (fdfl & FD_CLOEXEC) && !fstat(h->fd, &st) &&
	    st.st_dev == h->dev && st.st_ino == h->ino)
		close(h->fd);
	h->fd = -1;
}

static void drop_inherited(void)
{
	held_drop_inherited(&mem);
	held_drop_inherited(&task);
	mem_checked = -1UL;	/* a fork() within a batch: look before a write */
}

/* The fork handler of the child, before anything else runs in it. */
void sk_text_poke_fork_child(void)
{
	sk_tp_pid_forget();
	drop_inherited();
}
SK_LIFECYCLE(writer, SK_LC_WRITER, NULL, NULL, sk_text_poke_fork_child);

/*
 * At each jump_label_lock(): a child made without the fork handlers closes
 * the parent's descriptors here, before anything else it asks of the
 * library.  Only where the emptied page tells it for nothing; elsewhere
 * held_mine() finds out at the first change.
 */
void sk_text_poke_fork_check(void)
{
	if (sk_tp_pid_wiped() && (mem.fd >= 0 || task.fd >= 0))
		drop_inherited();
}

/* Whether @h is still the descriptor this process opened; @st gets its state. */
static bool held_mine(struct held_fd *h, struct stat *st)
{
	held_drop_inherited(h);
	return h->fd >= 0 && !fstat(h->fd, st) &&
	       st->st_dev == h->dev && st->st_ino == h->ino;
}

/*
 * Open @path as a held descriptor, having forgotten the last one.  The
 * fstat() of the new descriptor records what it is; if it fails, someone
 * closed the number under us (-EBADF: retried by the caller, nothing
 * closed, the number may be another's by now).
 */
static int held_open(struct held_fd *h, const char *path, int flags,
		     struct stat *st)
{
	int fd, err;

	h->fd = -1;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
		if (err != -EBADF)
			close(fd);
		return err;
	}
	*h = (struct held_fd){ fd, flags & O_ACCMODE, sk_tp_pid(), st->st_dev,
			       st->st_ino };
	return 0;
}

/*
 * Whether the change under way began with no task in the process but the
 * caller.  unshare(CLONE_VM) is the kernel's own question, and changes
 * nothing: it fails with EINVAL if another thread is in the thread group,
 * or another task shares the memory (clone(CLONE_VM) without CLONE_THREAD:
 * such a process runs the sites but is in no /proc/self/task) or the
 * signal handlers, and succeeds otherwise.  Where a sandbox refuses it,
 * the threads are counted instead: /proc/<pid>/task has one link per
 * thread besides its own two, as fstat() of a held descriptor reports at
 * the time of the call, every thread of the thread group counted, those
 * made with clone() behind the C library included (glibc's
 * __libc_single_threaded misses them: a wrong "alone" would skip the
 * blocked-SIGTRAP check of a thread that exists); a process sharing the
 * memory outside the group is not seen then.  Without /proc the answer is
 * no: every check is made.
 */
static bool alone;

static bool process_alone(void)
{
	struct stat st;
	int err = 0, i;

	if (!unshare(CLONE_VM))
		return true;
	if (errno == EINVAL)
		return false;
	if (held_mine(&task, &st))
		return st.st_nlink == 3;
	for (i = 0; i < POKE_TRIES && (!i || err == -EBADF); i++)
		err = held_open(&task, "/proc/self/task",
				O_RDONLY | O_DIRECTORY, &st);
	return !err && st.st_nlink == 3;
}

/* At the start of every batch (sk_text_poke_begin()). */
void sk_tp_look_alone(void)
{
	alone = process_alone();
}

bool sk_text_poke_alone(void)
{
	return alone;
}

/*
 * Whether the held /proc/self/mem descriptor is ours.  After a write that
 * failed or did not land, also whether it is open the way the library opens
 * it: the program's own read-only /proc/self/mem on the number looks the
 * same to fstat().
 */
static bool mem_fd_mine(void)
{
	struct stat st;
	int fl, fdfl;

	if (!held_mine(&mem, &st))
		return false;
	if (!mem_doubted)
		return true;
	fl = fcntl(mem.fd, F_GETFL);
	fdfl = fcntl(mem.fd, F_GETFD);
	mem_doubted = false;
	return fl >= 0 && (fl & O_ACCMODE) == O_RDWR && fdfl >= 0 &&
	       (fdfl & FD_CLOEXEC);
}

static int open_mem_once(void)
{
	struct stat st;

	if (mem_fd_mine())
		return 0;
	mem_doubted = false;
	return held_open(&mem, "/proc/self/mem", O_RDWR, &st);
}

/*
 * A descriptor closed under us between open() and fstat() is retried.  A
 * process that changed its credentials is not dumpable, and its
 * /proc/self/mem belongs to root: say so, and what gives it back.
 */
static int open_mem(void)
{
	int err = 0, i;

	for (i = 0; i < POKE_TRIES && (err = open_mem_once()) == -EBADF; i++)
		;
	if (err == -EACCES && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
		return sk_tp_failed(err, "opening /proc/self/mem, which is root's: the process changed credentials and is not dumpable (prctl(PR_SET_DUMPABLE, 1) gives the file back)");
	if (err)
		return sk_tp_failed(err, "opening /proc/self/mem");
	return 0;
}

/*
 * Whether /proc/self/mem shows another address space than this process's
 * at its own addresses: under an emulator such as qemu-arm (a 32-bit guest)
 * the descriptor is the emulator's, whose memory holds the guest's at an
 * offset, and a write there would land in the emulator.  Only read, so
 * nothing is ever written through such a descriptor.  A file that cannot
 * be opened or read tells nothing (a privilege drop may be undone).
 */
static const void *const here = &here;	/* a word to compare */

bool sk_tp_procmem_elsewhere(void)
{
	unsigned char direct[sizeof(long)], seen[sizeof(long)];
	uintptr_t at = (uintptr_t)&here;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	bool other;

	if (fd < 0)
		return false;
	memcpy(direct, (const void *)at, sizeof(direct));
	other = pread(fd, seen, sizeof(seen), (off_t)at) == sizeof(seen) &&
		memcmp(direct, seen, sizeof(seen));
	close(fd);
	return other;
}

/* Write through /proc/self/mem, having made sure the descriptor is ours. */
int sk_tp_poke_procmem(uintptr_t addr, const void *bytes, size_t len)
{
	ssize_t w;
	int err;

	if (mem_checked != sk_tp_sync_gen && (!alone || mem_checked == -1UL)) {
		err = open_mem();
		if (err)
			return err;
		mem_checked = sk_tp_sync_gen;
	}
	w = pwrite(mem.fd, bytes, len, (off_t)addr);
	if (w == (ssize_t)len)
		return 0;
	/* sk_text_poke() rechecks the descriptor */
	if (w < 0)
		return sk_tp_failed(-errno, "pwrite() to /proc/self/mem at %p",
				    (void *)addr);
	return sk_tp_failed(-EIO, "pwrite() to /proc/self/mem at %p wrote %zd of %zu bytes",
			    (void *)addr, w, len);
}

/* Get the descriptor ready for a batch (sk_tp_prepare()). */
int sk_tp_procmem_prepare(void)
{
	int err = open_mem();

	mem_checked = sk_tp_sync_gen;
	return err;
}

/*
 * A write failed or did not land: the next write opens a fresh descriptor
 * and also checks how the held one is open.
 */
void sk_tp_procmem_doubt(void)
{
	mem_checked = -1UL;
	mem_doubted = true;
}
