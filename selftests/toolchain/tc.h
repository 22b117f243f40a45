/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* What tc_lib.c shares with tc_prog.c (the toolchain tests). */
#ifndef _SELFTESTS_TC_H
#define _SELFTESTS_TC_H

#include <linux/jump_label.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported even when the objects are built with -fvisibility=hidden. */
#define TC_API	__attribute__((visibility("default")))

TC_API DECLARE_STATIC_KEY_FALSE(tc_lib_key);
TC_API int tc_lib_site(void);
int tc_unused_site(void);		/* tc_unused.c, never linked */

#ifdef __cplusplus
}
#endif

#endif /* _SELFTESTS_TC_H */
