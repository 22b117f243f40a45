// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug's ways in: the kernel's two calls that run queries, and
 * the boot parameters dyndbg= and <object>.dyndbg= of the command line.
 * Each runs ddebug_exec() (kernel/dynamic_debug.c).
 */
#ifdef CONFIG_DYNAMIC_DEBUG

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library has no sites of its own: no table to register. */
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include <linux/init.h>
#include "ddebug.h"
#include "internal.h"

/*
 * Not a cancellation point: a call is settled and its memory accounted
 * for before it returns, whatever is pending for the thread.
 */
static int ddebug_exec_nocancel(const char *query, const char *modname)
{
	int old, ret;

	if (!query)
		return -EINVAL;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	ret = ddebug_exec(query, modname);
	pthread_setcancelstate(old, NULL);
	return ret;
}

SK_EXPORT int ddebug_exec_queries(char *query, const char *modname)
{
	return ddebug_exec_nocancel(query, modname);
}

SK_EXPORT int dynamic_debug_exec_queries(const char *query, const char *modname)
{
	return ddebug_exec_nocancel(query, modname);
}

/*
 * "dyndbg=QUERY" for every object, "NAME.dyndbg=QUERY" for the object
 * NAME (a bare "NAME.dyndbg" is "+p"), as the kernel's command line has
 * them.  One handler sees every word: __setup() matches by prefix and
 * an object's name comes first.
 */
static int __init ddebug_setup(char *word)
{
	static const char param[] = "dyndbg";
	char *eq = strchr(word, '='), *dot, *val;
	size_t len = eq ? (size_t)(eq - word) : strlen(word);
	char *modname = NULL;

	if (len < sizeof(param) - 1 ||
	    strncmp(word + len - (sizeof(param) - 1), param, sizeof(param) - 1))
		return 0;
	dot = word + len - (sizeof(param) - 1);
	if (dot != word) {
		if (dot[-1] != '.' || dot - 1 == word)
			return 0;
		modname = strndup(word, (size_t)(dot - 1 - word));
		if (!modname)
			return 1;
	}
	val = eq ? eq + 1 : (char *)"+p";
	if (!modname && !eq)
		val = (char *)"";
	if (ddebug_exec(val, modname) < 0)
		fprintf(stderr, "dyndbg: \"%s\" not applied\n", word);
	free(modname);
	return 1;
}
__setup("", ddebug_setup);

#endif /* CONFIG_DYNAMIC_DEBUG */
