/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Between the control channel's server (control.c) and what it runs (control_run.c). */
#ifndef _SK_CONTROL_INTERNAL_H
#define _SK_CONTROL_INTERNAL_H

#include <stdio.h>
#include "control.h"

/*
 * Run @req for the peer @who ("pid N uid N"), writing its reply to @out;
 * every change, done or refused, is logged to stderr with @who.
 */
__attribute__((visibility("hidden")))
void sk_control_run(FILE *out, const struct sk_control_req *req,
		    const char *who);

__attribute__((visibility("hidden"))) void sk_control_private_prepare(void);
__attribute__((visibility("hidden"))) void sk_control_private_parent(void);
__attribute__((visibility("hidden"))) void sk_control_private_child(void);

#endif /* _SK_CONTROL_INTERNAL_H */
