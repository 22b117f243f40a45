// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The mprotect method: the segments of a batch are made writable (and stay
 * executable) for the duration of one update, then restored to the
 * protection of their ELF segment.  Which segment holds a site is the
 * object registry's to say (kernel/object.c), asked through its writer
 * hook, never by name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "text_poke.h"

/*
 * Segments made writable by sk_text_poke_begin(), restored by _end().  A
 * whole ELF segment at a time: changing part of a mapping splits it, and the
 * pieces do not merge back once a written page has become anonymous.
 */
struct open_seg {
	uintptr_t start, end;
	int prot;
};
static struct open_seg *open_segs;
static size_t nr_open, open_cap;

/*
 * The executable segment holding @addr, from the registry's hook: its
 * PROT_* bits, or -1 (also when no registry is linked in).  For the arch
 * code too, which sits below the registry as well.
 */
int sk_text_poke_segment(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	sk_hook_text_segment_fn *fn = sk_writer_hook(text_segment);

	return fn ? fn(addr, start, end) : -1;
}

void sk_tp_segments_restore(void)
{
	while (nr_open) {
		struct open_seg *sg = &open_segs[--nr_open];

		if (mprotect((void *)sg->start, sg->end - sg->start, sg->prot))
			sk_warn("restoring protection of %p failed: %s",
				(void *)sg->start, strerror(errno));
	}
}

/*
 * Make the segment holding @addr writable, unless it is open already; @ps
 * is the page size.  *@last remembers the segment opened or found last:
 * a batch's sites are in address order, so most sites fall in it.  The
 * list grows as segments are opened (a few a batch, however many sites).
 */
static int open_segment(uintptr_t addr, long ps, struct open_seg **last)
{
	uintptr_t start, end;
	size_t i;
	int prot;

	if (*last && addr >= (*last)->start && addr < (*last)->end)
		return 0;
	prot = sk_text_poke_segment(addr, &start, &end);
	if (prot < 0)
		return sk_tp_failed(-EFAULT, "site %p lies in no executable segment",
				    (void *)addr);
	start &= ~(uintptr_t)(ps - 1);
	end = (end + ps - 1) & ~(uintptr_t)(ps - 1);
	for (i = 0; i < nr_open; i++)
		if (open_segs[i].start == start) {
			*last = &open_segs[i];
			return 0;
		}
	if (sk_reserve((void **)&open_segs, &open_cap, nr_open,
		       sizeof(*open_segs)))
		return sk_tp_failed(-ENOMEM, "no memory for the list of segments to open");
	if (mprotect((void *)start, end - start, prot | PROT_WRITE))
		return sk_tp_failed(-errno, "making the code at %p-%p writable with mprotect()",
				    (void *)start, (void *)end);
	open_segs[nr_open] = (struct open_seg){ start, end, prot };
	*last = &open_segs[nr_open++];
	return 0;
}

/* Make every segment that a site of the batch lies in writable. */
int sk_tp_segments_open(const void *sites, size_t n, size_t stride,
			size_t len)
{
	struct open_seg *last = NULL;
	long ps = sysconf(_SC_PAGESIZE);
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		uintptr_t addr = rec_addr((const char *)sites + i * stride);

		/* Mostly in the segment of the site before: no call. */
		if (last && addr >= last->start && addr + len <= last->end)
			continue;
		err = open_segment(addr, ps, &last);
		if (!err)
			err = open_segment(addr + len - 1, ps, &last);
	}
	if (err)
		sk_tp_segments_restore();
	return err;
}
