// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The remembered queries, checked against the live ones.  Two copies of
 * the same plugin: A is loaded first and gets every query as it runs; B is
 * loaded after each random run of queries and gets what the library
 * remembered replayed (some of it forgotten as superseded).  Their sites
 * must then print the same, prefixes included.  The queries use only the
 * words both copies answer alike (file, func, format, line, or none: not
 * module, and not the m flag, which print the object's name).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/printk.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "dd.h"

#define ROUNDS		400
#define MAX_QUERIES	12

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned int pick(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static dd_plugin_fn load(const char *path, void **h)
{
	*h = dlopen(path, RTLD_NOW);
	return *h ? (dd_plugin_fn)dlsym(*h, DD_PLUGIN_ENTRY) : NULL;
}

static const char *output(dd_plugin_fn run, char *buf, size_t size)
{
	unsigned int lines[2];

	dd_capture_begin();
	run(1, lines);
	return dd_capture_end(buf, size);
}

/* A random query of the words both copies answer alike. */
static void make_query(char *q, size_t size, const unsigned int lines[2])
{
	static const char *const flags[] = { "p", "f", "l", "t", "_", "pf",
					     "pl", "pflt", "fl" };
	static const char ops[] = "+-=";
	char sel[64];

	switch (pick(7)) {
	case 0: snprintf(sel, sizeof(sel), "file dd_plugin.c"); break;
	case 1: snprintf(sel, sizeof(sel), "func plugin_one"); break;
	case 2: snprintf(sel, sizeof(sel), "func plugin_two"); break;
	case 3: snprintf(sel, sizeof(sel), "func plugin_*"); break;
	case 4: snprintf(sel, sizeof(sel), "format 'plugin one'"); break;
	case 5: snprintf(sel, sizeof(sel), "file dd_plugin.c line %u",
			 lines[pick(2)]); break;
	default: sel[0] = '\0';	/* every site of the process */
	}
	snprintf(q, size, "%s %c%s", sel, ops[pick(3)],
		 flags[pick(sizeof(flags) / sizeof(flags[0]))]);
}

int main(void)
{
	char qs[MAX_QUERIES][96], a[512], b[512];
	unsigned int lines[2];
	dd_plugin_fn run_a, run_b;
	void *ha, *hb;
	int r, i, n, bad = 0, printing = 0;

	tap_plan(1);
	run_a = load(DD_PLUGIN, &ha);
	if (!run_a) {
		tap_ok(0, "dlopen(%s): %s", DD_PLUGIN, dlerror());
		return tap_exit();
	}
	dd_capture_begin();
	run_a(0, lines);
	dd_capture_end(a, sizeof(a));
	for (r = 0; r < ROUNDS && !bad; r++) {
		n = 1 + (int)pick(MAX_QUERIES);
		for (i = 0; i < n; i++) {
			make_query(qs[i], sizeof(qs[i]), lines);
			if (dynamic_debug_exec_queries(qs[i], NULL) < 0) {
				tap_diag("round %d: \"%s\" failed", r, qs[i]);
				bad++;
			}
		}
		run_b = load(DD_PLUGIN_B, &hb);
		if (!run_b) {
			tap_diag("dlopen(%s): %s", DD_PLUGIN_B, dlerror());
			bad++;
			break;
		}
		output(run_a, a, sizeof(a));
		output(run_b, b, sizeof(b));
		printing += *a != '\0';
		if (strcmp(a, b)) {
			tap_diag("round %d: loaded from the start printed \"%s\", loaded now \"%s\"; the round's queries:",
				 r, a, b);
			for (i = 0; i < n; i++)
				tap_diag("  %s", qs[i]);
			bad++;
		}
		dlclose(hb);
	}
	/* Not a test that passes with every site silent. */
	tap_ok(!bad && printing > ROUNDS / 4,
	       "%d rounds of random queries: an object loaded after them prints as one loaded before (%d rounds printed)",
	       r, printing);
	dlclose(ha);
	return tap_exit();
}
