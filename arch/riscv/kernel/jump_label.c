// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * riscv64 site encodings (NOP and JAL x0) and instruction-cache
 * synchronisation; the one-store protocol is arch/insn32/insn32.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <asm/jump_label.h>
#include "../../insn32/insn32.h"

#define RISCV_NOP		0x00000013U	/* addi x0, x0, 0 */
#define RISCV_JAL_X0		0x0000006fU	/* jal x0, 0 */
#define RISCV_JAL_RANGE		(1L << 20)	/* +-1 MiB */

/*
 * JAL's J-type immediate, offset bits to instruction bits:
 *
 *   offset  20  10..1  11  19..12
 *   insn    31  30..21 20  19..12
 */
static uint32_t jal_imm(uint32_t off)
{
	return ((off & 0x100000U) << 11) | ((off & 0x7feU) << 20) |
	       ((off & 0x800U) << 9) | (off & 0xff000U);
}

int arch_insn32_make(uint32_t *insn, enum jump_label_type type,
		     uintptr_t code, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - code);

	if (type == JUMP_LABEL_NOP) {
		*insn = RISCV_NOP;
		return 0;
	}
	if (off & 1 || off >= RISCV_JAL_RANGE || off < -RISCV_JAL_RANGE)
		return -ERANGE;
	*insn = RISCV_JAL_X0 | jal_imm((uint32_t)off);
	return 0;
}

/*
 * A store does not reach other harts' instruction fetch by itself: Linux
 * gives user space riscv_flush_icache(start, end, flags), flags 0 for every
 * hart the process may run on (each executes FENCE.I, now or before it
 * next runs this process).  The serializing step that follows the batch
 * (membarrier SYNC_CORE where the kernel has it) orders the rest.
 */
#ifndef __NR_riscv_flush_icache	/* sparse reads the build machine's headers */
#define __NR_riscv_flush_icache	(244 + 15)	/* arch-specific syscall 15 */
#endif

int arch_insn32_sync_icache(uintptr_t start, uintptr_t end)
{
	return syscall(__NR_riscv_flush_icache, start, end, 0UL) ? -errno : 0;
}
