// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libobjs_key.so: defines the shared keys and has sites of them. */
#include "objs.h"

DEFINE_STATIC_KEY_FALSE(obj_false);
DEFINE_STATIC_KEY_TRUE(obj_true);
struct static_key obj_old_false = STATIC_KEY_INIT_FALSE;
struct static_key obj_old_true = STATIC_KEY_INIT_TRUE;

OBJS_SITES(objk)
