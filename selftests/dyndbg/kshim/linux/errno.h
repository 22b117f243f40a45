/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The kernel's errno values are the system's: this name shadows the uapi
 * <linux/errno.h> that the C library's own <errno.h> reads, so pass on
 * where there is one (musl-gcc's include path has no uapi headers, and
 * musl's <errno.h> needs none).
 */
#if defined(__has_include_next)
# if __has_include_next(<linux/errno.h>)
#  include_next <linux/errno.h>
# endif
#else
# include_next <linux/errno.h>
#endif
#include <errno.h>
