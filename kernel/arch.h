/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The architecture interface: what the core asks of arch/<arch>/kernel/,
 * declared once.  The core holds the queue of site changes
 * (kernel/queue.c); an architecture only checks a site, writes a vector of
 * sites, and says what a site holds.  Nothing below calls the core back.
 *
 * arch_jump_label_check() - whether the site of @entry can be brought to
 *	@type: 0 when it holds the other state's instruction (queue it), 1
 *	when it holds @type's already (nothing to do), -EILSEQ when it holds
 *	neither, -EBUSY when it holds a breakpoint over one of them.  Only
 *	reads the site.
 * arch_jump_label_transform_apply() - write the @n sites of @vec, each
 *	checked (0) and not written since: each takes the instruction of the
 *	state it does not hold.  0 when every site holds its new instruction;
 *	otherwise every site touched is brought back to its old instruction
 *	and the error returned: -EIO (a write failed or did not land),
 *	-EACCES (code cannot be written or the threads cannot be serialized
 *	here), -ENOMEM; or, with nothing written, -EBUSY (a thread could not
 *	survive the update: x86, SIGTRAP blocked).  An architecture with
 *	HAVE_ARCH_JUMP_LABEL_STUCK may, if even that fails, leave the sites
 *	emulated (their key refuses changes) until arch_jump_label_repair().
 * arch_jump_label_decode() - the state a site is in now, or -EILSEQ/-EBUSY.
 * arch_jump_label_describe() - print a site's bytes for a diagnostic.
 *
 * With HAVE_ARCH_JUMP_LABEL_STUCK (asm/jump_label.h), for an architecture
 * whose failed batch can leave sites emulated; without, the defaults below:
 * arch_jump_label_repair() - try again to bring back the sites a failed
 *	batch left emulated (SK_STUCK_REPAIR: before every key change); and
 *	mark those in [@start, @end) that still cannot be brought back as
 *	their object's last (SK_STUCK_ORPHAN: at unregistration), or forget
 *	those a new object now lies over (SK_STUCK_FRESH: at registration).
 * arch_jump_label_stuck() - whether the site at @addr is one a failed batch
 *	left emulated.  Called locked, by the introspection walk.
 *
 * State an architecture must reset in a fork() child it resets itself, with
 * its own entry in lib/lifecycle.h at level SK_LC_ARCH (x86:
 * arch/x86/kernel/text_poke_bp.c): nothing above calls it by name.
 *
 * An architecture without a patcher (any the Makefile builds as
 * ARCH=generic, with CONFIG_JUMP_LABEL=n) has no sites to write:
 * arch/generic/kernel/jump_label.c fills the four hooks.
 */
#ifndef _STATICKEYS_KERNEL_ARCH_H
#define _STATICKEYS_KERNEL_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <linux/jump_label.h>

#ifndef __hidden
#define __hidden	__attribute__((visibility("hidden")))
#endif

__hidden int arch_jump_label_check(const struct jump_entry *entry,
				   enum jump_label_type type);
__hidden int arch_jump_label_transform_apply(struct jump_entry **vec,
					     size_t n);
__hidden int arch_jump_label_decode(const struct jump_entry *entry,
				    enum jump_label_type *type);
__hidden void arch_jump_label_describe(const struct jump_entry *entry,
				       char *buf, size_t len);

enum sk_stuck_how { SK_STUCK_REPAIR, SK_STUCK_ORPHAN, SK_STUCK_FRESH };
#ifdef HAVE_ARCH_JUMP_LABEL_STUCK
__hidden void arch_jump_label_repair(uintptr_t start, uintptr_t end,
				     enum sk_stuck_how how);
__hidden bool arch_jump_label_stuck(uintptr_t addr);
#else
/* Every store leaves a whole instruction: no site is ever left emulated. */
static inline void arch_jump_label_repair(uintptr_t start, uintptr_t end,
					  enum sk_stuck_how how)
{
	(void)start;
	(void)end;
	(void)how;
}

static inline bool arch_jump_label_stuck(uintptr_t addr)
{
	(void)addr;
	return false;
}
#endif

#endif /* _STATICKEYS_KERNEL_ARCH_H */
