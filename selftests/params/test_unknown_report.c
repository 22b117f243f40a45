// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The start-up report of unknown boot parameters: one stderr line, printed
 * once when the main program registers, naming the words nobody took, and
 * the two switches that silence it.  Each case is a fresh process
 * (selftests/lib/probe.h); libunknown_plugin.so is dlopen()ed by a probe.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "tap.h"
#include "probe.h"

#define REPORT		"statickeys: unknown command line parameters:"
#define UNKNOWN_ENV	"STATICKEYS_UNKNOWN_PARAMS"

static int known_early = -1;
static char known_setup[32];

static int take_early(char *val)
{
	known_early = val ? atoi(val) : 0;
	return 0;
}
early_param("known_e", take_early);

static int take_setup(char *rest)
{
	snprintf(known_setup, sizeof(known_setup), "%s", rest);
	return 1;
}
__setup("known_s=", take_setup);

/* Matches, and declines: the word stays unknown, as in the kernel. */
static int decline(char *rest)
{
	(void)rest;
	return 0;
}
__setup("declines=", decline);

/* dlopen() the plugin, print what its parameter got. */
static int load_plugin(void)
{
	int (*level)(void);
	void *h = dlopen(PARAMS_DIR "/libunknown_plugin.so", RTLD_NOW);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 3;
	}
	level = (int (*)(void))dlsym(h, "unknown_plugin_level");
	printf("plug.level %d\n", level ? level() : -2);
	return 0;
}

/*
 * The probes.  "fork": a child forks (and dlopen()s the plugin there) and
 * both exit; the child must not print the report again.
 */
static int probe(const char *mode)
{
	pid_t pid;
	int st;

	printf("known_e %d known_s %s\n", known_early, known_setup);
	if (!mode)
		return 0;
	if (!strcmp(mode, "dlopen"))
		return load_plugin();
	if (!strcmp(mode, "fork")) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			st = load_plugin();
			fflush(stdout);
			_exit(st);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 4;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 5;
	}
	return 6;
}

static char out[8192], err[8192];

/* Run the probe (@self or the quiet build) with @cmdline and @env_value. */
static int run(const char *self, const char *mode, const char *cmdline,
	       const char *env_value)
{
	int st;

	if (env_value)
		setenv(UNKNOWN_ENV, env_value, 1);
	st = run_probe(self, mode, cmdline, out, sizeof(out), err, sizeof(err));
	unsetenv(UNKNOWN_ENV);
	if (st)
		tap_diag("probe %s exited with %d; stdout: %s", mode ? mode : "",
			 st, out);
	return st;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

static bool err_is(const char *want)
{
	if (!strcmp(err, want))
		return true;
	tap_diag("stderr was: \"%s\"", err);
	tap_diag("expected:   \"%s\"", want);
	return false;
}

int main(int argc, char **argv)
{
	const char *self = argv[0];
	bool ok;
	int st;

	probe_enter(argc, argv, probe);
	unsetenv(UNKNOWN_ENV);
	tap_plan(17);

	st = run(self, NULL,
		 "foo=1 known_e=2 bar known_s=x \"baz=a b\" declines=1 "
		 "init_only_early=1 init-only-setup=y esc=\x01 -- after", NULL);
	tap_ok(!st && count(err, REPORT) == 1,
	       "an unknown word is reported once");
	tap_ok(!st && err_is(REPORT " foo=1 bar \"baz=a b\" declines=1 esc=\\x01\n"),
	       "exact words, in command-line order, quoted when they hold a space, escaped");
	tap_ok(!strcmp(out, "known_e 2 known_s x\n"),
	       "the known words reached their handlers (stdout: %s)", out);
	tap_ok(!strstr(err, "known_e") && !strstr(err, "known_s") &&
	       !strstr(err, "init_only") && !strstr(err, "init-only"),
	       "words of the program and of a library loaded with it are not reported");
	tap_ok(!strstr(err, "after"), "words after \"--\" are not reported");

	/*
	 * Words with quotes of their own: each printed so that the printed
	 * line, read again, gives the same words (quotes added around a"b c"d
	 * would end at its first quote and split it).
	 */
	st = run(self, NULL, "a\"b c\"d w=\"x y\"z known_e=5", NULL);
	ok = !st && err_is(REPORT " a\"b c\"d \"w=x y\"z\"\n");
	/* The printed words, given as the line, are reported the same. */
	st = run(self, NULL, "a\"b c\"d \"w=x y\"z\"", NULL);
	tap_ok(ok && !st && err_is(REPORT " a\"b c\"d \"w=x y\"z\"\n"),
	       "a word holding quotes of its own is printed so that it reads back as the same word");
	st = run(self, NULL, "known_e=1 known_s=y -- whatever", NULL);
	tap_ok(!st && err_is(""), "nothing is printed when every word is known");
	st = run(self, NULL, NULL, NULL);
	tap_ok(!st && err_is(""), "nothing is printed without a command line");

	st = run(self, NULL, "foo=1 bar", "quiet");
	tap_ok(!st && err_is("") && !strcmp(out, "known_e -1 known_s \n"),
	       UNKNOWN_ENV "=quiet turns the report off");
	st = run(self, NULL, "foo=1 known_e=3", "report");
	tap_ok(!st && err_is(REPORT " foo=1\n"),
	       UNKNOWN_ENV "=report keeps it");
	st = run(self, NULL, "foo=1", "loud");
	tap_ok(!st && err_is("statickeys: " UNKNOWN_ENV "=loud: expected \"report\" or \"quiet\", reporting\n"
			     REPORT " foo=1\n"),
	       "a bad value of " UNKNOWN_ENV " is named, and the report stays on");

	st = run(PARAMS_DIR "/unknown_quiet", NULL, "foo=1 known_e=4", NULL);
	tap_ok(!st && err_is("") && !strcmp(out, "known_e 4 known_s \n"),
	       "a program built with -DSTATICKEYS_UNKNOWN_PARAMS_QUIET prints nothing, and its words still apply");

	st = run(self, "fork", "foo=1 plug.level=3", NULL);
	tap_ok(!st && count(err, REPORT) == 1,
	       "a fork() child does not repeat the report (%d lines)",
	       count(err, REPORT));
	tap_ok(!st && strstr(out, "plug.level 3\n"),
	       "the fork() child's dlopen()ed plugin took its word");

	st = run(self, "dlopen", "foo=1 plug.level=7 plug-other", NULL);
	tap_ok(!st && err_is(REPORT " foo=1 plug-other\n"),
	       "dotted words are left to objects loaded later, not reported");
	tap_ok(!st && strstr(out, "plug.level 7\n"),
	       "the plugin dlopen()ed after start-up got its word");
	st = run(self, "dlopen", "plug.level=7", NULL);
	tap_ok(!st && err_is("") && strstr(out, "plug.level 7\n"),
	       "no report when only dotted words are left");
	return tap_exit();
}
