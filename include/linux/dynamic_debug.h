/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Dynamic debug: every pr_debug() site has a descriptor and a static key of
 * its own; the site costs one NOP until a query (dyndbg= on the command
 * line, or dynamic_debug_exec_queries()) switches it on.  Names and meaning
 * are the kernel's; Documentation/dynamic-debug.rst is the guide.
 */
#ifndef _DYNAMIC_DEBUG_H
#define _DYNAMIC_DEBUG_H

#include <statickeys/config.h>
#include <statickeys/export.h>
#include <statickeys/object.h>
#include <statickeys/sections.h>
#include <linux/init.h>
#include <linux/jump_label.h>

SK_BEGIN_DECLS

/*
 * One pr_debug() site, in the object's section __dyndbg.  @modname is
 * KBUILD_MODNAME when the file was built with one, otherwise NULL until the
 * object registers, when the library names it after the object file.
 */
struct _ddebug {
	const char *modname;
	const char *function;
	const char *filename;
	const char *format;
	unsigned int lineno:18;
	unsigned int class_id:6;
	/* The flags a query sets: p f l m t, as the kernel spells them. */
#define _DPRINTK_FLAGS_NONE	0
#define _DPRINTK_FLAGS_PRINT	(1 << 0)
#define _DPRINTK_FLAGS_INCL_MODNAME	(1 << 1)
#define _DPRINTK_FLAGS_INCL_FUNCNAME	(1 << 2)
#define _DPRINTK_FLAGS_INCL_LINENO	(1 << 3)
#define _DPRINTK_FLAGS_INCL_TID	(1 << 4)
#define _DPRINTK_FLAGS_INCL_ANY						\
	(_DPRINTK_FLAGS_INCL_MODNAME | _DPRINTK_FLAGS_INCL_FUNCNAME |	\
	 _DPRINTK_FLAGS_INCL_LINENO | _DPRINTK_FLAGS_INCL_TID)
#ifdef DEBUG
#define _DPRINTK_FLAGS_DEFAULT	_DPRINTK_FLAGS_PRINT
#else
#define _DPRINTK_FLAGS_DEFAULT	0
#endif
	unsigned int flags:8;
	union {
		struct static_key_true dd_key_true;
		struct static_key_false dd_key_false;
	} key;
} __attribute__((aligned(8)));

#define _DPRINTK_CLASS_DFLT	0x3f

#ifdef CONFIG_DYNAMIC_DEBUG

#define __SK_DYNDBG_SECTION	"__dyndbg"

#ifndef KBUILD_MODNAME
#define __SK_DYNDBG_MODNAME	((const char *)0)
#else
#define __SK_DYNDBG_MODNAME	KBUILD_MODNAME
#endif

#ifdef DEBUG
#define __SK_DYNDBG_KEY_INIT	.key.dd_key_true = STATIC_KEY_TRUE_INIT
#define DYNAMIC_DEBUG_BRANCH(descriptor)				\
	static_branch_likely(&(descriptor).key.dd_key_true)
#else
#define __SK_DYNDBG_KEY_INIT	.key.dd_key_false = STATIC_KEY_FALSE_INIT
#define DYNAMIC_DEBUG_BRANCH(descriptor)				\
	static_branch_unlikely(&(descriptor).key.dd_key_false)
#endif

#define DEFINE_DYNAMIC_DEBUG_METADATA(name, fmt)			\
	static struct _ddebug name __sk_retain				\
	__attribute__((section(__SK_DYNDBG_SECTION), aligned(8))) = {	\
		.modname = __SK_DYNDBG_MODNAME,				\
		.function = __func__,					\
		.filename = __FILE__,					\
		.format = (fmt),					\
		.lineno = __LINE__,					\
		.class_id = _DPRINTK_CLASS_DFLT,			\
		.flags = _DPRINTK_FLAGS_DEFAULT,			\
		__SK_DYNDBG_KEY_INIT,					\
	}

