// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Bridged writes (x86, the procmem method): the sites of one key spread
 * over several pages go into writes that start on a page boundary, only
 * the sites are read back, and a write that did not land is noticed by its
 * sites.  pwrite() is interposed here: it records every write, and can drop
 * one or play another writer of the same code right after one lands.
 */
/* pwrite() and pwrite64() are defined here by their own names. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "arch.h"
#include "hard.h"

#define NR_FNS		16
#define PAD		600	/* bytes of never-run code after each site */
#define PAGE		4096

DEFINE_STATIC_KEY_FALSE(k_br);

#ifdef SK_TEST_X86
/*
 * Function n returns n + 1 when its site jumps.  After the site, PAD bytes
 * of INT3 that a jump steps over: code no thread runs, bridged between two
 * sites, that another writer may change.  br_pad_0 and br_pad_15 are those
 * of the first and last functions: the one lower in memory has sites after
 * it, whichever order the compiler laid the functions out in.
 */
#define PADDED(n, label)						\
static __attribute__((noinline)) int fn_##n(void)		\
{									\
	if (static_branch_unlikely(&k_br))				\
		return n + 1;						\
	asm volatile("jmp 1f\n\t" label ".skip " SK_STR(PAD) ", 0xcc\n1:"); \
	return 0;							\
}
#define SK_STR2(x)	#x
#define SK_STR(x)	SK_STR2(x)

#define PAD_LABEL(l)	".globl " #l "\n\t.hidden " #l "\n" #l ":\n\t"

extern const unsigned char br_pad_0[], br_pad_15[];
PADDED(0, PAD_LABEL(br_pad_0))
PADDED(1, "") PADDED(2, "") PADDED(3, "") PADDED(4, "") PADDED(5, "")
PADDED(6, "") PADDED(7, "") PADDED(8, "") PADDED(9, "") PADDED(10, "")
PADDED(11, "") PADDED(12, "") PADDED(13, "") PADDED(14, "")
PADDED(15, PAD_LABEL(br_pad_15))

static int (*volatile const fns[NR_FNS])(void) = {
	fn_0, fn_1, fn_2, fn_3, fn_4, fn_5, fn_6, fn_7, fn_8, fn_9, fn_10,
	fn_11, fn_12, fn_13, fn_14, fn_15,
};

static uintptr_t pad_byte(void)
{
	uintptr_t a = (uintptr_t)br_pad_0, b = (uintptr_t)br_pad_15;

	return (a < b ? a : b) + PAD / 2;
}
#define PAD_BYTE	pad_byte()
#else
#define PAD_BYTE	0
#endif

/* What a child saw, in memory shared with the parent. */
#define MAX_WRITES	64
struct result {
	char method[16];
	int writes, unaligned, sites_ok, err;
	long first_off, first_len;
	int pad_after, other_wrote;
	unsigned long runs, bad;
};
static struct result *res;

/* ---- interposed: pwrite() ---- */

static volatile int recording, drop_nth, other_nth, nr_writes;
static int other_fd = -1;

/*
 * Every write to the library's descriptor with @recording set is counted;
 * number @drop_nth reports success and writes nothing (true); after number
 * @other_nth lands, another writer changes PAD_BYTE if the write covered
 * it (played by after()).  The library may call either name (pwrite64()
 * under _FILE_OFFSET_BITS=64); both hand on to the C library's own.
 */
static bool before(int fd, size_t len, uint64_t off)
{
	if (!recording || fd == other_fd)
		return false;
	if (++nr_writes == 1) {
		res->first_off = (long)off;
		res->first_len = (long)len;
	}
	if (len > 5 && off % PAGE)
		res->unaligned++;
	return nr_writes == drop_nth;
}

static bool other_due(int fd, size_t len, uint64_t off)
{
	return recording && fd != other_fd && nr_writes == other_nth &&
	       off <= PAD_BYTE && PAD_BYTE < off + len;
}

static const unsigned char other = 0xcd;

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*next)(int, const void *, size_t, off_t);
	ssize_t w;

	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off_t))
			dlsym(RTLD_NEXT, "pwrite");
	if (before(fd, len, (uint64_t)off))
		return (ssize_t)len;
	w = next(fd, buf, len, off);
	if (other_due(fd, len, (uint64_t)off))
		res->other_wrote = next(other_fd, &other, 1,
					(off_t)PAD_BYTE) == 1;
	return w;
}

#ifdef __GLIBC__
ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	static ssize_t (*next)(int, const void *, size_t, off64_t);
	ssize_t w;

	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off64_t))
			dlsym(RTLD_NEXT, "pwrite64");
	if (before(fd, len, (uint64_t)off))
		return (ssize_t)len;
	w = next(fd, buf, len, off);
	if (other_due(fd, len, (uint64_t)off))
		res->other_wrote = next(other_fd, &other, 1,
					(off64_t)PAD_BYTE) == 1;
	return w;
}
#endif

