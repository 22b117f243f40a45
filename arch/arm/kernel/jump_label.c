// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * 32-bit Arm site encodings, ARM and Thumb-2, and the cacheflush system
 * call; the one-store protocol is arch/insn32/insn32.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <asm/jump_label.h>
#include "../../insn32/insn32.h"

#define ARM_NOP			0xe320f000U	/* nop (hint), condition AL */
#define ARM_B			0xea000000U	/* b, condition AL */
#define ARM_B_RANGE		(32L << 20)	/* +-32 MiB from pc + 8 */
/* A Thumb-2 instruction as one word: first halfword low (little-endian). */
#define THUMB_NOP_W		0x8000f3afU	/* nop.w: f3af 8000 */
#define THUMB_B_W_RANGE		(16L << 20)	/* +-16 MiB from pc + 4 */

static int arm_b(uint32_t *insn, uintptr_t code, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - (code + 8));

	if (off & 3 || off >= ARM_B_RANGE || off < -ARM_B_RANGE)
		return -ERANGE;
	*insn = ARM_B | (((uint32_t)off >> 2) & 0x00ffffffU);
	return 0;
}

/*
 * b.w (encoding T4): S:I1:I2:imm10:imm11:0 is the offset from pc + 4, and
 * the halfwords carry J1 = !(I1 ^ S), J2 = !(I2 ^ S):
 *
 *   first   11110 S imm10
 *   second  10 J1 1 J2 imm11
 */
static int thumb_b_w(uint32_t *insn, uintptr_t code, uintptr_t target)
{
	intptr_t off = (intptr_t)(target - (code + 4));
	uint32_t u = (uint32_t)off, s, j1, j2, first, second;

	if (off & 1 || off >= THUMB_B_W_RANGE || off < -THUMB_B_W_RANGE)
		return -ERANGE;
	s = (u >> 24) & 1;
	j1 = !(((u >> 23) & 1) ^ s);
	j2 = !(((u >> 22) & 1) ^ s);
	first = 0xf000U | (s << 10) | ((u >> 12) & 0x3ffU);
	second = 0x9000U | (j1 << 13) | (j2 << 11) | ((u >> 1) & 0x7ffU);
	*insn = first | (second << 16);
	return 0;
}

/*
 * Whether the site at @code is ARM code: it holds ARM's NOP or ARM's B to
 * its target.  Neither form of one instruction set is a form of the other
 * (ARM's NOP read as Thumb-2 is a BLX, ARM's B is never nop.w and branches
 * elsewhere if read as b.w), so the bytes decide; a site holding anything
 * else matches no form of either and is refused.
 */
static bool site_is_arm(uintptr_t code, uintptr_t target)
{
	uint32_t now = *(const volatile uint32_t *)code, b;

	return now == ARM_NOP || (!arm_b(&b, code, target) && now == b);
}

int arch_insn32_make(uint32_t *insn, enum jump_label_type type,
		     uintptr_t code, uintptr_t target)
{
	bool arm = site_is_arm(code, target);

	if (type == JUMP_LABEL_NOP) {
		*insn = arm ? ARM_NOP : THUMB_NOP_W;
		return 0;
	}
	return arm ? arm_b(insn, code, target) : thumb_b_w(insn, code, target);
}

#ifndef __ARM_NR_cacheflush	/* sparse reads the build machine's headers */
#define __ARM_NR_cacheflush	0x0f0002
#endif

/*
 * ARMv7 user space cannot clean the data cache or invalidate the
 * instruction cache itself: cacheflush(start, end, 0) has the kernel do
 * both over the range, to the point of unification, for every CPU.
 */
int arch_insn32_sync_icache(uintptr_t start, uintptr_t end)
{
	return syscall(__ARM_NR_cacheflush, start, end, 0) ? -errno : 0;
}
