// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * x86 sites: the two instructions a site holds (a 5-byte NOP, a 32-bit
 * JMP), read, described and queued here; the queue is written by the
 * breakpoint protocol of text_poke_bp.c, safe while other threads run it.
 */
#include <stdio.h>
#include <string.h>

#include "../../../kernel/threads.h"
#include "text_poke_bp.h"

static struct x86_site *queue;
static size_t nr_queued, queue_cap;

/*
 * 0 and the state, -EBUSY for a breakpoint (INT3) over either instruction's
 * tail (a debugger's or a uprobe's: its owner will put the first byte back,
 * so the site must not change under it), -EILSEQ for anything else.
 */
int arch_jump_label_decode(const struct jump_entry *entry,
			   enum jump_label_type *type)
{
	uintptr_t code = jump_entry_code(entry);
	const uint8_t *p = (const uint8_t *)code;
	/* The tail of each instruction as one word: 4 bytes, the same order. */
	uint32_t tail, nop_tail, jmp_tail = (uint32_t)(int32_t)
		(jump_entry_target(entry) - (code + JUMP_LABEL_NOP_SIZE));

	memcpy(&tail, p + 1, sizeof(tail));
	memcpy(&nop_tail, nop5 + 1, sizeof(nop_tail));
	if (p[0] == nop5[0] && tail == nop_tail)
		*type = JUMP_LABEL_NOP;
	else if (p[0] == JMP32 && tail == jmp_tail)
		*type = JUMP_LABEL_JMP;
	else if (p[0] == INT3 && (tail == nop_tail || tail == jmp_tail))
		return -EBUSY;
	else
		return -EILSEQ;
	return 0;
}

void arch_jump_label_describe(const struct jump_entry *entry, char *buf,
			      size_t len)
{
	const uint8_t *p = (const uint8_t *)jump_entry_code(entry);

	snprintf(buf, len, "%02x %02x %02x %02x %02x", p[0], p[1], p[2],
		 p[3], p[4]);
}

int arch_jump_label_check(const struct jump_entry *entry,
			  enum jump_label_type type)
{
	enum jump_label_type now;
	int err = arch_jump_label_decode(entry, &now);

	return err ? err : now == type;
}

static int apply_queue(void);

/*
 * The record of the site of @e, to take the instruction it does not hold:
 * 0, or -EILSEQ.  Checked whole when queued, written by nobody since (the
 * lock is held): the first byte says which of the two it is.
 */
static int make_site(struct x86_site *s, const struct jump_entry *e)
{
	const uint8_t *p = (const uint8_t *)jump_entry_code(e);
	enum jump_label_type now;

	if (p[0] == JMP32)
		now = JUMP_LABEL_JMP;
	else if (p[0] == nop5[0])
		now = JUMP_LABEL_NOP;
	else
		return -EILSEQ;	/* cannot be */
	s->addr = (uintptr_t)p;
	s->disp = (int32_t)(jump_entry_target(e) - (s->addr + JUMP_LABEL_NOP_SIZE));
	s->jump = now == JUMP_LABEL_NOP;
	s->done = 0;
	s->orphan = false;
	return 0;
}

/*
 * The sites to write become the records the steps and the trap handler
 * read (queue[]: sk_text_poke_begin() and the stuck list take its layout),
 * sorted by address.  The queue holds them key by key, and a function's
 * pr_debug() descriptors come last to first: a run of sites going down is
 * laid out the other way round as it is made, so that the sort mostly
 * finds them in order.  Only a run of three or more: two sites going down
 * are as often the last of one run going up and the first of the next
 * (an array of keys whose functions the compiler laid out last to first),
 * and turning that pair round would make the two runs overlap, each
 * then merged site by site; a true pair the sort turns round itself.
 */
int arch_jump_label_transform_apply(struct jump_entry **vec, size_t n)
{
	size_t i, j, k;

	if (sk_reserve_n((void **)&queue, &queue_cap, n, sizeof(*queue)))
		return -ENOMEM;
	nr_queued = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && jump_entry_code(vec[j]) <
					 jump_entry_code(vec[j - 1]); j++)
			;
		if (j - i < 3)
			j = i + 1;
		for (k = i; k < j; k++)
			if (make_site(&queue[i + j - 1 - k], vec[k]))
				return -EILSEQ;
	}
	nr_queued = n;
	return apply_queue();
}

/*
 * The steps of an update, as arch_jump_label_transform_apply() takes them:
 * the threads' masks (kernel/threads.c), then the protocol over the queue.
 */
static int threads_take_traps(size_t nr_sites)
{
	return sk_threads_take_traps(nr_sites);
}

static int install_trap_handler(void)
{
	return sk_bp_install();
}

static void publish(bool undo)
{
	sk_bp_publish(queue, nr_queued, undo);
}

static int run_steps(void)
{
	return sk_bp_run_steps();
}

/* Sites the undo could not bring back stay emulated (stuck.c). */
static int fail_batch(int err)
{
	bool undone;

	err = sk_bp_fail(err, &undone);
	if (!undone)
		sk_stuck_keep(queue, nr_queued);
	return err;
}

static void withdraw(void)
{
	sk_bp_withdraw();
}

static int apply_queue(void)
{
	int err;

	if (!nr_queued)
		return 0;
	err = sk_sort_queue((void **)&queue, nr_queued, sizeof(*queue));
	if (!err)
		err = sk_text_poke_begin(queue, nr_queued, sizeof(*queue),
					 JUMP_LABEL_NOP_SIZE);
	if (err) {
		nr_queued = 0;
		return err;
	}
	/* sk_text_poke_begin() counted the threads: alone, none to look at. */
	if (!sk_text_poke_alone())
		err = threads_take_traps(nr_queued);
	if (!err)
		err = install_trap_handler();
	if (err) {
		sk_text_poke_end();
		nr_queued = 0;
		return err;
	}

	publish(false);
	err = run_steps();
	if (err)
		err = fail_batch(err);

	withdraw();
	sk_text_poke_end();
	if (!err)
		sk_count_sites_written(nr_queued);
	nr_queued = 0;
	return err;
}
