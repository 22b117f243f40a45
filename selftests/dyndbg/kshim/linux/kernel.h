/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The little of <linux/kernel.h> that the Linux files test_kernel_files.sh
 * builds need, around the library's own <linux/printk.h>: the point of the
 * test is that their pr_debug() sites come from the library unchanged.
 */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <linux/types.h>
#include <linux/printk.h>

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

#endif
