/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The kernel's printing names for code that builds in user space: the
 * pr_*() family writes one line to stderr; pr_debug() is a dynamic-debug
 * site (<linux/dynamic_debug.h>) with CONFIG_DYNAMIC_DEBUG, otherwise
 * compiled in with DEBUG and checked but never printed without.
 */
#ifndef _LINUX_PRINTK_H
#define _LINUX_PRINTK_H

#include <stdio.h>
#include <statickeys/config.h>
#include <linux/dynamic_debug.h>

/*
 * Log levels are a prefix the kernel's log reads; a process has no log
 * levels, so they are empty strings and every level goes to stderr.
 */
#define KERN_SOH	""
#define KERN_EMERG	""
#define KERN_ALERT	""
#define KERN_CRIT	""
#define KERN_ERR	""
#define KERN_WARNING	""
#define KERN_NOTICE	""
#define KERN_INFO	""
#define KERN_DEBUG	""
#define KERN_DEFAULT	""
#define KERN_CONT	""

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define printk(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)

/* Checks the arguments against the format, prints nothing. */
#define no_printk(fmt, ...) ({						\
	if (0)								\
		printk(fmt, ##__VA_ARGS__);				\
	0;								\
})

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)

#if defined(CONFIG_DYNAMIC_DEBUG)
#define pr_debug(fmt, ...)	dynamic_pr_debug(fmt, ##__VA_ARGS__)
#elif defined(DEBUG)
#define pr_debug(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_debug(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif

#endif /* _LINUX_PRINTK_H */
