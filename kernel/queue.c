// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The queue of site changes (kernel/queue.h): the one way the layers above
 * reach the architecture's encoders and the writer, and the one place the
 * queued sites are kept.  Each site is checked by the architecture as it
 * is queued; the architecture sees the queue only when it is applied.
 */
#include "queue.h"

static struct jump_entry **queue;
static size_t nr_queued, queue_cap;
static bool holes;		/* sk_queue_cut() left NULL entries */

int sk_queue_ready(void)
{
	return sk_text_poke_ready();
}

int sk_queue_site(struct jump_entry *e, enum jump_label_type type)
{
	int err;

	if (jump_entry_is_dead(e))
		return -EILSEQ;
	err = arch_jump_label_check(e, type);
	if (err)
		return err > 0 ? 0 : err;
	if (sk_reserve((void **)&queue, &queue_cap, nr_queued, sizeof(*queue)))
		return -ENOMEM;
	queue[nr_queued++] = e;
	return 0;
}

size_t sk_queue_mark(void)
{
	return nr_queued;
}

void sk_queue_drop_from(size_t mark)
{
	if (mark < nr_queued)
		nr_queued = mark;
}

void sk_queue_cut(size_t from, size_t to)
{
	if (to > nr_queued)
		to = nr_queued;
	for (; from < to; from++)
		queue[from] = NULL;
	holes = true;
}

int sk_queue_apply(void)
{
	size_t n = nr_queued, i;

	if (holes) {
		for (i = n = 0; i < nr_queued; i++)
			if (queue[i])
				queue[n++] = queue[i];
		holes = false;
	}
	nr_queued = 0;
	if (!n)
		return 0;
	return arch_jump_label_transform_apply(queue, n);
}
