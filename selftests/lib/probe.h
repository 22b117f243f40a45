/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Run the test program again as "SELF --probe [MODE]" with a given boot
 * command line, and capture what it prints: for tests of what happens
 * before main(), which only a fresh process shows.
 */
#ifndef _SELFTESTS_PROBE_H
#define _SELFTESTS_PROBE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <statickeys/cmdline.h>

/*
 * probe_enter() - the start of a test's main(): as "SELF --probe [MODE]"
 * run @probe with MODE (NULL when none) and exit with its status;
 * otherwise clear the boot command line, so the test itself starts from
 * the defaults whatever the caller's environment holds.
 */
static inline void probe_enter(int argc, char **argv,
			       int (*probe)(const char *mode))
{
	if (argc > 1 && !strcmp(argv[1], "--probe"))
		exit(probe(argc > 2 ? argv[2] : NULL));
	unsetenv(STATICKEYS_CMDLINE_ENV);
}

/* Read @fd to its end into @buf (NUL-terminated, cut at @size - 1). */
static inline void probe_read_all(int fd, char *buf, size_t size)
{
	size_t n;
	ssize_t r;

	for (n = 0; n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) > 0;
	     n += r)
		;
	buf[n] = '\0';
	close(fd);
}

/*
 * run_probe() - run @self as "@self --probe [@mode]" with
 * STATICKEYS_CMDLINE=@cmdline (NULL: left unset).  Under an emulator
 * (make exports RUNNER, e.g. qemu-aarch64 -L ...) the host cannot exec a
 * foreign binary, so the child goes through the runner again.  Returns the
 * child's exit status, 128 if it was killed, -1 if it could not start.
 */
static inline int run_probe(const char *self, const char *mode,
			    const char *cmdline, char *out, size_t outsz,
			    char *err, size_t errsz)
{
	const char *runner = getenv("RUNNER");
	int po[2], pe[2], status;
	char cmd[4096];
	pid_t pid;

	if (pipe(po) || pipe(pe))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (cmdline)
			setenv(STATICKEYS_CMDLINE_ENV, cmdline, 1);
		if (runner && *runner) {
			snprintf(cmd, sizeof(cmd), "exec %s '%s' --probe %s",
				 runner, self, mode ? mode : "");
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		}
		execl(self, self, "--probe", mode, (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	probe_read_all(po[0], out, outsz);
	probe_read_all(pe[0], err, errsz);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#endif /* _SELFTESTS_PROBE_H */
