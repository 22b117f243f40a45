/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Boot parameters for user space: early_param(), __setup() and
 * early_param_key(), with the kernel's names and meaning.  The command line
 * and its parser are described in Documentation/boot-params.rst.
 */
#ifndef _LINUX_INIT_H
#define _LINUX_INIT_H

#include <statickeys/export.h>
#include <statickeys/object.h>
#include <statickeys/sections.h>

#if defined(__SK_NO_RETAIN) && !defined(__CHECKER__)
#error "boot parameters need __attribute__((retain)) (GCC 11, clang 13 or later): without it the linker's --gc-sections may drop __sk_setup and no handler would ever run"
#endif

#include <linux/kstrtox.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif

/*
 * There is no init memory to free in a process: the markers stay so that
 * kernel code compiles unchanged, and mean nothing.
 */
#define __init
#define __initdata
#define __initconst
#define __exit
#define __exitdata

/*
 * One boot parameter.  @str is the name (for __setup() a prefix, usually
 * ending in '='), @setup_func its handler and @early tells which of the two
 * kernel conventions the handler follows:
 *
 *   early  matched        handler gets          handler returns
 *   1      whole name     the value, or NULL    0 ok, non-zero: malformed
 *   0      prefix of word the word after @str   1 handled, 0 not handled
 *
 * The entries of an executable or shared object sit in its ELF section
 * __sk_setup, an array bounded by __start___sk_setup and __stop___sk_setup,
 * which the object's constructor (<statickeys/object.h>, included above, as
 * kernel code includes only this header) hands to the library.
 * They are writable data: the pointers need relocating in PIE and PIC code.
 */
struct obs_kernel_param {
	const char *str;
	int (*setup_func)(char *val);
	int early;
};

#define __SK_SETUP_SECTION	"__sk_setup"

#define ___sk_paste(a, b)	a##b
#define __sk_paste(a, b)	___sk_paste(a, b)

/*
 * __setup_param() - the kernel's spelling; @unique_id names the entry.
 * The entries are not const on purpose: a const object with relocations
 * would ask for a read-only section and conflict with the writable ones.
 */
#define __setup_param(str, unique_id, fn, early)			\
	static struct obs_kernel_param __sk_paste(__sk_setup_, unique_id) \
	__sk_retain __attribute__((section(__SK_SETUP_SECTION),	\
				   aligned(sizeof(void *)))) =	\
		{ str, fn, early }

/*
 * __setup() - a handler for words that start with @str: @fn receives the
 * rest of the word and returns 1 if it took it, 0 to leave it unknown.
 */
#define __setup(str, fn)						\
	__setup_param(str, __sk_paste(fn##_, __COUNTER__), fn, 0)

/*
 * early_param() - a handler for "@str=value" (or a bare "@str", then @fn
 * gets NULL).  @fn returns 0, or non-zero when the value is malformed: a
 * one-line message is printed and the handler must have changed nothing.
 */
#define early_param(str, fn)						\
	__setup_param(str, __sk_paste(fn##_, __COUNTER__), fn, 1)

/*
 * early_param_key() - let the command line switch a static key.
 * @str: the parameter name, e.g. "randomize_kstack_offset"
 * @skey: &key of a DEFINE_STATIC_KEY_TRUE/FALSE(_RO) key, exactly what
 *	  static_branch_enable() takes
 *
 * "@str=<bool>" enables or disables the key, read with kstrtobool();
 * anything else (a bare "@str" included) is malformed and keeps the
 * default.  The expansion calls static_key_enable()/static_key_disable():
 * include <linux/jump_label.h> first.  One use per line of source.
 */
#define early_param_key(str, skey)					\
	__sk_early_param_key(str, skey, __sk_paste(__sk_param_key_, __LINE__))

#define __sk_early_param_key(str, skey, fn)				\
	static int fn(char *val)					\
	{								\
		bool on;						\
									\
		if (kstrtobool(val, &on))				\
			return -1;					\
		if (on)							\
			static_key_enable(&(skey)->key);		\
		else							\
			static_key_disable(&(skey)->key);		\
		return 0;						\
	}								\
	early_param(str, fn)

#endif /* _LINUX_INIT_H */
