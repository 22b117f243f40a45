// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * sk_warn(): the library's one way to print a message, at the bottom of the
 * layers (scripts/layers) so that every layer may report.  Messages that
 * name a key and must wait for the lock are kernel/warn_key.c's
 * (sk_warn_key()), built on this.
 */
#include <stdarg.h>
#include <stdio.h>

#include "warn.h"

void sk_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "statickeys: %s\n", buf);
}
