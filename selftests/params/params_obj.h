/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The dlopen()ed objects of test_params_locks: libparams_a.so and
 * libparams_b.so each have one early_param() that records its value and
 * calls back into the test program; libparams_gate.so, a dependency of
 * libparams_b.so, calls back from its constructor, i.e. while the thread
 * that runs dlopen() holds the loader's lock.
 */
#ifndef _SELFTESTS_PARAMS_OBJ_H
#define _SELFTESTS_PARAMS_OBJ_H

/*
 * Hooks the test program defines (it is linked with -rdynamic); weak, so
 * that the objects also load into a program without them.
 */
void params_gate_hook(void) __attribute__((weak));
void params_obj_hook(const char *param, int value) __attribute__((weak));

/* What each object's parameter last received (-1: never called). */
int params_a_value(void);
int params_b_value(void);

#endif /* _SELFTESTS_PARAMS_OBJ_H */
