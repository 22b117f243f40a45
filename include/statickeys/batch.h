/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Changing many keys at once: a batch around ordinary key changes
 * (static_branch_enable(), static_key_slow_inc(), ...) writes all their
 * sites in one update, with the serializing steps of a single change.
 * Documentation/static-keys.rst, "Batches", says what a failure leaves.
 *
 *	statickeys_batch_begin();
 *	for (i = 0; i < n; i++)
 *		static_branch_enable(&tracepoint_key[i]);
 *	err = statickeys_batch_commit();
 */
#ifndef _STATICKEYS_BATCH_H
#define _STATICKEYS_BATCH_H

#include <statickeys/export.h>

SK_BEGIN_DECLS

void statickeys_batch_begin(void);
int statickeys_batch_commit(void);

SK_END_DECLS

#endif /* _STATICKEYS_BATCH_H */
