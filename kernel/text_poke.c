// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Writing instruction bytes into the running process, and making every
 * thread see them.  Two write methods, chosen by patching a probe site and
 * executing it, never by reading memory back (an emulator may keep running
 * a stale translation of bytes that read back as written).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The probe site must be a real site whatever CONFIG_JUMP_LABEL says. */
#if defined(__has_include)
# if __has_include(<asm/jump_label.h>) && !defined(CONFIG_JUMP_LABEL)
#  define CONFIG_JUMP_LABEL 1
# endif
#endif

#include <linux/jump_label.h>
#include "internal.h"

/*
 * Methods, in the order they are tried:
 *
 *   procmem   pwrite() to /proc/self/mem: the kernel writes through a
 *             private copy of the page; no mapping's protection changes.
 *   mprotect  the segments of the batch are made writable (and stay
 *             executable) for the duration of one update, then restored
 *             to the protection of their ELF segment.
 *
 * The choice is never a verdict for the life of the process: a process
 * changes under the library (a daemon drops root and /proc/self/mem becomes
 * root's; a seccomp filter arrives; descriptors or memory run out for a
 * moment).  Only what the environment says for good is kept, per method
 * (@verdicts): its probe site was written and executed the new instruction
 * (V_EXECUTES), or was written and did not (V_NO_EFFECT: an emulator running
 * its old translation; never tried again).  Everything else is found out
 * again at the time:
 *
 *   failure                        where         then
 *   ENOMEM, EMFILE, ENFILE         anywhere      this change fails with
 *                                                that error; nothing is
 *                                                remembered
 *   refused (EACCES, EPERM, ...)   preparing     the next method that is
 *                                  a batch       allowed is used for this
 *                                                change (probed first if it
 *                                                never was), and after it
 *   refused                        writing       the batch is undone, the
 *                                                change refused (EACCES),
 *                                                and the next change
 *                                                chooses again
 *   every method refused                         the change is refused
 *                                                (EACCES), the next one
 *                                                chooses again
 *
 * STATICKEYS_TEXT_POKE limits the methods allowed to one.
 */
enum poke_method { POKE_UNSET, POKE_PROCMEM, POKE_MPROTECT, POKE_NONE };

static const char *const method_names[] = {
	[POKE_UNSET] = "unset", [POKE_PROCMEM] = "procmem",
	[POKE_MPROTECT] = "mprotect", [POKE_NONE] = "none",
};

enum verdict { V_UNKNOWN, V_EXECUTES, V_NO_EFFECT };

static enum poke_method method = POKE_UNSET;
static enum verdict verdicts[POKE_NONE];
static bool probing;
static bool write_refused;	/* in this batch: choose again after it */

void (*sk_test_step_hook)(int step);
int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);
bool sk_test_write_by_site;

/*
 * What went wrong, for the messages: the first failure of a batch (later
 * ones are usually its consequences), or of the last preparation.
 */
static char why[256];
static bool batch_failed;
static size_t nr_landed;	/* writes of this batch that landed */

