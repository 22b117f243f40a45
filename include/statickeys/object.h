/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Per-object registration.  Every executable and shared object that includes
 * a static-key header registers its own tables with the library from a
 * constructor, and removes them from a destructor (dlclose, exit), the way the
 * kernel's module loader hands a module's jump table to the core.
 */
#ifndef _STATICKEYS_OBJECT_H
#define _STATICKEYS_OBJECT_H

#include <statickeys/export.h>

SK_BEGIN_DECLS

struct jump_entry;
struct obs_kernel_param;

#define STATICKEYS_OBJECT_ABI		1

/* Flags of struct statickeys_object. */
#define STATICKEYS_OBJ_MANUAL_SEAL	0x1	/* seal on statickeys_seal() only */
#define STATICKEYS_OBJ_UNKNOWN_QUIET	0x2	/* main program: no unknown-word report */

/*
 * What one object hands the library.  Every translation unit of an object
 * describes the same object (the section bounds are per object), so the
 * library registers it once and ignores the repeats.
 */
struct statickeys_object {
	unsigned int abi;
	unsigned int flags;
	const void *handle;			/* identity: the object's __dso_handle */
	struct jump_entry *jump_start, *jump_stop;
	const struct obs_kernel_param *param_start, *param_stop;
	void *ro_start, *ro_stop;		/* read-only-after-init keys */
	void *ro_page_start, *ro_page_end;	/* whole pages of ro keys */
};

void statickeys_register_object(const struct statickeys_object *obj);
void statickeys_unregister_object(const struct statickeys_object *obj);

#ifndef STATICKEYS_NO_OBJECT_CTOR

/*
 * Weak and hidden: each reference resolves inside this object (or to NULL
 * when the object has no such section), never to another object's table.
 */
#define __SK_OBJ_SYM	__attribute__((weak, visibility("hidden")))
extern char __start___jump_table[] __SK_OBJ_SYM;
extern char __stop___jump_table[] __SK_OBJ_SYM;
extern char __start___sk_setup[] __SK_OBJ_SYM;
extern char __stop___sk_setup[] __SK_OBJ_SYM;
extern char __start___sk_ro_after_init[] __SK_OBJ_SYM;
extern char __stop___sk_ro_after_init[] __SK_OBJ_SYM;
extern void *__dso_handle __SK_OBJ_SYM;

#ifdef STATICKEYS_MANUAL_SEAL
#define __SK_OBJ_SEAL	STATICKEYS_OBJ_MANUAL_SEAL
#else
#define __SK_OBJ_SEAL	0
#endif
/*
 * A program that takes words of its own from the same command line
 * (Documentation/boot-params.rst, "Unknown parameters").
 */
#ifdef STATICKEYS_UNKNOWN_PARAMS_QUIET
#define __SK_OBJ_UNKNOWN	STATICKEYS_OBJ_UNKNOWN_QUIET
#else
#define __SK_OBJ_UNKNOWN	0
#endif
#define __SK_OBJ_FLAGS	(__SK_OBJ_SEAL | __SK_OBJ_UNKNOWN)

static inline void __sk_object_describe(struct statickeys_object *o)
{
	o->abi = STATICKEYS_OBJECT_ABI;
	o->flags = __SK_OBJ_FLAGS;
	o->handle = &__dso_handle;
	o->jump_start = (struct jump_entry *)(void *)__start___jump_table;
	o->jump_stop = (struct jump_entry *)(void *)__stop___jump_table;
	o->param_start = (const struct obs_kernel_param *)(void *)__start___sk_setup;
	o->param_stop = (const struct obs_kernel_param *)(void *)__stop___sk_setup;
	o->ro_start = __start___sk_ro_after_init;
	o->ro_stop = __stop___sk_ro_after_init;
	/*
	 * The section is made of whole pages (see __sk_ro_key_pages in
	 * <linux/jump_label.h>); the library checks the alignment.
	 */
	o->ro_page_start = __start___sk_ro_after_init;
	o->ro_page_end = __stop___sk_ro_after_init;
}

/*
 * Priority 101: before the object's own constructors, so that boot
 * parameters are applied and read-only keys sealed before user code runs.
 */
static void __attribute__((constructor(101), used)) __sk_object_ctor(void)
{
	struct statickeys_object o;

	__sk_object_describe(&o);
	statickeys_register_object(&o);
}

static void __attribute__((destructor(101), used)) __sk_object_dtor(void)
{
	struct statickeys_object o;

	__sk_object_describe(&o);
	statickeys_unregister_object(&o);
}

#endif /* STATICKEYS_NO_OBJECT_CTOR */

SK_END_DECLS

#endif /* _STATICKEYS_OBJECT_H */
