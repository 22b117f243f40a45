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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
 */
enum poke_method { POKE_UNSET, POKE_PROCMEM, POKE_MPROTECT, POKE_NONE };

static const char *const method_names[] = {
	[POKE_UNSET] = "unset", [POKE_PROCMEM] = "procmem",
	[POKE_MPROTECT] = "mprotect", [POKE_NONE] = "none",
};

static enum poke_method method = POKE_UNSET;
static bool probing;

int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);

/*
 * The /proc/self/mem descriptor, open only for the duration of one batch:
 * between updates the library holds no descriptor a program could close,
 * reuse or mistake for its own (closefrom() in a daemon, its own
 * /proc/self/mem, a child after fork()).  Within a batch it is known by its
 * device, inode and process, checked with fstat() before the first write of
 * every step (@mem_checked is the serializing step it was last checked at):
 * a descriptor that is not ours any more is forgotten, never closed or
 * written through, and a new one is opened.
 */
#define POKE_TRIES	3	/* attempts at a write or an open */

/*
 * The process this state belongs to: getpid() is a system call, and costs
 * a few microseconds in a virtual machine; a fork() child resets it
 * (sk_text_poke_fork_child(), from the core's fork handler).
 */
static pid_t my_pid;

static pid_t current_pid(void)
{
	if (!my_pid)
		my_pid = getpid();
	return my_pid;
}

void sk_text_poke_fork_child(void)
{
	my_pid = 0;
}

static int mem_fd = -1;
static pid_t mem_fd_pid;
static dev_t mem_dev;
static ino_t mem_ino;
static unsigned long sync_gen, mem_checked = -1UL;

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

static bool mem_fd_mine(void)
{
	struct stat st;

	return mem_fd >= 0 && mem_fd_pid == current_pid() && !fstat(mem_fd, &st) &&
	       st.st_dev == mem_dev && st.st_ino == mem_ino;
}

static void close_mem(void)
{
	if (mem_fd_mine())
		close(mem_fd);
	mem_fd = -1;
}

static int open_mem_once(void)
{
	struct stat st;
	int fd;

	if (mem_fd_mine())
		return 0;
	/*
	 * Not ours any more: forgotten.  A fork() in the middle of a batch
	 * (only the patching thread itself can) leaves the child the
	 * parent's: it would write into the parent, and it is ours to close.
	 */
	if (mem_fd >= 0 && mem_fd_pid != current_pid())
		close(mem_fd);
	mem_fd = -1;
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	mem_fd = fd;
	mem_fd_pid = current_pid();
	mem_dev = st.st_dev;
	mem_ino = st.st_ino;
	return 0;
}

/* A descriptor closed under us between open() and fstat() is retried. */
static int open_mem(void)
{
	int err = 0, i;

	for (i = 0; i < POKE_TRIES && (err = open_mem_once()) == -EBADF; i++)
		;
	return err;
}

