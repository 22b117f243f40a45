// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The queue of site changes (kernel/queue.h): the one way the layers above
 * reach the architecture's encoders and the writer.
 */
#include "queue.h"

int sk_queue_ready(void)
{
	return sk_text_poke_ready();
}

int sk_queue_site(struct jump_entry *e, enum jump_label_type type)
{
	if (jump_entry_is_dead(e))
		return -EILSEQ;
	return arch_jump_label_transform_queue(e, type);
}

size_t sk_queue_mark(void)
{
	return arch_jump_label_transform_queued();
}

void sk_queue_drop_from(size_t mark)
{
	arch_jump_label_transform_discard_from(mark);
}

int sk_queue_apply(void)
{
	return arch_jump_label_transform_apply();
}
