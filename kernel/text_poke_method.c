// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Choosing the write method, and the batch around the writes:
 * sk_text_poke_begin() gets a working method ready, sk_text_poke_end()
 * restores what it changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text_poke.h"

/*
 * Methods, in the order they are tried:
 *
 *   procmem   pwrite() to /proc/self/mem: the kernel writes through a
 *             private copy of the page; no mapping's protection changes.
 *   mprotect  the segments of the batch are made writable (and stay
 *             executable) for the duration of one update, then restored
 *             to the protection of their ELF segment.
 *
 * The choice is never a verdict for the life of the process: a process
 * changes under the library (a daemon drops root and /proc/self/mem becomes
 * root's; a seccomp filter arrives; descriptors or memory run out for a
 * moment).  Only what the environment says for good is kept, per method
 * (@verdicts): its probe site was written and executed the new instruction
 * (V_EXECUTES), or was written and did not (V_NO_EFFECT: an emulator running
 * its old translation; never tried again).  Everything else is found out
 * again at the time:
 *
 *   failure                        where         then
 *   ENOMEM, EMFILE, ENFILE         anywhere      this change fails with
 *                                                that error; nothing is
 *                                                remembered
 *   refused (EACCES, EPERM, ...)   preparing     the next method that is
 *                                  a batch       allowed is used for this
 *                                                change (probed first if it
 *                                                never was), and after it
 *   refused                        writing       the batch is undone, the
 *                                                change refused (EACCES),
 *                                                and the next change
 *                                                chooses again
 *   every method refused                         the change is refused
 *                                                (EACCES), the next one
 *                                                chooses again
 *
 * STATICKEYS_TEXT_POKE limits the methods allowed to one.
 */

static enum poke_method forced_method(void)
{
	/* As for the command line: a set-user-ID caller chooses nothing. */
	const char *env = secure_getenv("STATICKEYS_TEXT_POKE");

	if (!env || !*env)
		return POKE_UNSET;
	if (!strcmp(env, "procmem"))
		return POKE_PROCMEM;
	if (!strcmp(env, "mprotect"))
		return POKE_MPROTECT;
	sk_warn("STATICKEYS_TEXT_POKE=%s: unknown method (procmem, mprotect): choosing automatically",
		env);
	return POKE_UNSET;
}

/* Whether @m may be tried: allowed, and not known to have no effect here. */
static bool candidate(enum poke_method m, enum poke_method forced)
{
	if (m == POKE_PROCMEM && sk_tp_verdicts[m] == V_UNKNOWN &&
	    sk_tp_procmem_elsewhere())
		sk_tp_verdicts[m] = V_NO_EFFECT;
	return (forced == POKE_UNSET || m == forced) &&
	       sk_tp_verdicts[m] != V_NO_EFFECT;
}

/* Append "method: reason" for a message listing the methods tried. */
static void note(char *buf, size_t len, enum poke_method m, int err)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s: %s", n ? "; " : "",
		 sk_tp_method_names[m],
		 err == -ENOEXEC ? "written, but the code did not change (an emulator running its old translation?)" :
		 sk_tp_why[0] ? sk_tp_why : strerror(-err));
}

/*
 * Choose a method with nothing queued: probe each candidate through the
 * update path.  A transient failure stops the choice (it is the change's
 * error, and the next change chooses again); a method refused here is
 * tried again at the next choice.
 */
static int select_method(void)
{
	enum poke_method forced = forced_method(), m;
	char tried[2 * sizeof(sk_tp_why) + 64] = "";
	int err = -EACCES;

	sk_tp_probing = true;
	for (m = POKE_PROCMEM; m <= POKE_MPROTECT; m++) {
		if (!candidate(m, forced))
			continue;
		sk_tp_method = m;
		sk_tp_why[0] = '\0';
		err = sk_tp_probed(m, sk_tp_probe_by_update());
		if (!err || sk_tp_transient(err))
			break;
		note(tried, sizeof(tried), m, err);
	}
	sk_tp_probing = false;
	if (!err)
		return 0;
	if (sk_tp_transient(err)) {
		sk_tp_method = POKE_UNSET;
		sk_warn("choosing how to write code: %s: change refused, tried again at the next change",
			sk_tp_why[0] ? sk_tp_why : strerror(-err));
		return err;
	}
	sk_tp_method = POKE_NONE;
	sk_warn("no method can write code in this process (%s): change refused, tried again at the next change",
		tried[0] ? tried : "none allowed");
	return -EACCES;
}

/**
 * sk_text_poke_ready() - choose the write method if none is chosen.  Called
 * with the jump-label lock held, before anything is queued.
 */
int sk_text_poke_ready(void)
{
	if (sk_tp_probing ||
	    (sk_tp_method != POKE_UNSET && sk_tp_method != POKE_NONE))
		return 0;
	return select_method();
}

/*
 * Prepare to write a batch with the chosen method or, if it is refused
 * now, with the next candidate that works (probed directly first if it
 * never was).  A transient failure is returned as itself; if every
 * candidate is refused, -EACCES, and the next change chooses again.
 */
int sk_text_poke_begin(const void *sites, size_t n, size_t stride, size_t len)
{
	enum poke_method first = sk_tp_method, order[3], m;
	char tried[2 * sizeof(sk_tp_why) + 64] = "";
	int err, i, k = 0;

	sk_tp_batch_reset();
	sk_tp_look_alone();
	if (sk_tp_probing)
		return sk_tp_prepare(sk_tp_method, sites, n, stride, len);
	if (first == POKE_PROCMEM || first == POKE_MPROTECT)
		order[k++] = first;
	for (m = POKE_PROCMEM; m <= POKE_MPROTECT; m++)
		if (m != first)
			order[k++] = m;
	for (i = 0; i < k; i++) {
		m = order[i];
		if (m != first && !candidate(m, forced_method()))
			continue;
		sk_tp_why[0] = '\0';
		err = sk_tp_verdicts[m] == V_EXECUTES ? 0 :
		      sk_tp_probed(m, sk_tp_probe_direct(m));
		sk_tp_method = m;
		if (!err)
			err = sk_tp_prepare(m, sites, n, stride, len);
		if (!err)
			break;
		if (sk_tp_transient(err)) {
			sk_tp_method = first;
			sk_warn("cannot write code now: %s: change refused, tried again at the next change",
				sk_tp_why[0] ? sk_tp_why : strerror(-err));
			return err;
		}
		note(tried, sizeof(tried), m, err);
	}
	if (i == k) {
		sk_tp_method = POKE_NONE;
		sk_warn("no method can write code in this process (%s): change refused, tried again at the next change",
			tried[0] ? tried : "none allowed");
		return -EACCES;
	}
	if (m != first && first != POKE_UNSET && first != POKE_NONE)
		sk_warn("cannot write code through %s any more (%s): writing through %s from now on",
			sk_tp_method_names[first], tried, sk_tp_method_names[m]);
	sk_tp_batch_reset();		/* a direct probe's writes are not the batch's */
	return 0;
}

void sk_text_poke_end(void)
{
	sk_tp_finish(sk_tp_method);
	if (sk_tp_write_refused && !sk_tp_probing)
		sk_tp_method = POKE_UNSET;
	sk_tp_write_refused = false;
}
