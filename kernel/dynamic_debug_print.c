// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * What an enabled pr_debug() site prints: the kernel's prefixes (thread
 * id, module, function, line, as the site's flags t, m, f, l ask), then
 * the message, on stderr, one site's line at a time.
 */
#ifdef CONFIG_DYNAMIC_DEBUG

#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The library has no sites of its own: no table to register. */
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include "internal.h"

/*
 * The kernel's prefix: "[tid] " with t, then "module:", "function:" and
 * "line:" with m, f and l, and one space after the last of these.
 */
static void ddebug_prefix(const struct _ddebug *dp, FILE *f)
{
	bool any = false;

	if (dp->flags & _DPRINTK_FLAGS_INCL_TID)
		fprintf(f, "[%ld] ", (long)syscall(SYS_gettid));
	if (dp->flags & _DPRINTK_FLAGS_INCL_MODNAME) {
		fprintf(f, "%s:", dp->modname ? dp->modname : "");
		any = true;
	}
	if (dp->flags & _DPRINTK_FLAGS_INCL_FUNCNAME) {
		fprintf(f, "%s:", dp->function);
		any = true;
	}
	if (dp->flags & _DPRINTK_FLAGS_INCL_LINENO) {
		fprintf(f, "%u:", dp->lineno);
		any = true;
	}
	if (any)
		fputc(' ', f);
}

SK_EXPORT void __dynamic_pr_debug(struct _ddebug *descriptor,
				  const char *fmt, ...)
{
	va_list ap;

	flockfile(stderr);
	ddebug_prefix(descriptor, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	funlockfile(stderr);
}

#endif /* CONFIG_DYNAMIC_DEBUG */
