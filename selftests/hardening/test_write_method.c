// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * How bytes reach the code when the process changes under the library: a
 * daemon that drops root, a resource missing for one change, a sandbox that
 * forbids the write in use, a descriptor swapped in the middle of an update,
 * a write that says it landed and did not.  Linked with the static library
 * (its hidden step hook); malloc(), realloc() and pwrite() are interposed
 * here.  Every case runs in a fresh child, whose first change chooses the
 * write method, and is checked by executing the site.
 */
/* pwrite() and pwrite64() are defined here by their own names. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "../ro/capture.h"
#include "hard.h"
#include "libc.h"
#include "site.h"

extern void (*sk_test_step_hook)(int step);
#ifdef SK_TEST_X86
extern unsigned long sk_stuck_sites;
#define STEPS	3
#else
static unsigned long sk_stuck_sites;
#define STEPS	1
#endif

DEFINE_STATIC_KEY_FALSE(k_w);
SITE(s_w, static_branch_unlikely(&k_w))
static int (*volatile run_w)(void) = s_w;

/* What a child saw, in memory shared with the parent. */
struct result {
	int err[4], site[4];
	char method[2][16];
	char msg[1024];
	long n;
};
static struct result *res;

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)run_w();
}

/* The site, run in this thread and in a new one: 0 or 1, -1 if they differ. */
static int site_now(void)
{
	pthread_t t;
	void *v;
	int here = run_w();

	if (pthread_create(&t, NULL, thread_main, NULL))
		return -2;
	pthread_join(t, &v);
	return (int)(intptr_t)v == here ? here : -1;
}

/* One change; its error and the site afterwards in slot @i. */
static void change(int i, bool on)
{
	if (on)
		static_branch_enable(&k_w);
	else
		static_branch_disable(&k_w);
	res->err[i] = statickeys_last_error();
	res->site[i] = site_now();
}

/* capture_end(), keeping the text for the parent. */
static void keep_captured(void)
{
	capture_end();
	snprintf(res->msg, sizeof(res->msg), "%s", captured);
}

static void method(int i)
{
	snprintf(res->method[i], sizeof(res->method[i]), "%s",
		 statickeys_text_poke_method());
}

/* ---- interposed: the allocator, and pwrite() ---- */

/*
 * A sanitizer owns malloc(): replacing it there would mix allocators; musl
 * has no __libc_malloc() to hand the calls on to.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED	"a sanitizer owns malloc()"
#elif defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#  define SANITIZED	"a sanitizer owns malloc()"
# endif
#endif
#if !defined(SANITIZED) && !defined(__GLIBC__)
#define SANITIZED	SK_LIBC_NAME ": no __libc_malloc() to wrap"
#endif

static volatile int fail_allocs;	/* while set, allocations fail */

#ifndef SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (fail_allocs) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *realloc(void *p, size_t n)
{
	if (fail_allocs) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}
#endif

/*
 * pwrite number drop_nth (from 1) reports success and writes nothing.  The
 * library may call either name (glibc's pwrite64() under
 * _FILE_OFFSET_BITS=64); both count, and hand on to the C library's own.
 */
static volatile int drop_nth, nr_pwrites;

static bool dropped(void)
{
	return drop_nth && ++nr_pwrites == drop_nth;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*next)(int, const void *, size_t, off_t);

	if (dropped())
		return (ssize_t)len;
	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off_t))
			dlsym(RTLD_NEXT, "pwrite");
	return next(fd, buf, len, off);
}

#ifdef __GLIBC__
ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	static ssize_t (*next)(int, const void *, size_t, off64_t);

	if (dropped())
		return (ssize_t)len;
	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off64_t))
			dlsym(RTLD_NEXT, "pwrite64");
	return next(fd, buf, len, off);
}
#endif

/* ---- the method a fresh process chooses here ---- */

static char baseline[16];

static int baseline_child(void *arg)
{
	(void)arg;
	change(0, true);
	method(0);
	return res->err[0] || res->site[0] != 1;
}

static void run(int (*fn)(void *), void *arg, int *st)
{
	memset(res, 0, sizeof(*res));
	*st = hard_child(fn, arg, 30);
	if (res->msg[0])
		printf("# stderr: %s", res->msg);
}

/* ---- 1. a daemon that drops root ---- */