void __dynamic_pr_debug(struct _ddebug *descriptor, const char *fmt, ...)
	SK_SYM(__dynamic_pr_debug) __attribute__((format(printf, 2, 3)));

/*
 * Run the queries in @query (several separated by ';' or newlines), as
 * if "module @modname" were part of each when @modname is not NULL.  All
 * are checked first: one bad word and nothing changes.  The changes of one
 * call are written in one batch.
 * Return: the number of sites that matched, or -EINVAL (a message on
 * stderr names the wrong word), -E2BIG (too many words), -ENOMEM,
 * -EDEADLK (called inside the caller's own jump_label_lock() section).
 */
int ddebug_exec_queries(char *query, const char *modname)
	SK_SYM(ddebug_exec_queries);
int dynamic_debug_exec_queries(const char *query, const char *modname)
	SK_SYM(dynamic_debug_exec_queries);

/* The object's table of descriptors, handed over by the object itself. */
void statickeys_ddebug_add_table(struct _ddebug *start, struct _ddebug *stop,
				 const void *handle);
void statickeys_ddebug_remove_table(struct _ddebug *start);

#if !defined(STATICKEYS_NO_OBJECT_CTOR) && !defined(__SK_DYNDBG_NO_TABLE) && \
    !defined(__CHECKER__)
extern char __start___dyndbg[] __attribute__((weak, visibility("hidden")));
extern char __stop___dyndbg[] __attribute__((weak, visibility("hidden")));

/*
 * After <statickeys/object.h>'s constructor (101): the object's sites are
 * registered before the queries already run are applied to them.
 */
static void __attribute__((constructor(102), used)) __sk_dyndbg_ctor(void)
{
	char *start = __start___dyndbg, *stop = __stop___dyndbg;

	if (start != stop)
		statickeys_ddebug_add_table((struct _ddebug *)(void *)start,
					    (struct _ddebug *)(void *)stop,
					    &__dso_handle);
}

static void __attribute__((destructor(102), used)) __sk_dyndbg_dtor(void)
{
	char *start = __start___dyndbg, *stop = __stop___dyndbg;

	if (start != stop)
		statickeys_ddebug_remove_table((struct _ddebug *)(void *)start);
}
#endif

#define __dynamic_func_call(id, fmt, func, ...) do {			\
	DEFINE_DYNAMIC_DEBUG_METADATA(id, fmt);				\
	if (DYNAMIC_DEBUG_BRANCH(id))					\
		func(&id, ##__VA_ARGS__);				\
} while (0)

#define __dynamic_func_call_no_desc(id, fmt, func, ...) do {		\
	DEFINE_DYNAMIC_DEBUG_METADATA(id, fmt);				\
	if (DYNAMIC_DEBUG_BRANCH(id))					\
		func(__VA_ARGS__);					\
} while (0)

#define _dynamic_func_call(fmt, func, ...)				\
	__dynamic_func_call(__sk_paste(__UNIQUE_ID_ddebug, __COUNTER__), \
			    fmt, func, ##__VA_ARGS__)
#define _dynamic_func_call_no_desc(fmt, func, ...)			\
	__dynamic_func_call_no_desc(__sk_paste(__UNIQUE_ID_ddebug, __COUNTER__), \
				    fmt, func, ##__VA_ARGS__)

#define dynamic_pr_debug(fmt, ...)					\
	_dynamic_func_call(fmt, __dynamic_pr_debug, pr_fmt(fmt), ##__VA_ARGS__)

#else /* !CONFIG_DYNAMIC_DEBUG */

static inline int ddebug_exec_queries(char *query, const char *modname)
{
	(void)query;
	(void)modname;
	return -22;	/* -EINVAL, as the kernel without dynamic debug */
}

static inline int dynamic_debug_exec_queries(const char *query,
					     const char *modname)
{
	(void)query;
	(void)modname;
	return -22;
}

#endif /* CONFIG_DYNAMIC_DEBUG */

SK_END_DECLS

#endif /* _DYNAMIC_DEBUG_H */
