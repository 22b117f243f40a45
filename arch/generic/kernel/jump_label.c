// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The arch hooks of an architecture without an instruction patcher
 * (kernel/arch.h).  Every object is built with the portable fallback
 * (CONFIG_JUMP_LABEL=n; <linux/jump_label.h> stops a build that asks for
 * patching here), so no object brings a site: a key change has nothing to
 * queue, and these say so should a table ever bring one.
 */
#include "../../../kernel/internal.h"

int arch_jump_label_decode(const struct jump_entry *entry,
			   enum jump_label_type *type)
{
	(void)entry;
	(void)type;
	return -EILSEQ;	/* no instruction this architecture knows */
}

void arch_jump_label_describe(const struct jump_entry *entry, char *buf,
			      size_t len)
{
	snprintf(buf, len, "a site at %p, on an architecture without a patcher",
		 (void *)jump_entry_code(entry));
}

int arch_jump_label_check(const struct jump_entry *entry,
			  enum jump_label_type type)
{
	(void)type;
	return arch_jump_label_decode(entry, &type);
}

int arch_jump_label_transform_apply(struct jump_entry **vec, size_t n)
{
	(void)vec;
	return n ? -EACCES : 0;
}
