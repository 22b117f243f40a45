// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug at run time: every keyword and flag of the query language,
 * the output prefixes, several queries in one call, bad queries (the wrong
 * word named, nothing changed), one batch per call, and a dlopen()ed object
 * that gets the queries run before it was loaded, which stay remembered
 * one per selection however many calls switch it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/printk.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "dd.h"

/*
 * The five sites, one a line, each in a function of its own that records
 * the site's line (the line of the macro's use).
 */
#define DD_SITE(name, fmt)						\
	static unsigned int line_##name;				\
	static void site_##name(int v)					\
	{								\
		line_##name = __LINE__;					\
		pr_debug(fmt, v);					\
	}

DD_SITE(alpha, "alpha %d\n")
DD_SITE(beta, "beta %d\n")
DD_SITE(gamma, "gamma %d\n")
DD_SITE(tab, "tab\there %d\n")
DD_SITE(words, "two words %d\n")

#define NR_SITES	5

static char out[4096];

/* Run every site of this file with @v; return what they printed. */
static const char *run_all(int v)
{
	dd_capture_begin();
	site_alpha(v);
	site_beta(v);
	site_gamma(v);
	site_tab(v);
	site_words(v);
	return dd_capture_end(out, sizeof(out));
}

/* @s on one line, for a TAP description: a newline shows as \n. */
static const char *oneline(const char *s)
{
	static char buf[256];
	size_t i = 0;

	for (; *s && i < sizeof(buf) - 3; s++) {
		if (*s == '\n') {
			buf[i++] = '\\';
			buf[i++] = 'n';
		} else {
			buf[i++] = *s;
		}
	}
	buf[i] = '\0';
	return buf;
}

static int q(const char *query)
{
	return dynamic_debug_exec_queries(query, NULL);
}

static void reset(void)
{
	q("module test_dyndbg =_");
}

/* @query matches @n sites and then the sites print exactly @want. */
static void check(const char *query, int n, const char *want)
{
	int ret;
	const char *got;

	reset();
	ret = q(query);
	got = run_all(1);
	if (!tap_ok(ret == n && !strcmp(got, want), "\"%s\": %d site(s), prints the expected",
		    oneline(query), n))
		tap_diag("returned %d; printed \"%s\", expected \"%s\"", ret, got, want);
}

#define ALL	"alpha 1\nbeta 1\ngamma 1\ntab\there 1\ntwo words 1\n"

/* The queries with no line number in them. */
static const struct {
	const char *query;
	int n;
	const char *want;
} plain[] = {
	{ "func site_alpha +p", 1, "alpha 1\n" },
	{ "func site_* +p", NR_SITES, ALL },
	{ "func site_?eta +p", 1, "beta 1\n" },
	{ "file test_dyndbg.c +p", NR_SITES, ALL },
	{ "file selftests/dyndbg/test_dyndbg.c +p", NR_SITES, ALL },
	{ "file other.c +p", 0, "" },
	{ "file test_dyndbg.c:site_gamma +p", 1, "gamma 1\n" },
	{ "module test_dyndbg +p", NR_SITES, ALL },
	{ "module test_dyn* +p", NR_SITES, ALL },
	{ "module nosuch +p", 0, "" },
	{ "format beta +p", 1, "beta 1\n" },
	{ "format ^gam +p", 1, "gamma 1\n" },
	{ "format ^amma +p", 0, "" },
	{ "format 'two words' +p", 1, "two words 1\n" },
	{ "format \"o w\" +p", 1, "two words 1\n" },
	{ "format tab\\there +p", 1, "tab\there 1\n" },
	{ "format tab\\011here +p", 1, "tab\there 1\n" },
	{ "func site_alpha +p; func site_beta +p\nfunc site_gamma +p", 3,
	  "alpha 1\nbeta 1\ngamma 1\n" },
	{ " ; # a comment\n", 0, "" },
};

static void test_keywords(void)
{
	char buf[256];
	size_t i;

	run_all(0);	/* learn the lines */
	tap_ok(!*run_all(1), "no site prints before a query");
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		check(plain[i].query, plain[i].n, plain[i].want);
	snprintf(buf, sizeof(buf), "file test_dyndbg.c:%u-%u +p", line_beta, line_gamma);
	check(buf, 2, "beta 1\ngamma 1\n");
	snprintf(buf, sizeof(buf), "line %u +p", line_alpha);
	check(buf, 1, "alpha 1\n");
	snprintf(buf, sizeof(buf), "line %u-%u +p", line_alpha, line_beta);
	check(buf, 2, "alpha 1\nbeta 1\n");
	snprintf(buf, sizeof(buf), "file test_dyndbg.c line -%u +p", line_beta);
	check(buf, 2, "alpha 1\nbeta 1\n");
	snprintf(buf, sizeof(buf), "file test_dyndbg.c line %u- +p", line_tab);
	check(buf, 2, "tab\there 1\ntwo words 1\n");
	snprintf(buf, sizeof(buf), "module test_dyndbg file test_dyndbg.c func site_alpha format alpha line %u +p",
		 line_alpha);
	check(buf, 1, "alpha 1\n");
}

