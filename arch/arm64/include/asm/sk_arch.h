/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What arm64's code layout asks of the headers of every architecture
 * (<statickeys/sections.h> reads it, with defaults for an architecture
 * without this header).
 */
#ifndef _ASM_SK_ARCH_H
#define _ASM_SK_ARCH_H

/* A kernel may run with 4, 16 or 64 KiB pages: the largest. */
#define SK_ARCH_RO_PAGE		"65536"

#endif /* _ASM_SK_ARCH_H */
