/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The kernel's errno values are the system's: this name shadows the uapi
 * <linux/errno.h> that the C library's own <errno.h> reads, so pass on.
 */
#include_next <linux/errno.h>
#include <errno.h>