#ifdef SK_TEST_X86
/* Every function returns what the key says. */
static int sites_follow(bool on)
{
	int i;

	for (i = 0; i < NR_FNS; i++)
		if (fns[i]() != (on ? i + 1 : 0))
			return 0;
	return 1;
}

/* One enable with the hooks as set; the writes it made. */
static int enable_recorded(void)
{
	nr_writes = 0;
	recording = 1;
	static_branch_enable(&k_br);
	recording = 0;
	res->err = statickeys_last_error();
	res->sites_ok = sites_follow(true);
	return nr_writes;
}

static volatile int stop;

/* Runs every function, the code bridged around its site included. */
static void *runner(void *arg)
{
	unsigned long runs = 0, bad = 0;
	int i, r;

	(void)arg;
	while (!stop)
		for (i = 0; i < NR_FNS; i++, runs++) {
			r = fns[i]();
			bad += r != 0 && r != i + 1;
		}
	__atomic_fetch_add(&res->runs, runs, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->bad, bad, __ATOMIC_RELAXED);
	return NULL;
}

/* 300 enables and disables while two threads run the functions. */
static int toggle_under_threads(void)
{
	pthread_t t[2];
	int i, n = 0;

	for (i = 0; i < 2; i++)
		n += !pthread_create(&t[i], NULL, runner, NULL);
	for (i = 0; i < 300 && !res->err; i++) {
		static_branch_enable(&k_br);
		static_branch_disable(&k_br);
		res->err = statickeys_last_error();
	}
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return n == 2 ? 0 : 3;
}

/*
 * Mode @arg: 0 records a plain enable, 1 drops its first write, 2 plays
 * another writer of the bridged code right after the first write, 3 runs
 * the functions in other threads while the key changes.  Each child first
 * makes one change, which chooses the write method, and one recorded
 * enable with no hook, whose count the others are compared with.
 */
static int bridge_child(void *arg)
{
	int mode = (int)(intptr_t)arg, base;

	static_branch_enable(&k_br);
	static_branch_disable(&k_br);
	snprintf(res->method, sizeof(res->method), "%s",
		 statickeys_text_poke_method());
	if (strcmp(res->method, "procmem"))
		return 77;
	if (mode == 3)
		return toggle_under_threads();
	other_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (other_fd < 0)
		return 2;
	base = enable_recorded();
	static_branch_disable(&k_br);
	drop_nth = mode == 1;
	other_nth = mode == 2;
	res->writes = enable_recorded() - base;
	res->pad_after = *(const unsigned char *)PAD_BYTE;
	return 0;
}
#endif

static void run(int mode, int *st)
{
	memset(res, 0, sizeof(*res));
#ifdef SK_TEST_X86
	*st = hard_child(bridge_child, (void *)(intptr_t)mode, 30);
#else
	(void)mode;
	*st = 77;
#endif
}

int main(void)
{
	const int checks = 4;
	int i, st;

	tap_plan(checks);
#if !defined(SK_TEST_X86) || !defined(CONFIG_JUMP_LABEL)
	for (i = 0; i < checks; i++)
		tap_skip("x86 with CONFIG_JUMP_LABEL=y: bridged writes",
			 "bridged writes %d", i + 1);
	return tap_exit();
#endif
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return 1;

	run(0, &st);
	if (st == 77) {
		for (i = 0; i < checks; i++)
			tap_skip("the write method is not procmem here",
				 "bridged writes %d", i + 1);
		return tap_exit();
	}
	tap_ok(st == 0 && !res->err && res->sites_ok && !res->unaligned &&
	       res->first_len > PAGE,
	       "%d sites %d bytes apart: every write over more than one site starts on a page boundary (%d do not; the first: %ld bytes at %#lx), every site flipped (%d, %s)",
	       NR_FNS, PAD, res->unaligned, res->first_len,
	       (unsigned long)res->first_off, res->sites_ok, hard_status(st));

	run(1, &st);
	tap_ok(st == 0 && !res->err && res->sites_ok && res->writes == 1,
	       "a bridged write that reports success and writes nothing: its sites show it, it is redone (%d more writes, want 1), every site flipped (%d, %s)",
	       res->writes, res->sites_ok, hard_status(st));

	run(2, &st);
	tap_ok(st == 0 && !res->err && res->sites_ok && res->other_wrote &&
	       res->pad_after == 0xcd && res->writes == 0,
	       "another writer changes the code between two sites right after the library's write (%d): its byte stays (%#x, want 0xcd) and nothing is written again (%d more writes), every site flipped (%d, %s)",
	       res->other_wrote, res->pad_after, res->writes, res->sites_ok,
	       hard_status(st));

	run(3, &st);
	tap_ok(st == 0 && !res->err && res->runs > 0 && !res->bad,
	       "300 enables and disables while two threads run the functions, the code around their sites rewritten as read: %lu wrong results of %lu runs (%s)",
	       res->bad, res->runs, hard_status(st));
	return tap_exit();
}
