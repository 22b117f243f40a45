// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The `make run` workload: threads making ordinary system calls (getppid,
 * write to /dev/null), trapped into the randomizing entry; prints the stack
 * offsets the handler saw, whether the register frame moved, and the cost.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/randomize_kstack.h>
#include <statickeys/entry.h>

#define MAX_DIST	(KSTACK_OFFSET_MASK / 16 + 1)

struct worker {
	pthread_t tid;
	long n;
	uintptr_t *dist;	/* frame - handler, per entry */
	long nr_dist;
	uintptr_t regs;		/* the first top-of-stack frame seen */
	long moved, nested;
};

static __thread struct worker *self;
static unsigned int path = STATICKEYS_ENTRY_DIRECT;
static int devnull;

static void record(const struct statickeys_entry_info *info, void *arg)
{
	struct worker *w = self;

	(void)arg;
	if (!w || w->nr_dist >= 2 * w->n)
		return;
	if (info->nested) {
		w->nested++;	/* a thread's first trap: no entry stack yet */
		return;
	}
	if (!w->regs)
		w->regs = (uintptr_t)info->regs;
	w->moved += w->regs != (uintptr_t)info->regs;
	w->dist[w->nr_dist++] = (uintptr_t)info->regs - (uintptr_t)info->sp;
}

/* The program's own code: nothing here knows about the entry. */
static void workload(long n)
{
	static const char line[] = "kstack workload\n";
	long i;

	for (i = 0; i < n; i++) {
		if (getppid() < 0 || write(devnull, line, sizeof(line) - 1) < 0)
			abort();
	}
}

/* The same calls where nothing traps: through the direct entry. */
static void workload_direct(long n)
{
	static const char line[] = "kstack workload\n";
	long i;

	for (i = 0; i < n; i++) {
		statickeys_entry_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
		statickeys_entry_syscall(SYS_write, devnull, (long)line,
					 sizeof(line) - 1, 0, 0, 0);
	}
}

static void *worker_main(void *arg)
{
	self = arg;
	if (path == STATICKEYS_ENTRY_SECCOMP)
		workload(self->n);
	else
		workload_direct(self->n);
	self = NULL;
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per null system call (getppid) through the entry, no hook. */
static double cost(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		if (path == STATICKEYS_ENTRY_SECCOMP)
			syscall(SYS_getppid);
		else
			statickeys_entry_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
	}
	return (now_ns() - t0) / n;
}

static void report(struct worker *w, int nw)
{
	long hist[MAX_DIST] = { 0 }, total = 0, moved = 0, nested = 0, out = 0;
	uintptr_t base = UINTPTR_MAX;
	int i, distinct = 0;
	double h = 0;
	long j;

	for (i = 0; i < nw; i++)
		for (j = 0; j < w[i].nr_dist; j++)
			if (w[i].dist[j] < base)
				base = w[i].dist[j];
	for (i = 0; i < nw; i++) {
		moved += w[i].moved;
		nested += w[i].nested;
		for (j = 0; j < w[i].nr_dist; j++) {
			uintptr_t d = w[i].dist[j] - base;

			if (d % 16 || d / 16 >= MAX_DIST) {
				out++;
				continue;
			}
			hist[d / 16]++;
			total++;
		}
	}
	for (i = 0; i < (int)MAX_DIST; i++) {
		double p = (double)hist[i] / total;

		if (hist[i]) {
			distinct++;
			h -= p * log2(p);
		}
	}
	printf("kstack:   entries %ld (+%ld first-of-thread), offsets outside the mask %ld\n",
	       total, nested, out);
	printf("kstack:   distinct offsets %d of %u, log2 %.2f bits, Shannon entropy %.2f bits\n",
	       distinct, (unsigned int)MAX_DIST, log2(distinct), h);
	printf("kstack:   register frame moved %ld times\n", moved);
}

int main(int argc, char **argv)
{
	static const long nrs[] = { SYS_getppid, SYS_write };
	int nw = argc > 1 ? atoi(argv[1]) : 4, i;
	long n = argc > 2 ? atol(argv[2]) : 5000;
	struct worker *w = calloc(nw, sizeof(*w));

	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!w || devnull < 0)
		return 1;
	if (statickeys_entry_install(nrs, 2) == 0)
		path = STATICKEYS_ENTRY_SECCOMP;
	printf("kstack: randomize_kstack_offset=%s, %s entry%s, %d threads x %ld x 2 calls\n",
	       static_key_enabled(&randomize_kstack_offset) ? "on" : "off",
	       statickeys_entry_path_name(path),
	       path == STATICKEYS_ENTRY_SECCOMP ? " (seccomp trap, SIGSYS)" :
	       " (no seccomp here)", nw, n);
	statickeys_entry_set_hook(record, NULL);
	for (i = 0; i < nw; i++) {
		w[i].n = n;
		w[i].dist = calloc(2 * n, sizeof(*w[i].dist));
		if (!w[i].dist || pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			return 1;
	}
	for (i = 0; i < nw; i++)
		pthread_join(w[i].tid, NULL);
	statickeys_entry_set_hook(NULL, NULL);
	report(w, nw);
	printf("kstack:   cost per entry %.1f ns (null system call, %s)\n",
	       cost(200000), statickeys_entry_path_name(path));
	return 0;
}
