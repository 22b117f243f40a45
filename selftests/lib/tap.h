/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Minimal TAP producer for the selftests, in the spirit of kselftest.h:
 * a plan, one "ok"/"not ok" line per check, and an exit status that says
 * whether everything passed.  Header-only so that every test stays one file.
 */
#ifndef _SELFTESTS_TAP_H
#define _SELFTESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int tap_planned, tap_run, tap_failed;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline void tap_vresult(int ok, const char *directive,
			       const char *fmt, va_list ap)
{
	tap_run++;
	if (!ok)
		tap_failed++;
	printf("%sok %d - ", ok ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	printf("\n");
	fflush(stdout);
}

/* tap_ok() - record one check; returns @ok so callers can chain. */
static inline int __attribute__((format(printf, 2, 3)))
tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(!!ok, NULL, fmt, ap);
	va_end(ap);
	return ok;
}

/* tap_skip() - a check that cannot run here; the reason is printed. */
static inline void __attribute__((format(printf, 2, 3)))
tap_skip(const char *why, const char *fmt, ...)
{
	char directive[256];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", why);
	va_start(ap, fmt);
	tap_vresult(1, directive, fmt, ap);
	va_end(ap);
}

static inline void __attribute__((format(printf, 1, 2)))
tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * tap_fork() - run @fn(@arg) in a child so that a crash is a failed check,
 * not the end of the test binary.  Returns the child's exit status, or
 * 128 + signal number when it was killed.
 */
static inline int tap_fork(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* tap_exit() - the exit status: 0 only if the plan was met and all passed. */
static inline int tap_exit(void)
{
	if (tap_planned && tap_run != tap_planned) {
		printf("# planned %d checks, ran %d\n", tap_planned, tap_run);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif /* _SELFTESTS_TAP_H */
