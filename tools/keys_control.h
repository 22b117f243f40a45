/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* statickeys-keys: a request to a process's control channel (keys_control.c). */
#ifndef _TOOLS_KEYS_CONTROL_H
#define _TOOLS_KEYS_CONTROL_H

#include <stdbool.h>

/*
 * Send the one-line @request to process @pid and print its reply (data
 * lines on stdout; "PID: ok ..." too when @show_ok).  Returns 0 for an
 * "ok" reply, 1 otherwise (the reason on stderr, after @prog).
 */
int control_request(long pid, const char *request, bool show_ok,
		    const char *prog);

#endif /* _TOOLS_KEYS_CONTROL_H */
