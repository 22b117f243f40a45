/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the layers above the objects (boot parameters, deferred keys,
 * introspection) are told of an object's coming and going.  Each places
 * one struct sk_object_hook in the sk_object_hooks section with
 * SK_OBJECT_HOOK(); kernel/object.c walks the section, so that it calls
 * nothing above it by name.  The library is linked whole (libstatickeys.a
 * is one relocatable object), so no hook is dropped from a static link.
 */
#ifndef _STATICKEYS_KERNEL_OBJECT_HOOKS_H
#define _STATICKEYS_KERNEL_OBJECT_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <statickeys/object.h>
#include "internal.h"
#include "../lib/section.h"

/* Within each event, the hooks of SK_HOOK_FIRST run before the others. */
enum sk_object_hook_order {
	SK_HOOK_FIRST,
	SK_HOOK_LAST,
	SK_HOOK_ORDERS
};

/*
 * Every callback may be NULL; each is called with no library lock held.
 * @registered: @d was linked and its sites brought to their keys' state,
 *	before its read-only keys are sealed (@name: the object's).
 * @ready: registration of @d is over; @main_program: it is the program's.
 * @unmapping: the segment [@start, @end) of an object being unregistered
 *	goes away: nothing may touch it after this returns.
 * @unregistered: @d was unlinked.
 */
struct sk_object_hook {
	enum sk_object_hook_order order;
	void (*registered)(const struct statickeys_object *d, const char *name);
	void (*ready)(const struct statickeys_object *d, bool main_program);
	void (*unmapping)(uintptr_t start, uintptr_t end);
	void (*unregistered)(const struct statickeys_object *d);
};

#define SK_OBJECT_HOOK(name)						\
	SK_SECTION_ENTRY(struct sk_object_hook, sk_object_hooks, name)

SK_SECTION_TABLE(struct sk_object_hook, sk_object_hooks);

/* Each hook, those of each order together, in order. */
#define for_each_object_hook(h, ord)					\
	for ((ord) = 0; (ord) < SK_HOOK_ORDERS; (ord)++)		\
		sk_section_for_each(h, sk_object_hooks)			\
			if ((h)->order == (ord))

#endif /* _STATICKEYS_KERNEL_OBJECT_HOOKS_H */