static int drop_root(void)
{
	return setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534);
}

static int drop_child(void *arg)
{
	int i;

	(void)arg;
	change(0, true);		/* the method is chosen as root */
	change(1, false);
	method(0);
	if (drop_root())
		return 2;
	if (!freopen("/dev/null", "w", stderr))
		return 3;
	for (i = 0; i < 20; i++) {
		change(2, true);
		if (res->err[2] || res->site[2] != 1)
			break;
		change(3, false);
		if (res->err[3] || res->site[3] != 0)
			break;
	}
	res->n = i;
	method(1);
	return 0;
}

/*
 * STATICKEYS_TEXT_POKE=procmem: the program asked for /proc/self/mem only.
 * The descriptor held from before the drop still writes (it was opened
 * while the file was the process's); once it is gone, the file is root's:
 * refused, said so, and the way out named; once the program makes itself
 * dumpable again, changes work.
 */
static int drop_forced_child(void *arg)
{
	int fd = -1;

	(void)arg;
	setenv("STATICKEYS_TEXT_POKE", "procmem", 1);
	change(0, true);
	method(0);
	if (strcmp(res->method[0], "procmem"))
		return 0;	/* no procmem here (qemu-arm): the caller skips */
	/* Before the drop: nobody may have no /tmp to write (check-vm's guest). */
	capture_begin();
	if (drop_root())
		return 2;
	change(1, false);
	if (!hard_held_fd("mem", &fd) || close(fd))
		return 4;
	change(2, true);
	keep_captured();
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 3;
	change(3, true);
	method(1);
	return 0;
}

static void test_privilege_drop(void)
{
	int st;

	if (geteuid()) {
		tap_skip("not root", "changes after setresuid() to nobody");
		tap_skip("not root", "STATICKEYS_TEXT_POKE=procmem after setresuid()");
		return;
	}
	run(drop_child, NULL, &st);
	tap_ok(st == 0 && res->n == 20 && !res->err[0] && res->site[0] == 1 &&
	       !res->err[1] && res->site[1] == 0,
	       "setresuid() to nobody after the first change: %ld of 20 on/off pairs went through and flipped the site (errors %d/%d, site %d/%d), method %s then %s (%s)",
	       res->n, res->err[2], res->err[3], res->site[2], res->site[3],
	       res->method[0], res->method[1], hard_status(st));
	run(drop_forced_child, NULL, &st);
	if (st == 0 && strcmp(res->method[0], "procmem")) {
		tap_skip("procmem does not work here",
			 "STATICKEYS_TEXT_POKE=procmem after setresuid()");
		return;
	}
	tap_ok(st == 0 && !res->err[1] && res->site[1] == 0 &&
	       res->err[2] == EACCES && res->site[2] == 0 &&
	       strstr(res->msg, "dumpable") && !res->err[3] && res->site[3] == 1,
	       "STATICKEYS_TEXT_POKE=procmem, root dropped: the held descriptor still writes (%d, site %d); once closed, refused with EACCES (%d), site kept (%d), the message names dumpability; after PR_SET_DUMPABLE the change works (%d, site %d) (%s)",
	       res->err[1], res->site[1], res->err[2], res->site[2],
	       res->err[3], res->site[3], hard_status(st));
}

/* ---- 2. a resource missing for one change ---- */

/* After a change that failed for want of something: two that must work. */
static void recover(void)
{
	change(1, true);
	change(2, false);
	method(0);
}

#ifndef SANITIZED
static int nomem_child(void *arg)
{
	(void)arg;
	capture_begin();
	fail_allocs = 1;
	static_branch_enable(&k_w);
	res->err[0] = statickeys_last_error();
	fail_allocs = 0;
	res->site[0] = site_now();
	keep_captured();
	recover();
	return 0;
}
#endif

static int nofile_child(void *arg)
{
	struct rlimit old, rl;
	int fd = dup(0);

	(void)arg;
	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &old))
		return 2;
	close(fd);
	rl = old;
	rl.rlim_cur = (rlim_t)fd;	/* the next open() fails */
	capture_begin();
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 3;
	change(0, true);
	setrlimit(RLIMIT_NOFILE, &old);
	keep_captured();
	recover();
	return 0;
}

