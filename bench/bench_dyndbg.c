// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug figures for `make bench`: one query that switches the N
 * pr_debug() sites of one file (bench/gen-ddsites), against the same sites'
 * keys changed one by one, in the same run.  Each way is checked by running
 * every site and counting the lines they print.
 *   bench_dyndbg           every figure
 *   bench_dyndbg query R   R queries on and off, nothing else (for a profiler)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/dynamic_debug.h>
#include <statickeys/statickeys.h>
#include "bench_time.h"

extern void (*const bench_dd_fns[])(void);
extern const unsigned long bench_dd_nr_fns;
extern const unsigned long bench_dd_nr_sites;

#define REPS	5

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Run every generated site with stderr in a file: how many lines printed. */
static unsigned long printed(void)
{
	FILE *tmp = tmpfile();
	unsigned long lines = 0;
	int saved, c;

	fflush(stderr);
	saved = dup(2);
	if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0)
		return ~0UL;
	for (c = 0; c < (int)bench_dd_nr_fns; c++)
		bench_dd_fns[c]();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((c = getc(tmp)) != EOF)
		lines += c == '\n';
	fclose(tmp);
	return lines;
}

/* The descriptors of the generated file, found in the program's table. */
static struct _ddebug **sites(const char *file)
{
	struct _ddebug *dp, **v = calloc(bench_dd_nr_sites, sizeof(*v));
	size_t n = 0, len = strlen(file), fl;

	for (dp = (struct _ddebug *)(void *)__start___dyndbg;
	     v && dp < (struct _ddebug *)(void *)__stop___dyndbg; dp++) {
		fl = strlen(dp->filename);
		if (fl >= len && !strcmp(dp->filename + fl - len, file) &&
		    n < bench_dd_nr_sites)
			v[n++] = dp;
	}
	if (v && n != bench_dd_nr_sites) {
		fprintf(stderr, "bench_dyndbg: %zu sites of %s, not %lu\n", n, file,
			bench_dd_nr_sites);
		free(v);
		v = NULL;
	}
	return v;
}

struct way {
	double wall[2][REPS], cpu[2][REPS];
	struct statickeys_stats before, after;
	long matched;
	bool ok;
};

/* Every site on then off, @reps times, by one query each way. */
static void by_query(struct way *w, const char *file)
{
	char q[2][128];
	int r, on;

	snprintf(q[1], sizeof(q[1]), "file %s +p", file);
	snprintf(q[0], sizeof(q[0]), "file %s -p", file);
	statickeys_get_stats(&w->before);
	for (r = 0; r < REPS; r++) {
		for (on = 1; on >= 0; on--) {
			double c0 = cpu_us(), t0 = now_us();
			int ret = dynamic_debug_exec_queries(q[on], NULL);

			w->wall[on][r] = now_us() - t0;
			w->cpu[on][r] = cpu_us() - c0;
			w->matched = ret;
			w->ok &= ret == (long)bench_dd_nr_sites &&
				 printed() == (on ? bench_dd_nr_sites : 0);
		}
	}
	statickeys_get_stats(&w->after);
}

/* The same changes, one static_branch_enable() or _disable() a site. */
static void one_by_one(struct way *w, struct _ddebug **v)
{
	unsigned long i;
	int r, on;

	statickeys_get_stats(&w->before);
	for (r = 0; r < REPS; r++) {
		for (on = 1; on >= 0; on--) {
			double c0 = cpu_us(), t0 = now_us();

			for (i = 0; i < bench_dd_nr_sites; i++) {
				if (on)
					static_branch_enable(&v[i]->key.dd_key_false);
				else
					static_branch_disable(&v[i]->key.dd_key_false);
			}
			w->wall[on][r] = now_us() - t0;
			w->cpu[on][r] = cpu_us() - c0;
			w->ok &= printed() == (on ? bench_dd_nr_sites : 0);
		}
	}
	statickeys_get_stats(&w->after);
}

static void report(const char *name, struct way *w)
{
	double n = 2 * REPS;

	printf("%s %lu %d %.2f %.2f %.2f %.2f %.2f %.2f %.2f %ld %s\n", name,
	       bench_dd_nr_sites, REPS,
	       median(w->wall[1], REPS), median(w->wall[0], REPS),
	       median(w->cpu[1], REPS), median(w->cpu[0], REPS),
	       (w->after.sync_steps - w->before.sync_steps) / n,
	       (w->after.updates - w->before.updates) / n,
	       (w->after.sites_written - w->before.sites_written) / n,
	       w->matched, w->ok ? "ok" : "not-flipped");
}

int main(int argc, char **argv)
{
	struct way q = { .ok = true }, o = { .ok = true };
	struct _ddebug **v;
	char file[64];

	snprintf(file, sizeof(file), "dd_%lu.c", bench_dd_nr_sites);
	v = sites(file);
	if (!v)
		return 1;
	/* Warm-up: the first change ever chooses the write method. */
	static_branch_enable(&v[0]->key.dd_key_false);
	static_branch_disable(&v[0]->key.dd_key_false);
	if (argc == 3 && !strcmp(argv[1], "query")) {
		char on[128], off[128];
		int r;

		snprintf(on, sizeof(on), "file %s +p", file);
		snprintf(off, sizeof(off), "file %s -p", file);
		for (r = 0; r < atoi(argv[2]); r++)
			if (dynamic_debug_exec_queries(on, NULL) < 0 ||
			    dynamic_debug_exec_queries(off, NULL) < 0)
				return 1;
		return 0;
	}
	by_query(&q, file);
	one_by_one(&o, v);
	report("ddquery", &q);
	report("ddone", &o);
	free(v);
	return 0;
}
