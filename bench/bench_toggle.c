// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Slow-path figures for `make bench`: the time, serializing steps and sites
 * written to toggle a key with N sites, and the heap the library uses for it.
 */
/* pwrite() and pwrite64() are defined below by their own names. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <statickeys/statickeys.h>
#include "toggle.h"
#include "bench_time.h"

/* ---- heap accounting: glibc's allocator, wrapped ---- */

/*
 * Defining malloc() and friends in the executable interposes them for the
 * whole process, the library and libc included; glibc exports its own
 * under __libc_* for exactly this.  Counted in usable bytes.
 */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);

static long heap_now, heap_peak;

static void heap_add(long delta)
{
	heap_now += delta;
	if (heap_now > heap_peak)
		heap_peak = heap_now;
}

void *malloc(size_t size)
{
	void *p = __libc_malloc(size);

	if (p)
		heap_add(malloc_usable_size(p));
	return p;
}

void *calloc(size_t nmemb, size_t size)
{
	void *p = __libc_calloc(nmemb, size);

	if (p)
		heap_add(malloc_usable_size(p));
	return p;
}

void *realloc(void *ptr, size_t size)
{
	long old = ptr ? (long)malloc_usable_size(ptr) : 0;
	void *p = __libc_realloc(ptr, size);

	if (p)
		heap_add((long)malloc_usable_size(p) - old);
	else if (!size)
		heap_add(-old);
	return p;
}

void free(void *ptr)
{
	if (ptr)
		heap_add(-(long)malloc_usable_size(ptr));
	__libc_free(ptr);
}

/* ---- writes to /proc/self/mem, counted the same way ---- */

#include <dlfcn.h>

static unsigned long pwrites;
static ssize_t (*libc_pwrite64)(int, const void *, size_t, off64_t);

/*
 * The C library's own, found before main() (never from inside the library's
 * update, which holds its lock: dlsym() takes the loader's).  Not a raw
 * system call: on i386 and arm the 64-bit offset goes in two registers, and
 * syscall() cannot be given it portably.
 */
static void __attribute__((constructor)) find_pwrite64(void)
{
	libc_pwrite64 = (ssize_t (*)(int, const void *, size_t, off64_t))
		dlsym(RTLD_NEXT, "pwrite64");
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off);

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	pwrites++;
	return libc_pwrite64(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

/* ---- the sets of sites ---- */

extern const struct bench_sites *__start_bench_sets[];
extern const struct bench_sites *__stop_bench_sets[];

#define MAX_SETS	16

static const struct bench_sites *sets[MAX_SETS];
static int nr_sets;

static int cmp_set(const void *a, const void *b)
{
	const struct bench_sites *x = *(const struct bench_sites *const *)a;
	const struct bench_sites *y = *(const struct bench_sites *const *)b;

	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static void find_sets(void)
{
	const struct bench_sites **p;

	for (p = __start_bench_sets; p < __stop_bench_sets && nr_sets < MAX_SETS; p++)
		sets[nr_sets++] = *p;
	qsort(sets, nr_sets, sizeof(sets[0]), cmp_set);
}

/* Execute every site: the sum tells whether each one took the key's state. */
static int check_sites(const struct bench_sites *s, bool enabled)
{
	unsigned long i, sum = 0;

	for (i = 0; i < s->nr_fns; i++)
		sum += s->fns[i]();
	return sum == (enabled ? s->nr * (s->nr + 1) / 2 : 0);
}

/* ---- measurements ---- */

/*
 * Heap for one enable and one disable of @s, in a child so that every set
 * starts from the same state: the write method chosen and the first patch
 * queue allocated (by the warm-up toggle of the smallest set).
 */
static void measure_heap(const struct bench_sites *s)
{
	pid_t pid;
	long base;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return;
	}
	if (pid) {
		waitpid(pid, NULL, 0);
		return;
	}
	base = heap_now;
	heap_peak = heap_now;
	static_branch_enable(s->key);
	static_branch_disable(s->key);
	printf("heap %lu %ld %ld\n", s->nr, heap_peak - base, heap_now - base);
	fflush(stdout);
	_exit(0);
}

#define MAX_REPS	200

static void measure_toggle(const struct bench_sites *s)
{
	int reps = s->nr >= 10000 ? 5 : s->nr >= 1000 ? 20 : MAX_REPS;
	double on[MAX_REPS], off[MAX_REPS], con[MAX_REPS], coff[MAX_REPS];
	struct statickeys_stats a, b;
	bool ok = true;
	int r;

	unsigned long w0;

	statickeys_get_stats(&a);
	w0 = pwrites;
	for (r = 0; r < reps; r++) {
		double c0 = cpu_us(), t0 = now_us(), t1, t2, c1, c2;

		static_branch_enable(s->key);
		t1 = now_us();
		c1 = cpu_us();
		ok &= check_sites(s, true);
		c2 = cpu_us();
		t2 = now_us();
		static_branch_disable(s->key);
		off[r] = now_us() - t2;
		coff[r] = cpu_us() - c2;
		on[r] = t1 - t0;
		con[r] = c1 - c0;
		ok &= check_sites(s, false);
	}
	statickeys_get_stats(&b);
	qsort(on, reps, sizeof(on[0]), cmp_double);
	qsort(off, reps, sizeof(off[0]), cmp_double);
	qsort(con, reps, sizeof(con[0]), cmp_double);
	qsort(coff, reps, sizeof(coff[0]), cmp_double);
	printf("toggle %lu %d %.2f %.2f %.2f %.2f %s %.1f %.2f %.2f\n", s->nr, reps,
	       on[reps / 2], off[reps / 2],
	       (double)(b.sync_steps - a.sync_steps) / (2 * reps),
	       (double)(b.sites_written - a.sites_written) / (2 * reps),
	       ok ? "ok" : "not-flipped",
	       (double)(pwrites - w0) / (2 * reps), con[reps / 2], coff[reps / 2]);
}

int main(void)
{
	long start_peak = heap_peak, start_now = heap_now;
	struct statickeys_stats st;
	int i;

	find_sets();
	if (!nr_sets) {
		fprintf(stderr, "bench_toggle: no sets of sites linked in\n");
		return 1;
	}
	statickeys_get_stats(&st);
	/* Everything allocated before main(): mostly the registration. */
	printf("startup %lu %ld %ld\n", st.sites, start_peak, start_now);
#ifdef JUMP_LABEL_NOP_SIZE
	printf("entry %zu %d\n", sizeof(struct jump_entry), JUMP_LABEL_NOP_SIZE);
#else
	printf("entry %zu 0\n", sizeof(struct jump_entry));
#endif

	/* Warm-up: the first change ever chooses the write method. */
	static_branch_enable(sets[0]->key);
	static_branch_disable(sets[0]->key);
	printf("method %s\n", statickeys_text_poke_method());

	for (i = 0; i < nr_sets; i++)
		measure_heap(sets[i]);
	for (i = 0; i < nr_sets; i++)
		measure_toggle(sets[i]);
	return 0;
}
