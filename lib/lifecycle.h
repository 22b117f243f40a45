/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * fork() and exit() handling, written once (lib/lifecycle.c).  Each layer
 * that holds a lock or per-process state declares its fork handlers with
 * SK_LIFECYCLE() at its level; the one pthread_atfork() registration runs
 * every prepare handler from the top level down, which is the lock order
 * of Documentation/static-keys.rst, and the parent or child handlers from
 * the bottom level up, so that locks are released in the reverse order and
 * the lowest layers (the writer's descriptors) are fixed first in a child.
 * A layer with something to do when exit() begins declares it with
 * SK_LIFECYCLE_EXIT(); the exit phase runs from the top level down.
 */
#ifndef _STATICKEYS_LIB_LIFECYCLE_H
#define _STATICKEYS_LIB_LIFECYCLE_H

#include <stdbool.h>
#include <statickeys/sections.h>
#include "section.h"

/*
 * The levels, bottom (0) to top.  Prepare runs SK_LC_APPLY first,
 * parent/child run SK_LC_CONTROL first.  The two top levels hold no lock
 * and have exit handlers only; the exit phase runs SK_LC_INTROSPECT first.
 * SK_LC_CONTROL's locks are leaves, taken with nothing else after them
 * (the channel's thread runs requests without them): innermost, so that
 * prepare takes them last, when every other lock of the fork is held.
 */
enum sk_lifecycle_level {
	SK_LC_CONTROL,	/* the control channel (kernel/control.c): its leaf locks */
	SK_LC_WRITER,	/* the write method's descriptors (kernel/text_poke_procmem.c) */
	SK_LC_ARCH,	/* the arch patcher's per-process state */
	SK_LC_DEFERRED,	/* the deferred-work lock (jump_label_ratelimit.c) */
	SK_LC_PARAMS,	/* sk_params_lock (kernel/params.c) */
	SK_LC_CORE,	/* jump_label_mutex (kernel/jump_label.c) */
	SK_LC_APPLY,	/* sk_apply_lock (kernel/params.c), outermost */
	SK_LC_OBJECTS,	/* objects stay registered at exit (kernel/object.c) */
	SK_LC_INTROSPECT, /* STATICKEYS_DEBUG=keys' table (kernel/introspect.c) */
	SK_LC_NR
};

/*
 * Any handler may be NULL.  The fork handlers run in the fork()ing thread;
 * exit gets @main_program, whether the main program's registration armed
 * the phase (see sk_lifecycle_exit_arm()).
 */
struct sk_lifecycle {
	enum sk_lifecycle_level level;
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
	void (*exit)(bool main_program);
};

/*
 * Declare the handlers of one layer: an entry of the table "sk_lifecycle"
 * (lib/section.h), which lib/lifecycle.c walks.  Entries of one level run
 * in link order for prepare and in the reverse order for parent and child.
 */
#define SK_LIFECYCLE(name, lvl, pre, par, chi)				\
	SK_SECTION_ENTRY(struct sk_lifecycle, sk_lifecycle,		\
			 __sk_lifecycle_##name) = {			\
		.level = (lvl), .prepare = (pre), .parent = (par),	\
		.child = (chi),						\
	}

#define SK_LIFECYCLE_EXIT(name, lvl, fn)				\
	SK_SECTION_ENTRY(struct sk_lifecycle, sk_lifecycle,		\
			 __sk_lifecycle_##name) = {			\
		.level = (lvl), .exit = (fn),				\
	}

/*
 * Register the atfork handlers, once; called by the key core's constructor
 * (which also links this file in when the static library is used).
 */
__attribute__((visibility("hidden"))) void sk_lifecycle_init(void);

/*
 * Arm the exit phase: an atexit() handler that runs every exit handler,
 * once per kind of caller (@main_program or not).  It must run before the
 * loader's handler, which runs the destructors: glibc registers that one
 * after the shared objects' constructors and before the main program's,
 * so the phase is armed when the main program registers its object, and
 * when the first object that is not the main program does (a host that
 * loads its plugins with dlopen() and does not use the library itself).
 * An atexit() handler of a shared object also runs when it is dlclose()d:
 * the handlers must allow for that, and for running twice.
 */
__attribute__((visibility("hidden"))) void sk_lifecycle_exit_arm(bool main_program);

#endif /* _STATICKEYS_LIB_LIFECYCLE_H */
