/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Dynamic debug inside the library: a query, parsed once by
 * kernel/dynamic_debug_query.c, matched and applied by kernel/dynamic_debug.c.
 */
#ifndef _SK_DDEBUG_H
#define _SK_DDEBUG_H

#include <stdbool.h>
#include <stddef.h>

struct _ddebug;

/* One query: what it selects (NULL: anything) and what it does to flags. */
struct ddebug_query {
	const char *filename;
	const char *module;
	const char *function;
	const char *format;
	bool format_anchored;		/* "format ^text": at the start only */
	unsigned int first_lineno, last_lineno;	/* 0, 0: any line */
	unsigned int flags;		/* new = (old & mask) | flags */
	unsigned int mask;
	/* Remembered: a later query sets every flag this one sets, on the same sites. */
	bool superseded;
};

/* The queries of one call, in order, and the text they point into. */
struct ddebug_queries {
	size_t nr;
	struct ddebug_query *q;
	char *text;
};

/*
 * What the last site's strings gave, kept by pointer while a query runs
 * over a table: a file's sites share its name, a function's its name, a
 * table its module, so most sites cost a few compares of pointers.
 */
struct ddebug_match_cache {
	const char *filename, *module, *function;
	bool filename_ok, module_ok, function_ok;
};

/* Run a call of queries (kernel/dynamic_debug.c): matched, or -errno. */
int ddebug_exec(const char *query, const char *modname);
int ddebug_parse_queries(const char *text, const char *modname,
			 struct ddebug_queries *out);
void ddebug_free_queries(struct ddebug_queries *qs);
/* What the calling thread's last refused query said was wrong ("" none). */
const char *ddebug_last_bad(void);
/* Call @fn for every registered site, under the tables' lock, until non-zero. */
int ddebug_for_each_site(int (*fn)(const struct _ddebug *dp, void *arg),
			 void *arg);
bool ddebug_query_matches(const struct ddebug_query *q,
			  const struct _ddebug *dp,
			  struct ddebug_match_cache *cache);

#endif /* _SK_DDEBUG_H */