static int failed(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int failed(int err, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (batch_failed)
		return err;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	n = strlen(why);
	snprintf(why + n, sizeof(why) - n, ": %s", strerror(-err));
	return err;
}

/* Errors that say nothing about the method: report them, keep nothing. */
static bool transient(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE;
}

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
#define POKE_TRIES	3	/* attempts at a write or an open */

/*
 * The process this state belongs to: getpid() is a system call, and costs
 * a few microseconds in a virtual machine.  The answer is kept in a page
 * the kernel empties in every child that gets a copy of the address space,
 * however it was made (MADV_WIPEONFORK, Linux 4.14): a child finds 0 and
 * asks again.  Where the page cannot be had, every call asks.  The lock
 * serialises both.
 */
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK		18
#endif

static pid_t *pid_page;
static bool pid_page_tried;

static void pid_page_init(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p;

	pid_page_tried = true;
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return;
	if (madvise(p, ps, MADV_WIPEONFORK)) {
		munmap(p, ps);
		return;
	}
	pid_page = p;
}

static pid_t current_pid(void)
{
	if (!pid_page_tried)
		pid_page_init();
	if (!pid_page)
		return getpid();
	if (!*pid_page)
		*pid_page = getpid();
	return *pid_page;
}

struct held_fd {
	int fd;
	int mode;	/* O_ACCMODE of the open */
	pid_t pid;
	dev_t dev;
	ino_t ino;
};

static struct held_fd mem = { .fd = -1 }, task = { .fd = -1 };
static bool mem_doubted;
static unsigned long sync_gen, mem_checked = -1UL;

/*
 * Close @h if it is a descriptor another process (the one this child was
 * copied from) opened and the number still shows it; forget it either way.
 */
static void held_drop_inherited(struct held_fd *h)
{
	struct stat st;
	int fl, fdfl;

	if (h->fd < 0 || h->pid == current_pid())
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
	if (pid_page)
		*pid_page = 0;	/* where the kernel ignored the advice */
	drop_inherited();
}

/*
 * At each jump_label_lock(): a child made without the fork handlers closes
 * the parent's descriptors here, before anything else it asks of the
 * library.  Only where the emptied page tells it for nothing; elsewhere
 * held_mine() finds out at the first change.
 */
void sk_text_poke_fork_check(void)
{
	if (pid_page && !*pid_page && (mem.fd >= 0 || task.fd >= 0))
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
	*h = (struct held_fd){ fd, flags & O_ACCMODE, current_pid(), st->st_dev,
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

bool sk_text_poke_alone(void)
{
	return alone;
}

/*
 * Segments made writable by sk_text_poke_begin(), restored by _end().  A
 * whole ELF segment at a time: changing part of a mapping splits it, and the
 * pieces do not merge back once a written page has become anonymous.
 */
struct open_seg {
	uintptr_t start, end;
	int prot;
};
static struct open_seg *open_segs;
static size_t nr_open;

static DEFINE_STATIC_KEY_FALSE(sk_probe_key);

static __attribute__((noinline)) bool probe_site(void)
{
	if (static_branch_unlikely(&sk_probe_key))
		return true;
	return false;
}

/* Called through a volatile pointer so that the site really executes. */
static bool (*volatile probe_fn)(void) = probe_site;

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
		return failed(err, "opening /proc/self/mem, which is root's: the process changed credentials and is not dumpable (prctl(PR_SET_DUMPABLE, 1) gives the file back)");
	if (err)
		return failed(err, "opening /proc/self/mem");
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
static bool procmem_elsewhere(void)
{
	unsigned char direct[sizeof(long)], seen[sizeof(long)];
	uintptr_t at = (uintptr_t)&probe_fn;
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

/* The address a queue record starts with. */
static uintptr_t rec_addr(const char *rec)
{
	uintptr_t a;

	memcpy(&a, rec, sizeof(a));
	return a;
}

static void restore_segments(void)
{
	while (nr_open) {
		struct open_seg *sg = &open_segs[--nr_open];

		if (mprotect((void *)sg->start, sg->end - sg->start, sg->prot))
			sk_warn("restoring protection of %p failed: %s",
				(void *)sg->start, strerror(errno));
	}
}

/*
 * Make the segment holding @addr writable, unless it is open already; @ps
 * is the page size.  *@last remembers the segment opened or found last:
 * a batch's sites are in address order, so most sites fall in it.
 */
static int open_segment(uintptr_t addr, size_t cap, long ps,
			struct open_seg **last)
{
	uintptr_t start, end;
	size_t i;
	int prot;

	if (*last && addr >= (*last)->start && addr < (*last)->end)
		return 0;
	prot = sk_text_segment(addr, &start, &end);
	if (prot < 0)
		return failed(-EFAULT, "site %p lies in no executable segment",
			      (void *)addr);
	start &= ~(uintptr_t)(ps - 1);
	end = (end + ps - 1) & ~(uintptr_t)(ps - 1);
	for (i = 0; i < nr_open; i++)
		if (open_segs[i].start == start) {
			*last = &open_segs[i];
			return 0;
		}
	if (nr_open == cap)
		return failed(-ENOMEM, "more segments than the list holds");
	if (mprotect((void *)start, end - start, prot | PROT_WRITE))
		return failed(-errno, "making the code at %p-%p writable with mprotect()",
			      (void *)start, (void *)end);
	open_segs[nr_open] = (struct open_seg){ start, end, prot };
	*last = &open_segs[nr_open++];
	return 0;
}

/* Make every segment that a site of the batch lies in writable. */
static int open_segments_for(const void *sites, size_t n, size_t stride,
			     size_t len)
{
	struct open_seg *last = NULL;
	long ps = sysconf(_SC_PAGESIZE);
	size_t i, cap = 2 * n;
	int err = 0;
	struct open_seg *v = realloc(open_segs, cap * sizeof(*open_segs));

	if (!v)
		return failed(-ENOMEM, "no memory for the list of segments to open");
	open_segs = v;
	for (i = 0; i < n && !err; i++) {
		uintptr_t addr = rec_addr((const char *)sites + i * stride);

		err = open_segment(addr, cap, ps, &last);
		if (!err)
			err = open_segment(addr + len - 1, cap, ps, &last);
	}
	if (err)
		restore_segments();
	return err;
}

/* Get @m ready to write @n sites; nothing is changed if it fails. */
static int prepare(enum poke_method m, const void *sites, size_t n,
		   size_t stride, size_t len)
{
	int err;

	switch (m) {
	case POKE_PROCMEM:
		err = open_mem();
		mem_checked = sync_gen;
		return err;
	case POKE_MPROTECT:
		return open_segments_for(sites, n, stride, len);
	default:
		return failed(-EACCES, "no write method");
	}
}

/* The /proc/self/mem descriptor stays open for the next change. */
static void finish(enum poke_method m)
{
	if (m == POKE_MPROTECT)
		restore_segments();
}

/* ---- probing: does a method's write take effect? ---- */

/*
 * The probe site and its two instructions, as the arch patcher wrote them
 * the first time a probe flipped it: enough to probe again by writing it
 * directly, while a batch holds the arch queue.  Only the prober ever runs
 * the probe site, with the jump-label lock held, so a direct write of the
 * whole instruction races with nobody.
 */
static uintptr_t probe_addr;
static uint8_t probe_off[JUMP_LABEL_SITE_SIZE], probe_on[JUMP_LABEL_SITE_SIZE];
static bool probe_known;

/* The library's own site of the probe key, from its own table. */
static uintptr_t find_probe_site(void)
{
	const struct jump_entry *e =
		(const struct jump_entry *)(void *)__start___jump_table;
	const struct jump_entry *stop =
		(const struct jump_entry *)(void *)__stop___jump_table;

	for (; e && e < stop; e++)
		if (jump_entry_key(e) == &sk_probe_key.key)
			return jump_entry_code(e);
	return 0;
}

/*
 * Flip the probe site with the candidate method through the whole update
 * path and execute it: 0 if it flipped both ways, -ENOEXEC if the writes
 * went through and the code did not change, or why the update failed.
 */
static int probe_by_update(void)
{
	uintptr_t a = probe_addr ? probe_addr : find_probe_site();
	uint8_t off[JUMP_LABEL_SITE_SIZE];
	int n, flipped;

	if (a)
		memcpy(off, (const void *)a, sizeof(off));
	n = sk_jump_label_update(&sk_probe_key.key, 1);
	if (n == 0)		/* the probe site is not registered: trust it */
		return 0;
	if (n < 0)
		return n;
	flipped = probe_fn();
	if (a && !probe_known) {
		memcpy(probe_off, off, sizeof(off));
		memcpy(probe_on, (const void *)a, sizeof(probe_on));
		probe_addr = a;
		probe_known = memcmp(probe_on, probe_off, sizeof(off)) != 0;
	}
	n = sk_jump_label_update(&sk_probe_key.key, 0);
	if (n < 0)
		return n;
	return flipped && !probe_fn() ? 0 : -ENOEXEC;
}

static int write_probe(const uint8_t *bytes)
{
	int err = sk_text_poke(probe_addr, bytes, sizeof(probe_on));

	__builtin___clear_cache((char *)probe_addr,
				(char *)probe_addr + sizeof(probe_on));
	return err;
}

/*
 * The same, while a batch holds the arch queue: write the probe site's
 * instructions directly with @m, and execute it.
 */
static int probe_direct(enum poke_method m)
{
	uintptr_t a = probe_addr;
	int err, flipped;

	if (!probe_known)
		return failed(-EACCES, "%s was never probed", method_names[m]);
	method = m;
	err = prepare(m, &a, 1, sizeof(a), sizeof(probe_on));
	if (err)
		return err;
	err = write_probe(probe_on);
	flipped = !err && probe_fn();
	if (!err)
		err = write_probe(probe_off);
	finish(m);
	if (err)
		return err;
	return flipped && !probe_fn() ? 0 : -ENOEXEC;
}

/* Record what a probe of @m said; 0 when @m works. */
static int probed(enum poke_method m, int err)
{
	if (!err)
		verdicts[m] = V_EXECUTES;
	else if (err == -ENOEXEC)
		verdicts[m] = V_NO_EFFECT;
	return err;
}

static enum poke_method forced_method(void)
{
	/* As for the command line: a set-user-ID caller chooses nothing. */
	const char *env = secure_getenv("STATICKEYS_TEXT_POKE");

	if (!env || !*env)
		return POKE_UNSET;
	if (!strcmp(env, "procmem"))
		return POKE_PROCMEM;
	if (!strcmp(env, "mprotect"))
		return POKE_MPROTECT;
	sk_warn("STATICKEYS_TEXT_POKE=%s: unknown method (procmem, mprotect): choosing automatically",
		env);
	return POKE_UNSET;
}

/* Whether @m may be tried: allowed, and not known to have no effect here. */
static bool candidate(enum poke_method m, enum poke_method forced)
{
	if (m == POKE_PROCMEM && verdicts[m] == V_UNKNOWN && procmem_elsewhere())
		verdicts[m] = V_NO_EFFECT;
	return (forced == POKE_UNSET || m == forced) &&
	       verdicts[m] != V_NO_EFFECT;
}

/* Append "method: reason" for a message listing the methods tried. */
static void note(char *buf, size_t len, enum poke_method m, int err)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s: %s", n ? "; " : "", method_names[m],
		 err == -ENOEXEC ? "written, but the code did not change (an emulator running its old translation?)" :
		 why[0] ? why : strerror(-err));
}

/*
 * Choose a method with nothing queued: probe each candidate through the
 * update path.  A transient failure stops the choice (it is the change's
 * error, and the next change chooses again); a method refused here is
 * tried again at the next choice.
 */
static int select_method(void)
{
	enum poke_method forced = forced_method(), m;
	char tried[2 * sizeof(why) + 64] = "";
	int err = -EACCES;

	probing = true;
	for (m = POKE_PROCMEM; m <= POKE_MPROTECT; m++) {
		if (!candidate(m, forced))
			continue;
		method = m;
		why[0] = '\0';
		err = probed(m, probe_by_update());
		if (!err || transient(err))
			break;
		note(tried, sizeof(tried), m, err);
	}
	probing = false;
	if (!err)
		return 0;
	if (transient(err)) {
		method = POKE_UNSET;
		sk_warn("choosing how to write code: %s: change refused, tried again at the next change",
			why[0] ? why : strerror(-err));
		return err;
	}
	method = POKE_NONE;
	sk_warn("no method can write code in this process (%s): change refused, tried again at the next change",
		tried[0] ? tried : "none allowed");
	return -EACCES;
}

/**
 * sk_text_poke_ready() - choose the write method if none is chosen.  Called
 * with the jump-label lock held, before anything is queued.
 */
int sk_text_poke_ready(void)
{
	if (probing || (method != POKE_UNSET && method != POKE_NONE))
		return 0;
	return select_method();
}

const char *sk_text_poke_method(void)
{
	return method_names[method];
}

bool sk_text_poke_probing(void)
{
	return probing;
}

const char *sk_text_poke_why(void)
{
	return why[0] ? why : "unknown";
}

size_t sk_text_poke_landed(void)
{
	return nr_landed;
}

static void batch_reset(void)
{
	batch_failed = write_refused = false;
	nr_landed = 0;
	why[0] = '\0';
}

/*
 * Prepare to write a batch with the chosen method or, if it is refused
 * now, with the next candidate that works (probed directly first if it
 * never was).  A transient failure is returned as itself; if every
 * candidate is refused, -EACCES, and the next change chooses again.
 */
int sk_text_poke_begin(const void *sites, size_t n, size_t stride, size_t len)
{
	enum poke_method first = method, order[3], m;
	char tried[2 * sizeof(why) + 64] = "";
	int err, i, k = 0;

	batch_reset();
	alone = process_alone();
	if (probing)
		return prepare(method, sites, n, stride, len);
	if (first == POKE_PROCMEM || first == POKE_MPROTECT)
		order[k++] = first;
	for (m = POKE_PROCMEM; m <= POKE_MPROTECT; m++)
		if (m != first)
			order[k++] = m;
	for (i = 0; i < k; i++) {
		m = order[i];
		if (m != first && !candidate(m, forced_method()))
			continue;
		why[0] = '\0';
		err = verdicts[m] == V_EXECUTES ? 0 : probed(m, probe_direct(m));
		method = m;
		if (!err)
			err = prepare(m, sites, n, stride, len);
		if (!err)
			break;
		if (transient(err)) {
			method = first;
			sk_warn("cannot write code now: %s: change refused, tried again at the next change",
				why[0] ? why : strerror(-err));
			return err;
		}
		note(tried, sizeof(tried), m, err);
	}
	if (i == k) {
		method = POKE_NONE;
		sk_warn("no method can write code in this process (%s): change refused, tried again at the next change",
			tried[0] ? tried : "none allowed");
		return -EACCES;
	}
	if (m != first && first != POKE_UNSET && first != POKE_NONE)
		sk_warn("cannot write code through %s any more (%s): writing through %s from now on",
			method_names[first], tried, method_names[m]);
	batch_reset();		/* a direct probe's writes are not the batch's */
	return 0;
}

/* Write through /proc/self/mem, having made sure the descriptor is ours. */
static int poke_procmem(uintptr_t addr, const void *bytes, size_t len)
{
	ssize_t w;
	int err;

	if (mem_checked != sync_gen && (!alone || mem_checked == -1UL)) {
		err = open_mem();
		if (err)
			return err;
		mem_checked = sync_gen;
	}
	w = pwrite(mem.fd, bytes, len, (off_t)addr);
	if (w == (ssize_t)len)
		return 0;
	/* sk_text_poke() rechecks the descriptor */
	if (w < 0)
		return failed(-errno, "pwrite() to /proc/self/mem at %p",
			      (void *)addr);
	return failed(-EIO, "pwrite() to /proc/self/mem at %p wrote %zd of %zu bytes",
		      (void *)addr, w, len);
}

/*
 * A write that reported success may not have landed: a program thread that
 * closes descriptors can slip another file under the number between the
 * check and the write.  So every write is read back; one that did not land
 * is redone once through a descriptor opened and checked afresh.  Bytes
 * that are there already are not written again: undoing a write that never
 * landed writes nothing (and cannot fail where writing is refused).
 */
static int poke_once(uintptr_t addr, const void *bytes, size_t len);

/*
 * With @f, @bytes is a buffer that f->fill() fills from the code as it is
 * now before every attempt (a bridged write: see sk_text_poke_fill()), so
 * that a retry never puts back bytes read before someone else's write, and
 * f->landed() reads back only the bytes the write changes.
 */
static int poke_checked(uintptr_t addr, uint8_t *bytes, size_t len,
			const struct sk_fill *f)
{
	int err = 0, i;

	if (f ? !f->fill(bytes, f->arg) : !memcmp((const void *)addr, bytes, len))
		return 0;
	for (i = 0; i < POKE_TRIES; i++) {
		if (f && i && !f->fill(bytes, f->arg)) {
			nr_landed++;	/* the write before landed late */
			return 0;
		}
		err = poke_once(addr, bytes, len);
		if (!err && (f ? f->landed(bytes, f->arg) :
			     !memcmp((const void *)addr, bytes, len))) {
			nr_landed++;
			return 0;
		}
		if (!err)
			err = failed(-EIO, "the %zu bytes written at %p did not land (read back: they differ)",
				     len, (void *)addr);
		mem_checked = -1UL;	/* a fresh, checked descriptor */
		mem_doubted = true;
	}
	if ((err == -EACCES || err == -EPERM) && !write_refused) {
		size_t n = strlen(why);

		write_refused = true;
		snprintf(why + n, sizeof(why) - n,
			 " (the write method is chosen again at the next change)");
	}
	batch_failed = true;
	return err;
}

int sk_text_poke(uintptr_t addr, const void *bytes, size_t len)
{
	return poke_checked(addr, (uint8_t *)bytes, len, NULL);
}

/*
 * A bridged write: one write of @len bytes at @addr covering several sites
 * and the code between them.  f->fill() copies the code at @addr into @buf
 * and puts the sites' new bytes over it, and says whether any of them
 * differs from what the site holds (false: nothing to write); it is called
 * again, just before the write, for every retry.  f->landed() says whether
 * the sites hold their bytes of @buf after the write.  The code between
 * them is not read back: it was written with the values read just before,
 * so a comparison could only find another writer's bytes put there after
 * the library's write, which it has no reason to write over (see "Writers
 * of the same code" in Documentation/static-keys.rst); a write that did not
 * land (another file under the descriptor) left a site unchanged, and that
 * is what f->landed() sees.  Worth it only where a write costs a system
 * call.
 */
int sk_text_poke_fill(uintptr_t addr, uint8_t *buf, size_t len,
		      const struct sk_fill *f)
{
	return poke_checked(addr, buf, len, f);
}

size_t sk_text_poke_bridge_max(void)
{
	return method == POKE_PROCMEM ? SK_BRIDGE_SPAN : 0;
}

static int poke_once(uintptr_t addr, const void *bytes, size_t len)
{
	uint32_t word;

	if (sk_test_poke_hook) {
		int err = sk_test_poke_hook(addr, bytes, len);

		if (err)
			return failed(err, "the test hook failed the write at %p",
				      (void *)addr);
	}
	if (method == POKE_PROCMEM)
		return poke_procmem(addr, bytes, len);
	/* Single naturally aligned stores: a racing fetch sees old or new. */
	if (len == 1) {
		__atomic_store_n((uint8_t *)addr, *(const uint8_t *)bytes,
				 __ATOMIC_RELAXED);
	} else if (len == 4 && !(addr & 3)) {
		memcpy(&word, bytes, sizeof(word));	/* @bytes may be unaligned */
		__atomic_store_n((uint32_t *)addr, word, __ATOMIC_RELAXED);
	} else {
		memcpy((void *)addr, bytes, len);
	}
	return 0;
}

/*
 * The error a failed batch reports: a transient one as itself, a refused
 * write as EACCES (the next change chooses the method again), others EIO.
 */
int sk_text_poke_status(int err)
{
	if (transient(err) || err == -EACCES)
		return err;
	return write_refused || err == -EPERM ? -EACCES : -EIO;
}

void sk_text_poke_end(void)
{
	finish(method);
	if (write_refused && !probing)
		method = POKE_UNSET;
	write_refused = false;
}

/* ---- the order of a batch ---- */

/* End of the sorted run that starts at record @i. */
static size_t run_end(const char *q, size_t i, size_t n, size_t size)
{
	for (i++; i < n && rec_addr(q + (i - 1) * size) <= rec_addr(q + i * size);
	     i++)
		;
	return i;
}

/* Merge the sorted runs [a, m) and [m, b) of @from into @to. */
static void merge_runs(const char *from, char *to, size_t a, size_t m,
		       size_t b, size_t size)
{
	size_t i = a, j = m, k = a;

	while (i < m || j < b) {
		bool left = j >= b || (i < m && rec_addr(from + i * size) <=
						rec_addr(from + j * size));
		size_t src = left ? i++ : j++;

		memcpy(to + k++ * size, from + src * size, size);
	}
}

int sk_sort_queue(void **queue, size_t n, size_t size)
{
	char *q = *queue, *tmp;
	size_t a, m, b;
	bool merged;

	if (n < 2 || run_end(q, 0, n, size) == n)
		return 0;
	tmp = malloc(n * size);
	if (!tmp)
		return -ENOMEM;
	/* Merge neighbouring runs pairwise until one is left. */
	do {
		merged = false;
		for (a = 0; a < n; a = b) {
			m = run_end(q, a, n, size);
			b = m < n ? run_end(q, m, n, size) : m;
			merge_runs(q, tmp, a, m, b, size);
			merged |= m < n;
		}
		memcpy(q, tmp, n * size);
	} while (merged && run_end(q, 0, n, size) < n);
	free(tmp);
	return 0;
}

/* ---- core serialization ---- */

enum sync_mode { SYNC_UNSET, SYNC_CORE, SYNC_EXPEDITED, SYNC_TLB };

static enum sync_mode sync_mode;
static pid_t sync_pid;

static long membarrier(int cmd, unsigned int flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

/*
 * Register for the strongest barrier the kernel offers.  Registration
 * belongs to the address space, so a forked child registers again.
 */
static void sync_init(void)
{
	long q = membarrier(MEMBARRIER_CMD_QUERY, 0);

	sync_pid = current_pid();
	if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0))
		sync_mode = SYNC_CORE;
	else if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		 !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0))
		sync_mode = SYNC_EXPEDITED;
	else
		sync_mode = SYNC_TLB;
}

