// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * arm64 site encodings (NOP and B) and cache maintenance: NOP <-> B is one
 * aligned 32-bit store, which a thread fetching the site concurrently sees
 * whole, old or new; the one-store protocol is arch/insn32/insn32.c.
 */
#define _GNU_SOURCE
#include <errno.h>

#include <asm/jump_label.h>
#include "../../insn32/insn32.h"

#ifdef __CHECKER__
/* sparse does not know this GCC builtin. */
void __builtin___clear_cache(char *begin, char *end);
#endif

#define AARCH64_NOP		0xd503201fU
#define AARCH64_B		0x14000000U
#define AARCH64_B_RANGE		(128L << 20)	/* +-128 MiB */

int arch_insn32_make(uint32_t *insn, enum jump_label_type type,
		     uintptr_t code, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - code);

	if (type == JUMP_LABEL_NOP) {
		*insn = AARCH64_NOP;
		return 0;
	}
	if (off & 3 || off >= AARCH64_B_RANGE || off < -AARCH64_B_RANGE)
		return -ERANGE;
	*insn = AARCH64_B | ((uint32_t)(off >> 2) & 0x03ffffffU);
	return 0;
}

/*
 * Clean the data cache to the point of unification and invalidate the
 * instruction cache over the site (DC CVAU, IC IVAU, DSB ISH): every CPU's
 * fetch sees the store after the context synchronization event the
 * batch's membarrier gives it.
 */
int arch_insn32_sync_icache(uintptr_t start, uintptr_t end)
{
	__builtin___clear_cache((char *)start, (char *)end);
	return 0;
}
