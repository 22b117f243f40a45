// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libobjs_user.so: linked at start-up, only uses keys defined elsewhere. */
#include "objs.h"

OBJS_SITES(obju)