static void test_transient(void)
{
	int st;

#ifdef SANITIZED
	tap_skip(SANITIZED, "no memory during the first change");
	tap_skip(SANITIZED, "memory back: the next changes work");
#else
	run(nomem_child, NULL, &st);
	tap_ok(st == 0 && res->err[0] == ENOMEM && res->site[0] == 0 &&
	       !strstr(res->msg, "expected instruction") &&
	       strstr(res->msg, "memory"),
	       "no memory during the first change: ENOMEM (%d), site kept (%d), said as such (%s)",
	       res->err[0], res->site[0], hard_status(st));
	tap_ok(st == 0 && !res->err[1] && res->site[1] == 1 && !res->err[2] &&
	       res->site[2] == 0 && !strcmp(res->method[0], baseline),
	       "memory back: the next changes work (%d/%d, site %d/%d) and choose %s again (%s)",
	       res->err[1], res->err[2], res->site[1], res->site[2],
	       res->method[0], baseline);
#endif
	run(nofile_child, NULL, &st);
	tap_ok(st == 0 && res->err[0] == EMFILE && res->site[0] == 0 &&
	       !res->err[1] && res->site[1] == 1 && !res->err[2] &&
	       res->site[2] == 0 && !strcmp(res->method[0], baseline),
	       "no descriptor free during the first change: EMFILE (%d), site kept (%d); then the changes work (%d/%d) with %s as a fresh process chooses (%s) (%s)",
	       res->err[0], res->site[0], res->err[1], res->err[2],
	       res->method[0], baseline, hard_status(st));
}

/* ---- 3. a sandbox that forbids the write in use ---- */

static int nowrite_child(void *arg)
{
	const int nrs[] = { __NR_pwrite64 };

	(void)arg;
	change(0, true);
	method(0);
	if (strcmp(res->method[0], "procmem"))
		return 77;
	capture_begin();
	if (hard_deny(nrs, 1, EPERM)) {
		capture_end();
		return 78;
	}
	change(1, false);
	keep_captured();
	res->n = (long)sk_stuck_sites;
	change(2, false);
	change(3, true);
	method(1);
	return 0;
}

static void test_write_refused(void)
{
	int st;

	run(nowrite_child, NULL, &st);
	if (st == 77 || st == 78) {
		tap_skip(st == 77 ? "the write method is not procmem here" :
			 "no seccomp here",
			 "pwrite() refused by seccomp: refused, said so");
		tap_skip(st == 77 ? "the write method is not procmem here" :
			 "no seccomp here",
			 "pwrite() refused by seccomp: the next change works");
		return;
	}
	tap_ok(st == 0 && res->err[1] == EACCES && res->site[1] == 1 &&
	       !res->n && strstr(res->msg, "pwrite") &&
	       !strstr(res->msg, "emulated"),
	       "pwrite() refused by seccomp: EACCES (%d), site kept (%d), nothing left emulated (%ld), the message names pwrite (%s)",
	       res->err[1], res->site[1], res->n, hard_status(st));
	tap_ok(st == 0 && !res->err[2] && res->site[2] == 0 && !res->err[3] &&
	       res->site[3] == 1 && !strcmp(res->method[1], "mprotect"),
	       "pwrite() refused by seccomp: the next changes work (%d/%d, site %d/%d) through %s",
	       res->err[2], res->err[3], res->site[2], res->site[3],
	       res->method[1]);
}

/* ---- 4. a descriptor swapped in the middle of an update ---- */

static int swap_file = -1, swapped_fd = -1;

/* The library's /proc/self/mem descriptor: its link names this process. */
static int library_mem_fd(void)
{
	int fd = -1;

	hard_held_fd("mem", &fd);
	return fd;
}

static void swap_hook(int step)
{
	if (step != 1)
		return;
	swapped_fd = library_mem_fd();
	if (swapped_fd >= 0)
		dup2(swap_file, swapped_fd);
}

/* A thread that only waits, until its pipe is closed. */
static void *idle_thread(void *arg)
{
	char c;

	return read((int)(intptr_t)arg, &c, 1) < 0 ? NULL : arg;
}

/*
 * With @arg, another thread is alive during the change: the descriptor is
 * looked at before every step, and the file put on its number is never
 * written.  Without, the process is alone: the descriptor is trusted for
 * the change (only a signal handler could swap it, which the rules for
 * programs forbid); the step after the swap writes into the file, the
 * read-back notices, and the library opens its own again, leaving the
 * program's descriptor open.
 */
