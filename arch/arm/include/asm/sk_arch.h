/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What arm's code layout asks of the headers of every architecture
 * (<statickeys/sections.h> reads it, with defaults for an architecture
 * without this header).
 */
#ifndef _ASM_SK_ARCH_H
#define _ASM_SK_ARCH_H

/* arm keeps relocation addends in the code (REL, not RELA). */
#define SK_ARCH_REL		1

#endif /* _ASM_SK_ARCH_H */
