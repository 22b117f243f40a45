/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the dynamic-debug tests share: the plugin's entry point and a
 * capture of stderr, where pr_debug() and the query errors write.
 */
#ifndef _SELFTESTS_DD_H
#define _SELFTESTS_DD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libdd_plugin.so: its two sites, at the lines it returns in @lines. */
typedef void (*dd_plugin_fn)(int v, unsigned int lines[2]);
#define DD_PLUGIN_ENTRY	"dd_plugin_run"

static int dd_saved_fd = -1;
static FILE *dd_capture_file;

/* Send stderr to a fresh temporary file until dd_capture_end(). */
static inline void dd_capture_begin(void)
{
	fflush(stderr);
	dd_capture_file = tmpfile();
	if (!dd_capture_file)
		abort();
	dd_saved_fd = dup(2);
	dup2(fileno(dd_capture_file), 2);
}

/* What was written since dd_capture_begin(), in @buf (truncated). */
static inline const char *dd_capture_end(char *buf, size_t size)
{
	size_t n;

	fflush(stderr);
	dup2(dd_saved_fd, 2);
	close(dd_saved_fd);
	rewind(dd_capture_file);
	n = fread(buf, 1, size - 1, dd_capture_file);
	buf[n] = '\0';
	fclose(dd_capture_file);
	return buf;
}

#endif /* _SELFTESTS_DD_H */
