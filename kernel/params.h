/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the core calls in kernel/params.c: one call when an executable or
 * shared object registers its boot parameters, one when it goes away.
 */
#ifndef _KERNEL_PARAMS_H
#define _KERNEL_PARAMS_H

#include <linux/init.h>

/*
 * Both are called without any library lock held, usually from the object's
 * constructor or destructor, i.e. perhaps with the loader's lock held: they
 * take only sk_params_lock, and the handlers they run (with no lock of ours
 * held) take the jump-label lock through static_key_enable().  Register
 * applies the current command line to the entries [@start, @stop): every
 * early_param() over the whole line first, then every __setup().  The core seals the object's read-only keys after
 * it returns.  After unregister the entries are never touched again.
 */
__attribute__((visibility("hidden")))
void __sk_params_register_object(const struct obs_kernel_param *start,
				 const struct obs_kernel_param *stop,
				 const char *objname);

__attribute__((visibility("hidden")))
void __sk_params_unregister_object(const struct obs_kernel_param *start);

#endif /* _KERNEL_PARAMS_H */
