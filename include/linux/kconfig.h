/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * IS_ENABLED() and friends: turn "is this CONFIG_ macro defined to 1" into a
 * 0/1 integer constant usable in C expressions and in #if, for any macro name,
 * defined or not.  Kconfig's autoconf.h defines enabled options as 1.
 */
#ifndef _LINUX_KCONFIG_H
#define _LINUX_KCONFIG_H

/*
 * How it works: paste the macro's *value* onto __SK_KCONFIG_PROBE_.  Only a
 * value of 1 produces a name that is itself a macro, and that macro expands to
 * two arguments ("~, 1"), shifting a 1 into the second position.  Anything
 * else (an undefined CONFIG_FOO stays the token CONFIG_FOO) leaves the 0 there.
 */
#define __SK_KCONFIG_PROBE_1		~, 1
#define __sk_kconfig_second(a, b, ...)	b
#define __sk_kconfig_pick(probe)	__sk_kconfig_second(probe, 0, ~)
#define __sk_kconfig_is1(value)		__sk_kconfig_pick(__SK_KCONFIG_PROBE_##value)
#define __sk_kconfig_is1_x(value)	__sk_kconfig_is1(value)

#define __sk_kconfig_or_11	1
#define __sk_kconfig_or_10	1
#define __sk_kconfig_or_01	1
#define __sk_kconfig_or_00	0
#define __sk_kconfig_or_(a, b)	__sk_kconfig_or_##a##b
#define __sk_kconfig_or(a, b)	__sk_kconfig_or_(a, b)

/* IS_BUILTIN(CONFIG_FOO) - 1 if CONFIG_FOO is defined to 1, else 0. */
#define IS_BUILTIN(option)	__sk_kconfig_is1_x(option)

/* IS_MODULE(CONFIG_FOO) - 1 if CONFIG_FOO_MODULE is defined to 1 ("=m"). */
#define IS_MODULE(option)	__sk_kconfig_is1_x(option##_MODULE)

/* IS_ENABLED(CONFIG_FOO) - 1 if the option is "y" or "m", else 0. */
#define IS_ENABLED(option)	__sk_kconfig_or(IS_BUILTIN(option), IS_MODULE(option))

/*
 * IS_REACHABLE(CONFIG_FOO) - code here may call into CONFIG_FOO.  There are
 * no modules in a user-space program, so this is IS_ENABLED().
 */
#define IS_REACHABLE(option)	IS_ENABLED(option)

/* __PASTE(a, b) - concatenate after expanding both arguments. */
#ifndef __PASTE
#define ___PASTE(a, b)		a##b
#define __PASTE(a, b)		___PASTE(a, b)
#endif

#endif /* _LINUX_KCONFIG_H */
