/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Architectures whose site is one aligned 32-bit instruction (arm64, riscv,
 * arm): arch/insn32/insn32.c implements the arch hooks of kernel/arch.h
 * for them, and each defines the two functions below in
 * arch/<arch>/kernel/jump_label.c.
 */
#ifndef _ARCH_INSN32_H
#define _ARCH_INSN32_H

#include "../../kernel/internal.h"

/*
 * arch_insn32_make() - the instruction a site at @code holds in state @type
 *	(a jump goes to @target): 0, or -ERANGE if the jump cannot reach.
 * arch_insn32_sync_icache() - make [@start, @end), just stored, what every
 *	thread's instruction fetch sees once it next serializes: 0, or
 *	-errno (the store is then undone).
 */
__hidden int arch_insn32_make(uint32_t *insn, enum jump_label_type type,
			      uintptr_t code, uintptr_t target);
__hidden int arch_insn32_sync_icache(uintptr_t start, uintptr_t end);

#endif /* _ARCH_INSN32_H */
