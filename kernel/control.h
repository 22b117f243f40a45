/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The control channel's request, as kernel/control_parse.c reads it from
 * bytes a peer sent and kernel/control.c runs it.  The parser depends on
 * nothing but the C library, so that its fuzzer links it alone.
 */
#ifndef _SK_CONTROL_H
#define _SK_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

/* One request: the line and its '\n'.  A longer one is refused whole. */
#define SK_CONTROL_LINE_MAX	4096
/* A key's symbol name, or its address as 0x and hexadecimal digits. */
#define SK_CONTROL_NAME_MAX	256

enum sk_control_op {
	SK_CONTROL_KEYS,	/* "keys": the table of keys */
	SK_CONTROL_SITES,	/* "sites": the dynamic-debug sites */
	SK_CONTROL_SET,		/* "set NAME on|off" */
	SK_CONTROL_DYNDBG,	/* "dyndbg QUERY" */
};

struct sk_control_req {
	enum sk_control_op op;
	bool on;			/* SK_CONTROL_SET: the new state */
	char arg[SK_CONTROL_LINE_MAX];	/* NAME, or QUERY; NUL-terminated */
};

/*
 * Read the request in @line[0..@len) (without its '\n') into @req.
 * Returns 0, or -EINVAL with the reason in @why (a one-line text without
 * the "error: " prefix, always terminated).
 */
__attribute__((visibility("hidden")))
int sk_control_parse(const char *line, size_t len, struct sk_control_req *req,
		     char *why, size_t why_size);

#endif /* _SK_CONTROL_H */
