/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Keys defined in libsk_keys_base.so and used from the test program. */
#ifndef _SELFTESTS_KEYS_BASE_H
#define _SELFTESTS_KEYS_BASE_H

#include <linux/jump_label.h>

extern struct static_key base_old_true_key;
extern struct static_key base_inv_old_true_key;
extern struct static_key base_old_false_key;
extern struct static_key base_inv_old_false_key;

DECLARE_STATIC_KEY_TRUE(base_true_key);
DECLARE_STATIC_KEY_TRUE(base_inv_true_key);
DECLARE_STATIC_KEY_FALSE(base_false_key);
DECLARE_STATIC_KEY_FALSE(base_inv_false_key);

/* Sites inside the shared object, one per key and branch form. */
bool base_site_old_true(void);
bool base_site_inv_old_true(void);
bool base_site_old_false(void);
bool base_site_inv_old_false(void);
bool base_site_true_likely(void);
bool base_site_true_unlikely(void);
bool base_site_inv_true_likely(void);
bool base_site_inv_true_unlikely(void);
bool base_site_false_likely(void);
bool base_site_false_unlikely(void);
bool base_site_inv_false_likely(void);
bool base_site_inv_false_unlikely(void);

#endif