/*
 * Without membarrier: changing a page's protection makes the kernel shoot
 * down its TLB entries on every CPU running this process, with an
 * interrupt, and the return from an interrupt serializes the core.  0 only
 * if both changes were made.
 */
static int sync_by_tlb_shootdown(void)
{
	static void *page;
	long ps = sysconf(_SC_PAGESIZE);

	if (!page) {
		void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -EACCES;
		page = p;
	}
	*(volatile char *)page = 1;
	if (mprotect(page, ps, PROT_READ) ||
	    mprotect(page, ps, PROT_READ | PROT_WRITE))
		return -EACCES;
	return 0;
}

/*
 * A step that could not serialize is not counted, and the caller refuses
 * (and undoes) the update: a thread could still run bytes of the step
 * before.
 */
int sk_sync_core(void)
{
	int err = 0;

	if (sync_mode == SYNC_UNSET || sync_pid != current_pid())
		sync_init();
	switch (sync_mode) {
	case SYNC_CORE:
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0))
			err = sync_by_tlb_shootdown();
		break;
	case SYNC_EXPEDITED:
		/* The IPI's return from interrupt serializes (x86, arm64). */
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0))
			err = sync_by_tlb_shootdown();
		break;
	default:
		err = sync_by_tlb_shootdown();
		break;
	}
	if (err)
		return failed(err, "cannot serialize the threads of this process (membarrier and mprotect refused)");
	sync_gen++;
	sk_count_sync();
	return 0;
}