/* Flip the probe site with the candidate method and execute it. */
static bool probe_works(void)
{
	int n = sk_jump_label_update(&sk_probe_key.key, 1);
	bool flipped = n > 0 && probe_fn();

	if (n == 0)		/* the probe site is not registered: trust it */
		return true;
	n = sk_jump_label_update(&sk_probe_key.key, 0);
	return flipped && n > 0 && !probe_fn();
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

/*
 * Whether /proc/self/mem shows this process's memory at its own addresses:
 * under an emulator such as qemu-arm (a 32-bit guest) the descriptor is the
 * emulator's, whose memory holds the guest's at an offset, and a write
 * there would land in the emulator.  Only read, so nothing is ever written
 * through a descriptor that fails this.
 */
static bool procmem_is_ours(void)
{
	unsigned char direct[sizeof(long)], seen[sizeof(long)];
	uintptr_t at = (uintptr_t)&probe_fn;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	bool same;

	if (fd < 0)
		return false;
	memcpy(direct, (const void *)at, sizeof(direct));
	same = pread(fd, seen, sizeof(seen), (off_t)at) == sizeof(seen) &&
	       !memcmp(direct, seen, sizeof(seen));
	close(fd);
	return same;
}

static void select_method(void)
{
	enum poke_method forced = forced_method();
	enum poke_method m;

	probing = true;
	for (m = POKE_PROCMEM; m <= POKE_MPROTECT; m++) {
		if (forced != POKE_UNSET && m != forced)
			continue;
		if (m == POKE_PROCMEM && !procmem_is_ours())
			continue;
		method = m;
		if (probe_works())
			break;
	}
	probing = false;
	if (m > POKE_MPROTECT) {
		method = POKE_NONE;
		sk_warn("no method can write code in this process (tried %s): every key change will be refused",
			forced != POKE_UNSET ? method_names[forced]
					     : "procmem, mprotect");
	}
}

/**
 * sk_text_poke_ready() - choose the write method on first use.  Called with
 * the jump-label lock held, before anything is queued.
 */
int sk_text_poke_ready(void)
{
	if (method == POKE_UNSET && !probing)
		select_method();
	return method == POKE_NONE ? -EACCES : 0;
}

const char *sk_text_poke_method(void)
{
	return method_names[method];
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
		return -EFAULT;
	start &= ~(uintptr_t)(ps - 1);
	end = (end + ps - 1) & ~(uintptr_t)(ps - 1);
	for (i = 0; i < nr_open; i++)
		if (open_segs[i].start == start) {
			*last = &open_segs[i];
			return 0;
		}
	if (nr_open == cap)
		return -ENOMEM;
	if (mprotect((void *)start, end - start, prot | PROT_WRITE))
		return -errno;
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
		return -ENOMEM;
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

/*
 * Prepare to write a batch.  A method that worked when it was chosen can stop
 * working (a seccomp filter, a no-W^X policy, a non-dumpable process): say
 * why, and refuse the change with EACCES, as when no method worked at all.
 */
int sk_text_poke_begin(const void *sites, size_t n, size_t stride, size_t len)
{
	int err;

	switch (method) {
	case POKE_PROCMEM:
		err = open_mem();
		mem_checked = sync_gen;
		break;
	case POKE_MPROTECT:
		err = open_segments_for(sites, n, stride, len);
		break;
	default:
		return -EACCES;
	}
	if (!err || err == -ENOMEM)
		return err;
	sk_warn("cannot write code through %s (%s): change refused",
		method_names[method], strerror(-err));
	return -EACCES;
}

/* Write through /proc/self/mem, having made sure the descriptor is ours. */
static int poke_procmem(uintptr_t addr, const void *bytes, size_t len)
{
	ssize_t w;
	int err;

	if (mem_checked != sync_gen) {
		err = open_mem();
		if (err)
			return err;
		mem_checked = sync_gen;
	}
	w = pwrite(mem_fd, bytes, len, (off_t)addr);
	if (w == (ssize_t)len)
		return 0;
	return w < 0 ? -errno : -EIO;	/* sk_text_poke() rechecks the descriptor */
}

/*
 * A write that reported success may not have landed: a program thread that
 * closes descriptors can slip another file under the number between the
 * check and the write.  So every write is read back; one that did not land
 * is redone once through a descriptor opened and checked afresh.
 */
static int poke_once(uintptr_t addr, const void *bytes, size_t len);

int sk_text_poke(uintptr_t addr, const void *bytes, size_t len)
{
	int err = 0, i;

	for (i = 0; i < POKE_TRIES; i++) {
		err = poke_once(addr, bytes, len);
		if (!err && !memcmp((const void *)addr, bytes, len))
			return 0;
		if (!err)
			err = -EIO;
		mem_checked = -1UL;	/* a fresh, checked descriptor */
	}
	return err;
}

static int poke_once(uintptr_t addr, const void *bytes, size_t len)
{
	uint32_t word;

	if (sk_test_poke_hook) {
		int err = sk_test_poke_hook(addr, bytes, len);

		if (err)
			return err;
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

void sk_text_poke_end(void)
{
	if (method == POKE_MPROTECT)
		restore_segments();
	else if (method == POKE_PROCMEM)
		close_mem();
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
	if (err) {
		sk_warn("cannot serialize the threads of this process (membarrier and mprotect refused): change refused");
		return err;
	}
	sync_gen++;
	sk_count_sync();
	return 0;
}
