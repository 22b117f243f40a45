/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The one queue of site changes.  A key change, an object's registration
 * and a batch's commit all bring sites to a new state the same way: make
 * sure a write method is chosen, queue each site with the state it must
 * take, then apply the queue in one write, or drop what they queued.
 * Below this sit the architecture's encoders and the text writer; nothing
 * here calls back up.
 */
#ifndef _STATICKEYS_KERNEL_QUEUE_H
#define _STATICKEYS_KERNEL_QUEUE_H

#include "internal.h"

/* Choose the write method if none is chosen yet: 0 or -errno. */
__hidden int sk_queue_ready(void);

/*
 * Queue @e to take @type.  Returns 0, -EILSEQ for a dead site (its object's
 * init code is gone), or the encoder's -errno (a site holding an unexpected
 * instruction, a breakpoint: -EBUSY, no memory: -ENOMEM); then nothing of
 * @e is queued.
 */
__hidden int sk_queue_site(struct jump_entry *e, enum jump_label_type type);

/* How many sites are queued; drop every site queued after the first @mark. */
__hidden size_t sk_queue_mark(void);
__hidden void sk_queue_drop_from(size_t mark);

/*
 * Take the sites queued at [@from, @to) off the queue, where they stand
 * (a batch's key changed back: kernel/batch.c).
 */
__hidden void sk_queue_cut(size_t from, size_t to);

/* Write every queued site: 0, or -errno with no site changed. */
__hidden int sk_queue_apply(void);

#endif /* _STATICKEYS_KERNEL_QUEUE_H */
