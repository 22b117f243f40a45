/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Capture what the library writes to stderr around a call, to check that a
 * refusal says so once and clearly.  Shared by the ro and refusal tests.
 */
#ifndef _SELFTESTS_CAPTURE_H
#define _SELFTESTS_CAPTURE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char captured[4096];
static int capture_saved_fd = -1;
static FILE *capture_file;

static inline void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	capture_saved_fd = dup(STDERR_FILENO);
	if (capture_file)
		dup2(fileno(capture_file), STDERR_FILENO);
}

/* capture_end() - restore stderr; the text is in captured[]. */
static inline const char *capture_end(void)
{
	size_t n = 0;

	fflush(stderr);
	dup2(capture_saved_fd, STDERR_FILENO);
	close(capture_saved_fd);
	captured[0] = '\0';
	if (capture_file) {
		rewind(capture_file);
		n = fread(captured, 1, sizeof(captured) - 1, capture_file);
		fclose(capture_file);
	}
	captured[n] = '\0';
	return captured;
}

static inline int captured_lines(void)
{
	const char *p;
	int n = 0;

	for (p = captured; *p; p++)
		n += *p == '\n';
	return n;
}

/*
 * One line, "statickeys: ..." containing @what; echoes it as a TAP
 * diagnostic so the log shows what a user would see.
 */
static inline int captured_one_line(const char *what)
{
	int ok = captured_lines() == 1 &&
		 !strncmp(captured, "statickeys: ", 12) &&
		 strstr(captured, what);

	printf("# stderr: %s%s", captured,
	       captured[0] && captured[strlen(captured) - 1] == '\n' ? "" : "\n");
	return ok;
}

#endif /* _SELFTESTS_CAPTURE_H */
