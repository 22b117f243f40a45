// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Site patching where a site is one aligned 32-bit instruction and the
 * architecture lets it be replaced by another while other threads run it
 * (arm64 NOP <-> B, riscv NOP <-> JAL, arm NOP <-> B in ARM and Thumb-2
 * code): one aligned store per site, which a concurrent fetch sees whole,
 * old or new, then the arch's instruction-cache synchronisation, then one
 * serializing step for the whole batch.  Built for the architectures the
 * Makefile names (insn32-arch); the encodings are theirs
 * (arch/insn32/insn32.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <asm/jump_label.h>
#include "insn32.h"

struct insn32_site {
	uintptr_t addr;		/* first: sk_text_poke_begin() reads it */
	uint32_t old, insn;
};

static uint32_t site_word(uintptr_t code)
{
	return *(const volatile uint32_t *)code;
}

int arch_jump_label_decode(const struct jump_entry *entry,
			   enum jump_label_type *type)
{
	uintptr_t code = jump_entry_code(entry);
	uint32_t now, want;

	if (code & 3)
		return -EILSEQ;	/* a store could tear it */
	now = site_word(code);
	if (!arch_insn32_make(&want, JUMP_LABEL_NOP, code, 0) && now == want) {
		*type = JUMP_LABEL_NOP;
		return 0;
	}
	if (!arch_insn32_make(&want, JUMP_LABEL_JMP, code,
			      jump_entry_target(entry)) && now == want) {
		*type = JUMP_LABEL_JMP;
		return 0;
	}
	return -EILSEQ;
}

void arch_jump_label_describe(const struct jump_entry *entry, char *buf,
			      size_t len)
{
	uintptr_t code = jump_entry_code(entry);

	snprintf(buf, len, "%08x%s", site_word(code),
		 code & 3 ? " at an address not 4-aligned" : "");
}

int arch_jump_label_check(const struct jump_entry *entry,
			  enum jump_label_type type)
{
	enum jump_label_type now;

	if (arch_jump_label_decode(entry, &now))
		return -EILSEQ;
	return now == type;
}

/* The records of the sites being written: each site's words, old and new. */
static struct insn32_site *sites;
static size_t sites_cap;

static int make_sites(struct jump_entry **vec, size_t n)
{
	enum jump_label_type now;
	size_t i;

	if (sk_reserve_n((void **)&sites, &sites_cap, n, sizeof(*sites)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct insn32_site *s = &sites[i];
		uintptr_t code = jump_entry_code(vec[i]);

		if (arch_jump_label_decode(vec[i], &now) ||
		    arch_insn32_make(&s->insn, !now, code,
				     jump_entry_target(vec[i])))
			return -EILSEQ;	/* checked when queued: cannot be */
		s->addr = code;
		s->old = site_word(code);
	}
	return 0;
}

/*
 * Store @n sites' instructions (new, or old when undoing), each followed by
 * the arch's cache synchronisation.  Returns how many were stored; *@err
 * says why the next one was not.  Kept a function of its own, once a batch
 * or an undo: selftests/hardening/test_cache_maintenance.sh reads its code
 * in the library as built.
 */
static __attribute__((noinline)) size_t store_sites(size_t n, bool undo,
						    int *err)
{
	size_t i;

	*err = 0;
	for (i = 0; i < n; i++) {
		const uint32_t *insn = undo ? &sites[i].old : &sites[i].insn;

		*err = sk_text_poke(sites[i].addr, insn, 4);
		if (!*err)
			*err = arch_insn32_sync_icache(sites[i].addr,
						       sites[i].addr + 4);
		if (*err)
			break;
	}
	return i;
}

/*
 * One store a site, then one serializing step (membarrier) for the batch.
 * Any other thread sees each site whole, old or new.  If a store or the
 * step fails, the sites stored are put back the same way and the error
 * returned; a site that cannot be put back keeps a valid instruction (the
 * new one), and is said so.
 */
int arch_jump_label_transform_apply(struct jump_entry **vec, size_t n)
{
	size_t done, undone, landed;
	char cause[256];
	int err, err2;

	if (!n)
		return 0;
	err = make_sites(vec, n);
	if (!err)
		err = sk_text_poke_begin(sites, n, sizeof(*sites),
					 JUMP_LABEL_NOP_SIZE);
	if (err)
		return err;
	done = store_sites(n, false, &err);
	if (!err)
		err = sk_sync_core();
	if (!err && sk_test_step_hook)
		sk_test_step_hook(1);
	if (err) {
		snprintf(cause, sizeof(cause), "%s", sk_text_poke_why());
		landed = sk_text_poke_landed();
		err = sk_text_poke_status(err);
		undone = store_sites(done, true, &err2);
		sk_sync_core();
		if (!sk_text_poke_probing())
			sk_warn("writing %zu sites failed (%s): %s", n,
				cause, undone != done ?
				"some sites keep the new instruction, key unchanged" :
				landed ? "every site is back to its old instruction, key unchanged" :
				"nothing was written, key unchanged");
	}
	sk_text_poke_end();
	if (!err)
		sk_count_sites_written(n);
	return err;
}