static void test_flags(void)
{
	char want[256];
	long tid = (long)syscall(SYS_gettid);

	check("func site_alpha +pm", 1, "test_dyndbg: alpha 1\n");
	check("func site_alpha +pf", 1, "site_alpha: alpha 1\n");
	snprintf(want, sizeof(want), "%u: alpha 1\n", line_alpha);
	check("func site_alpha +pl", 1, want);
	snprintf(want, sizeof(want), "[%ld] alpha 1\n", tid);
	check("func site_alpha +pt", 1, want);
	snprintf(want, sizeof(want), "[%ld] test_dyndbg:site_alpha:%u: alpha 1\n",
		 tid, line_alpha);
	check("func site_alpha =pmflt", 1, want);

	/* - takes away only its letters, = replaces, _ is none. */
	q("func site_alpha -f");
	snprintf(want, sizeof(want), "[%ld] test_dyndbg:%u: alpha 1\n", tid, line_alpha);
	tap_ok(!strcmp(run_all(1), want), "-f takes away the function only");
	q("func site_alpha -p");
	tap_ok(!*run_all(1), "-p silences, the other letters stay");
	q("func site_alpha +p");
	tap_ok(!strcmp(run_all(1), want), "+p brings back the same prefix");
	q("func site_alpha =p");
	tap_ok(!strcmp(run_all(1), "alpha 1\n"), "=p replaces every letter");
	q("func site_alpha =_");
	tap_ok(!*run_all(1), "=_ clears every letter");
	q("func site_alpha =mflt");
	tap_ok(!*run_all(1), "prefix letters without p print nothing");
}

static void test_modname(void)
{
	char buf[64];
	int ret;

	reset();
	ret = dynamic_debug_exec_queries("func site_beta +p", "test_dyndbg");
	tap_ok(ret == 1 && !strcmp(run_all(2), "beta 2\n"),
	       "dynamic_debug_exec_queries(q, \"test_dyndbg\") applies q to this object");
	ret = dynamic_debug_exec_queries("+p", "nosuch");
	tap_ok(ret == 0 && !strcmp(run_all(2), "beta 2\n"),
	       "dynamic_debug_exec_queries(q, \"nosuch\") touches nothing here");
	strcpy(buf, "format alpha +p");
	ret = ddebug_exec_queries(buf, NULL);
	tap_ok(ret == 1 && !strcmp(run_all(2), "alpha 2\nbeta 2\n") &&
	       !strcmp(buf, "format alpha +p"),
	       "ddebug_exec_queries() runs its query and leaves the buffer alone");
	tap_ok(dynamic_debug_exec_queries(NULL, NULL) == -EINVAL,
	       "a NULL query is -EINVAL");
}

static const struct {
	const char *query, *word;
	int err;
} bad[] = {
	{ "funk site_beta +p", "\"funk\"", -EINVAL },
	{ "func site_beta +x", "'x'", -EINVAL },
	{ "func site_beta +pq", "'q'", -EINVAL },
	{ "func site_beta p", "\"p\"", -EINVAL },
	{ "func site_beta", "\"site_beta\"", -EINVAL },
	{ "+p func", "\"func\"", -EINVAL },
	{ "line 9-3 +p", "\"9-3\"", -EINVAL },
	{ "line x +p", "\"x\"", -EINVAL },
	{ "line 0 +p", "\"0\"", -EINVAL },
	{ "line 5 line 6 +p", "\"line\"", -EINVAL },
	{ "func a func b +p", "\"func\"", -EINVAL },
	{ "file a file b +p", "\"file\"", -EINVAL },
	{ "module a module b +p", "\"module\"", -EINVAL },
	{ "format a format b +p", "\"format\"", -EINVAL },
	{ "format 'unclosed +p", "'unclosed +p", -EINVAL },
	{ "class foo +p", "\"class\"", -EINVAL },
	{ "func site_beta +p; bogus x +p", "\"bogus\"", -EINVAL },
	{ "func site_beta +p\nfunc site_gamma =z", "'z'", -EINVAL },
	{ "func a file b module c format d line 1 func e +p", "too many words", -E2BIG },
};

static void test_bad(void)
{
	char msg[1024];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		reset();
		q("func site_alpha +p");
		dd_capture_begin();
		ret = q(bad[i].query);
		dd_capture_end(msg, sizeof(msg));
		if (!tap_ok(ret == bad[i].err && strstr(msg, bad[i].word) &&
			    !strcmp(run_all(3), "alpha 3\n"),
			    "bad \"%s\": %d, names %s, nothing changed",
			    oneline(bad[i].query), bad[i].err, bad[i].word))
			tap_diag("returned %d, said \"%s\"", ret, msg);
	}
}

