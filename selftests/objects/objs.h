/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Keys shared across objects: four defined in libobjs_key.so, one in the
 * test program, and the same five sites compiled into every object.
 */
#ifndef _SELFTESTS_OBJS_H
#define _SELFTESTS_OBJS_H

#include <stdint.h>
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(obj_false);
DECLARE_STATIC_KEY_TRUE(obj_true);
extern struct static_key obj_old_false;	/* STATIC_KEY_INIT_FALSE */
extern struct static_key obj_old_true;	/* STATIC_KEY_INIT_TRUE */
DECLARE_STATIC_KEY_FALSE(exe_false);	/* defined in the test program */

#define OBJS_NR_KEYS	5

/*
 * OBJS_SITES(p) - one site of each key, each returning the key's state, and
 * p_read(v) that runs them all.
 */
#define OBJS_SITE(name, expr)					\
	static __attribute__((noinline)) int name(void)		\
	{							\
		if (expr)					\
			return 1;				\
		return 0;					\
	}

#define OBJS_SITES(p)						\
	OBJS_SITE(p##_s0, static_branch_unlikely(&obj_false))	\
	OBJS_SITE(p##_s1, static_branch_likely(&obj_true))	\
	OBJS_SITE(p##_s2, static_key_false(&obj_old_false))	\
	OBJS_SITE(p##_s3, static_key_true(&obj_old_true))	\
	OBJS_SITE(p##_s4, static_branch_unlikely(&exe_false))	\
	void p##_read(int *v)					\
	{							\
		v[0] = p##_s0();				\
		v[1] = p##_s1();				\
		v[2] = p##_s2();				\
		v[3] = p##_s3();				\
		v[4] = p##_s4();				\
	}

void objk_read(int *v);		/* sites in libobjs_key.so */
void obju_read(int *v);		/* sites in libobjs_user.so */

/* In libobjs_late.so, which the test only dlopen()s. */
typedef void objs_read_fn(int *v);
typedef int objs_sites_fn(uintptr_t *addrs, int max);

#endif /* _SELFTESTS_OBJS_H */
