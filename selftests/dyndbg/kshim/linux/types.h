/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The kernel's fixed-size integer names, for test_kernel_files.sh. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#endif