static int swap_child(void *arg)
{
	char path[64];
	struct stat st;
	pthread_t t;
	int idle[2];

	/* tmpfs takes a write at any offset, such as a code address */
	snprintf(path, sizeof(path), "%s/statickeys-swap-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	change(0, true);
	change(0, false);
	method(0);
	if (strcmp(res->method[0], "procmem") || STEPS == 1)
		return 77;
	swap_file = mkstemp(path);
	if (swap_file < 0)
		return 2;
	unlink(path);
	if (arg && (pipe(idle) ||
		    pthread_create(&t, NULL, idle_thread, (void *)(intptr_t)idle[0])))
		return 6;
	sk_test_step_hook = swap_hook;
	change(1, true);
	sk_test_step_hook = NULL;
	if (arg) {
		close(idle[1]);
		pthread_join(t, NULL);
	}
	if (swapped_fd < 0)
		return 3;
	if (fstat(swap_file, &st))
		return 4;
	res->n = (long)st.st_size;
	change(2, false);
	return fcntl(swapped_fd, F_GETFD) < 0 ? 5 : 0;	/* still the program's */
}

static void test_swapped_descriptor(void)
{
	int st;

	run(swap_child, (void *)"thread", &st);
	if (st == 77) {
		tap_skip("x86 with procmem only (three steps, a descriptor)",
			 "descriptor swapped mid-update: the file is untouched");
		tap_skip("x86 with procmem only (three steps, a descriptor)",
			 "descriptor swapped mid-update, no other thread");
		return;
	}
	tap_ok(st == 0 && res->n == 0 && !res->err[1] && res->site[1] == 1 &&
	       !res->err[2] && res->site[2] == 0,
	       "descriptor swapped for a file by dup2() between two steps, another thread alive: the file is untouched (%ld bytes), the change works (%d, site %d) (%s)",
	       res->n, res->err[1], res->site[1], hard_status(st));
	run(swap_child, NULL, &st);
	tap_ok(st == 0 && !res->err[1] && res->site[1] == 1 && !res->err[2] &&
	       res->site[2] == 0,
	       "the same with no other thread (a signal handler's doing, against the rules): the change works (%d, site %d; the file got %ld bytes), the program's descriptor stays open, the next change works (%d, site %d) (%s)",
	       res->err[1], res->site[1], res->n, res->err[2], res->site[2],
	       hard_status(st));
}

/* ---- 5. a write that says it landed and did not ---- */

static int lost_child(void *arg)
{
	int writes;

	(void)arg;
	change(0, true);
	change(0, false);
	method(0);
	if (strcmp(res->method[0], "procmem"))
		return 77;
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	nr_pwrites = 0;
	drop_nth = STEPS;		/* the last write of the update */
	change(1, true);
	writes = nr_pwrites;
	drop_nth = 0;
	res->n = writes;
	change(2, false);
	return 0;
}

static void test_lost_write(void)
{
	int st;

	run(lost_child, NULL, &st);
	if (st == 77) {
		tap_skip("the write method is not procmem here",
			 "a pwrite() that reports success and writes nothing");
		return;
	}
	tap_ok(st == 0 && !res->err[1] && res->site[1] == 1 &&
	       res->n == STEPS + 1 && !res->err[2] && res->site[2] == 0,
	       "the last pwrite() of an update reports success and writes nothing: noticed and redone (%ld writes, want %d), the change works (%d, site %d) (%s)",
	       res->n, STEPS + 1, res->err[1], res->site[1], hard_status(st));
}

int main(void)
{
	const int checks = 10;
	int i, st;

	tap_plan(checks);
	if (!IS_ENABLED(CONFIG_JUMP_LABEL)) {
		for (i = 0; i < checks; i++)
			tap_skip("CONFIG_JUMP_LABEL=n: nothing is patched",
				 "write methods %d", i + 1);
		return tap_exit();
	}
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return 1;
	st = hard_child(baseline_child, NULL, 30);
	snprintf(baseline, sizeof(baseline), "%s", res->method[0]);
	tap_diag("a fresh process chooses %s (%s)", baseline, hard_status(st));
	test_privilege_drop();
	test_transient();
	test_write_refused();
	test_swapped_descriptor();
	test_lost_write();
	return tap_exit();
}
