// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * What the writer is doing and what went wrong: the method in use, whether
 * a probe runs, the first failure of a batch (for the messages), and the
 * error a failed batch reports.  Every file of the writer reads and sets
 * this state; this file calls none of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "text_poke.h"

const char *const sk_tp_method_names[] = {
	[POKE_UNSET] = "unset", [POKE_PROCMEM] = "procmem",
	[POKE_MPROTECT] = "mprotect", [POKE_NONE] = "none",
};

enum poke_method sk_tp_method = POKE_UNSET;
bool sk_tp_probing;
bool sk_tp_write_refused;

/*
 * What went wrong, for the messages: the first failure of a batch (later
 * ones are usually its consequences), or of the last preparation.
 */
char sk_tp_why[SK_TP_WHY];
bool sk_tp_batch_failed;
size_t sk_tp_nr_landed;

int sk_tp_failed(int err, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (sk_tp_batch_failed)
		return err;
	va_start(ap, fmt);
	vsnprintf(sk_tp_why, sizeof(sk_tp_why), fmt, ap);
	va_end(ap);
	n = strlen(sk_tp_why);
	snprintf(sk_tp_why + n, sizeof(sk_tp_why) - n, ": %s", strerror(-err));
	return err;
}

/* Errors that say nothing about the method: report them, keep nothing. */
bool sk_tp_transient(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE;
}

void sk_tp_batch_reset(void)
{
	sk_tp_batch_failed = sk_tp_write_refused = false;
	sk_tp_nr_landed = 0;
	sk_tp_why[0] = '\0';
}

const char *sk_text_poke_method(void)
{
	return sk_tp_method_names[sk_tp_method];
}

bool sk_text_poke_probing(void)
{
	return sk_tp_probing;
}

const char *sk_text_poke_why(void)
{
	return sk_tp_why[0] ? sk_tp_why : "unknown";
}

size_t sk_text_poke_landed(void)
{
	return sk_tp_nr_landed;
}

/*
 * The error a failed batch reports: a transient one as itself, a refused
 * write as EACCES (the next change chooses the method again), others EIO.
 */
int sk_text_poke_status(int err)
{
	if (sk_tp_transient(err) || err == -EACCES)
		return err;
	return sk_tp_write_refused || err == -EPERM ? -EACCES : -EIO;
}
