// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libparams_gate.so: no parameters, no keys.  Its constructor runs inside
 * the dlopen() of libparams_b.so, before libparams_b.so registers, with the
 * loader's lock held, and lets the test decide what happens meanwhile.
 */
#include "params_obj.h"

static void __attribute__((constructor)) params_gate(void)
{
	if (params_gate_hook)
		params_gate_hook();
}
