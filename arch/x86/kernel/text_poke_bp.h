/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The x86 breakpoint (INT3) protocol, arch/x86/kernel/text_poke_bp.c: what
 * the encoder (jump_label.c) and the repair of stuck sites (stuck.c) hand
 * it, and what they may ask of it.  Everything here is called with
 * jump_label_mutex held.
 */
#ifndef _ARCH_X86_TEXT_POKE_BP_H
#define _ARCH_X86_TEXT_POKE_BP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <asm/jump_label.h>
#include "../../../kernel/internal.h"

#define INT3		0xcc

/*
 * One site of a batch: the encoder fills it in, the protocol writes it.
 * The site holds one of two instructions, the 5-byte NOP or the jump by
 * @disp, and changes to the other: @jump says which is new, and both are
 * made from the record when needed (x86_site_bytes()).  Sixteen bytes on
 * x86-64: a batch of ten thousand sites is read three times a commit.
 */
struct x86_site {
	uintptr_t addr;		/* first: sk_text_poke_begin() reads it */
	int32_t disp;		/* of the jump, from the end of the site */
	bool jump;		/* the new instruction is the jump */
	uint8_t done;		/* steps written: 0..3 (text_poke_bp.c) */
	bool orphan;		/* stuck, and its object unregistered */
};

/* The two instructions a site holds: the 5-byte NOP, or JMP32 and a disp32. */
#define JMP32		0xe9
static const uint8_t nop5[JUMP_LABEL_NOP_SIZE] = { ARCH_JUMP_LABEL_NOP5 };

/* The bytes of @s's new instruction (@new_insn) or of its old one. */
static inline void x86_site_bytes(const struct x86_site *s, bool new_insn,
				  uint8_t *p)
{
	if (s->jump == new_insn) {
		p[0] = JMP32;
		memcpy(p + 1, &s->disp, sizeof(s->disp));
	} else {
		memcpy(p, nop5, JUMP_LABEL_NOP_SIZE);
	}
}

/* Where the jump of @s goes. */
static inline uintptr_t x86_site_target(const struct x86_site *s)
{
	return s->addr + JUMP_LABEL_NOP_SIZE + (uintptr_t)(intptr_t)s->disp;
}

/*
 * A batch is what the trap handler reads: published before the first INT3
 * goes in, withdrawn after the last one is gone.  While @undo is set the
 * sites are being brought back, and a trapping thread runs the old
 * instruction instead of the new one.  A batch that could not be brought
 * back is not withdrawn: stuck.c keeps a copy on the sk_bp_stuck list,
 * emulated until arch_jump_label_repair() brings its sites back.  Only the
 * holder of jump_label_mutex changes the live batch and the list.  @sites
 * are sorted by address.
 */
struct x86_batch {
	struct x86_site *sites;
	size_t n;
	bool undo;
	struct x86_batch *next;
};

/* The batches a trapping thread looks in after the live one (stuck.c's). */
extern __hidden struct x86_batch *sk_bp_stuck;

/*
 * An update: sk_bp_install(), sk_bp_publish() of the sorted sites,
 * sk_bp_run_steps() (on failure sk_bp_fail()), sk_bp_withdraw().
 * sk_bp_fail() undoes the steps and says what happened: *@undone is false
 * if some sites could not be brought back (the caller keeps them
 * emulated).  Repairing a stuck batch: sk_bp_publish(.., true),
 * sk_bp_undo_steps(), sk_bp_withdraw().  sk_bp_wait_for_handlers():
 * no trap handler still reads a batch unlinked before the call.
 */
__hidden int sk_bp_install(void);
__hidden void sk_bp_publish(struct x86_site *sites, size_t n, bool undo);
__hidden int sk_bp_run_steps(void);
__hidden bool sk_bp_undo_steps(void);
__hidden int sk_bp_fail(int err, bool *undone);
__hidden void sk_bp_withdraw(void);
__hidden void sk_bp_wait_for_handlers(void);
__hidden struct x86_site *sk_bp_find_site(const struct x86_batch *b,
					  uintptr_t addr);

/* stuck.c: keep @n sites a failed batch could not bring back emulated. */
__hidden void sk_stuck_keep(const struct x86_site *sites, size_t n);

#endif /* _ARCH_X86_TEXT_POKE_BP_H */