/* One query that switches many sites costs the serializing steps of one. */
static void test_batch(void)
{
	struct statickeys_stats s0, s1, s2, s3;
	unsigned long one, all;

	reset();
	statickeys_get_stats(&s0);
	q("func site_alpha +p");
	statickeys_get_stats(&s1);
	reset();
	statickeys_get_stats(&s2);
	tap_ok(q("module test_dyndbg +p") == NR_SITES, "one query switches %d sites", NR_SITES);
	statickeys_get_stats(&s3);
	one = s1.sync_steps - s0.sync_steps;
	all = s3.sync_steps - s2.sync_steps;
#ifdef CONFIG_JUMP_LABEL
	if (!tap_ok(one > 0 && all == one && s3.sites_written - s2.sites_written == NR_SITES,
		    "the query is one batch: %lu serializing steps for %d sites, as for one",
		    all, NR_SITES))
		tap_diag("one site: %lu steps; %d sites: %lu steps, %lu sites written",
			 one, NR_SITES, all, s3.sites_written - s2.sites_written);
#else
	(void)one;
	(void)all;
	tap_skip("no CONFIG_JUMP_LABEL", "the query is one batch");
#endif
	reset();
}

static void test_dlopen(void)
{
	unsigned int lines[2];
	dd_plugin_fn run;
	char buf[256];
	void *h;

	tap_ok(q("func plugin_one +p") == 0, "a query for a plugin not loaded matches nothing");
	q("module libdd_plugin +m");
	q("file dd_plugin.c +pf");
	q("func plugin_two -p");
	h = dlopen(DD_PLUGIN, RTLD_NOW);
	run = h ? (dd_plugin_fn)dlsym(h, DD_PLUGIN_ENTRY) : NULL;
	if (!run) {
		tap_ok(0, "dlopen(%s): %s", DD_PLUGIN, dlerror());
		return;
	}
	dd_capture_begin();
	run(7, lines);
	dd_capture_end(buf, sizeof(buf));
	if (!tap_ok(!strcmp(buf, "libdd_plugin:plugin_one: plugin one 7\n"),
		    "the dlopen()ed object got the queries run before, in order"))
		tap_diag("printed \"%s\"", buf);
	tap_ok(q("module libdd_plugin =_") == 2, "its two sites are there for queries");
	dlclose(h);
	h = dlopen(DD_PLUGIN, RTLD_NOW);
	run = h ? (dd_plugin_fn)dlsym(h, DD_PLUGIN_ENTRY) : NULL;
	if (!run) {
		tap_ok(0, "dlopen again: %s", dlerror());
		return;
	}
	dd_capture_begin();
	run(8, lines);
	dd_capture_end(buf, sizeof(buf));
	tap_ok(!*buf, "loaded again, it replays every query, the last one too (=_)");
	snprintf(buf, sizeof(buf), "module libdd_plugin line %u +pl", lines[1]);
	q(buf);
	dd_capture_begin();
	run(9, lines);
	dd_capture_end(buf, sizeof(buf));
	snprintf(out, sizeof(out), "%u: plugin two 9\n", lines[1]);
	tap_ok(!strcmp(buf, out), "a line query reaches the reloaded object");
	dlclose(h);
}

/*
 * A program whose debug output is switched on and off all its life (a
 * daemon, through its control channel) must not hold a remembered query
 * for every call: a call that sets every flag an earlier one set, on the
 * same sites, replaces it.  And an object loaded after thousands of such
 * calls still comes up in the state the last one left.
 */
static void test_remembered(void)
{
	unsigned int lines[2];
	dd_plugin_fn run;
	char buf[256];
	void *h;
	int i;

	for (i = 0; i < 100; i++) {	/* the library's own arrays settle */
		q("func plugin_two +p");
		q("func plugin_two -p");
	}
#ifdef __GLIBC__
	{
		size_t before = mallinfo2().uordblks;
		long grew;

		for (i = 0; i < 5000; i++) {
			q("func plugin_two +p");
			q("func plugin_two -p");
		}
		grew = (long)(mallinfo2().uordblks - before);
		tap_ok(grew < 4096, "10000 calls switching one function on and off hold no more memory: %ld bytes more",
		       grew);
	}
#else
	tap_skip("mallinfo2() is glibc's", "10000 calls hold no more memory");
#endif
	q("func plugin_two +p");
	h = dlopen(DD_PLUGIN, RTLD_NOW);
	run = h ? (dd_plugin_fn)dlsym(h, DD_PLUGIN_ENTRY) : NULL;
	if (!run) {
		tap_ok(0, "dlopen (remembered queries): %s", dlerror());
		return;
	}
	dd_capture_begin();
	run(10, lines);
	dd_capture_end(buf, sizeof(buf));
	/* Since test_dlopen(): =_, then line (plugin_two's) +pl, then +p last. */
	snprintf(out, sizeof(out), "%u: plugin two 10\n", lines[1]);
	if (!tap_ok(!strcmp(buf, out), "loaded after them, it comes up as the last call left it"))
		tap_diag("printed \"%s\", expected \"%s\"", buf, out);
	dlclose(h);
}

int main(void)
{
	tap_plan(26 + 11 + 4 + (int)(sizeof(bad) / sizeof(bad[0])) + 2 + 5 + 2);
	test_keywords();
	test_flags();
	test_modname();
	test_bad();
	test_batch();
	test_dlopen();
	test_remembered();
	return tap_exit();
}
