// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug at start-up: dyndbg= and <object>.dyndbg= on the command
 * line (STATICKEYS_CMDLINE), a dlopen()ed object getting the boot queries,
 * a bad boot query, and dyndbg= through statickeys_parse_cmdline() at run
 * time.  Each case runs this program again with its command line and
 * compares what the sites printed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/printk.h>
#include <statickeys/cmdline.h>
#include "tap.h"
#include "dd.h"

static void site_alpha(int v)
{
	pr_debug("alpha %d\n", v);
}

static void site_beta(int v)
{
	pr_debug("beta %d\n", v);
}

/* The program run again: its sites, then what @mode asks for. */
static int child(const char *mode)
{
	unsigned int lines[2];
	dd_plugin_fn run;
	void *h;

	if (!strcmp(mode, "parse") &&
	    statickeys_parse_cmdline("dyndbg=\"func site_beta +p\""))
		return 2;
	site_alpha(1);
	site_beta(1);
	if (strcmp(mode, "plugin"))
		return 0;
	h = dlopen(DD_PLUGIN, RTLD_NOW);
	run = h ? (dd_plugin_fn)dlsym(h, DD_PLUGIN_ENTRY) : NULL;
	if (!run)
		return 3;
	run(1, lines);
	return 0;
}

static const struct {
	const char *cmdline, *mode, *want;
	int exact;	/* 0: @want is a part of the output, and no site printed */
} cases[] = {
	{ "dyndbg=\"func site_alpha +p\"", "", "alpha 1\n", 1 },
	{ "test_dyndbg_boot.dyndbg=\"func site_beta +pf\"", "",
	  "site_beta: beta 1\n", 1 },
	{ "other.dyndbg=+p", "", "", 1 },
	{ "test_dyndbg_boot.dyndbg", "", "alpha 1\nbeta 1\n", 1 },
	{ "dyndbg=\"func site_alpha +p; func site_beta +pm\"", "",
	  "alpha 1\ntest_dyndbg_boot: beta 1\n", 1 },
	{ "dyndbg=\"func site_alpha +p; funk x +p\"", "",
	  "unknown keyword \"funk\"", 0 },
	{ "dyndbg=\"file dd_plugin.c +p\" libdd_plugin.dyndbg=\"func plugin_two +m\"",
	  "plugin", "plugin one 1\nlibdd_plugin: plugin two 1\n", 1 },
	{ "", "parse", "beta 1\n", 1 },
};

/* Run this program as @cmdline's case; its stderr in @buf. */
static int run_case(const char *self, const char *cmdline, const char *mode,
		    char *buf, size_t size)
{
	FILE *f = tmpfile();
	int status;
	size_t n;
	pid_t pid;

	if (!f)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)"test_dyndbg_boot", (char *)"child",
				 (char *)mode, NULL };

		const char *runner = getenv("RUNNER");
		char cmd[8192];

		dup2(fileno(f), 2);
		setenv(STATICKEYS_CMDLINE_ENV, cmdline, 1);
		/* Under qemu-user (make's RUNNER) the host cannot exec @self. */
		if (runner && *runner) {
			snprintf(cmd, sizeof(cmd), "exec %s '%s' child '%s'",
				 runner, self, mode);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		}
		execv(self, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
	char self[4096], out[4096];
	ssize_t len;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return 1;
	self[len] = '\0';
	tap_plan((int)(sizeof(cases) / sizeof(cases[0])));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_case(self, cases[i].cmdline, cases[i].mode,
				  out, sizeof(out));
		int ok = rc == 0 && (cases[i].exact ? !strcmp(out, cases[i].want) :
				     strstr(out, cases[i].want) &&
				     !strstr(out, "alpha 1\n") && !strstr(out, "beta 1\n"));

		if (!tap_ok(ok, "STATICKEYS_CMDLINE='%s'%s%s: %s", cases[i].cmdline,
			    *cases[i].mode ? ", then " : "", cases[i].mode,
			    cases[i].exact ? "prints exactly the expected" :
			    "the bad word named, nothing switched on"))
			tap_diag("exit %d, printed \"%s\"", rc, out);
	}
	return tap_exit();
}
