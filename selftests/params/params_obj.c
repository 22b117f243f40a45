// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libparams_a.so and libparams_b.so, built from this file with
 * PARAMS_OBJ=a or b: one early_param() "pa=N" or "pb=N".
 */
#include <stdlib.h>

#include <linux/init.h>
#include <statickeys/object.h>

#include "params_obj.h"

#define __cat(a, b)	a##b
#define cat(a, b)	__cat(a, b)
#define str(x)		#x
#define xstr(x)		str(x)

static int value = -1;

static int set_value(char *val)
{
	if (!val)
		return -1;
	value = atoi(val);
	if (params_obj_hook)
		params_obj_hook("p" xstr(PARAMS_OBJ), value);
	return 0;
}
early_param("p" xstr(PARAMS_OBJ), set_value);

int cat(cat(params_, PARAMS_OBJ), _value)(void)
{
	return value;
}
