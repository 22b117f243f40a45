/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What x86's code layout asks of the headers of every architecture
 * (<statickeys/sections.h> reads it, with defaults for an architecture
 * without this header).
 */
#ifndef _ASM_SK_ARCH_H
#define _ASM_SK_ARCH_H

/* i386 keeps relocation addends in the code (REL), x86-64 does not. */
#ifdef __i386__
#define SK_ARCH_REL		1
#endif

#endif /* _ASM_SK_ARCH_H */
