/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* What tc_lib.c shares with tc_prog.c (the toolchain tests). */
#ifndef _SELFTESTS_TC_H
#define _SELFTESTS_TC_H

#include <linux/jump_label.h>

#ifdef __cplusplus
extern "C" {
#endif

DECLARE_STATIC_KEY_FALSE(tc_lib_key);
int tc_lib_site(void);

#ifdef __cplusplus
}
#endif

#endif /* _SELFTESTS_TC_H */
