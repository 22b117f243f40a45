/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Introspection: every key the library knows, with its state and the state
 * of each of its sites, as statickeys_for_each_key() walks them, and the
 * table STATICKEYS_DEBUG=keys and statickeys-keys(1) print.
 */
#ifndef _STATICKEYS_INTROSPECT_H
#define _STATICKEYS_INTROSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <statickeys/export.h>

SK_BEGIN_DECLS

/* What a site holds now. */
enum statickeys_site_state {
	STATICKEYS_SITE_NOP,		/* the no-op: the branch not taken */
	STATICKEYS_SITE_JMP,		/* the jump to the site's target */
	STATICKEYS_SITE_INT3,		/* a breakpoint over one of them */
	STATICKEYS_SITE_EMULATED,	/* a failed write left it emulated */
	STATICKEYS_SITE_OTHER,		/* neither instruction */
	STATICKEYS_SITE_DEAD,		/* outside its object's code: refused */
};

struct statickeys_site_info {
	const void *addr;		/* the patched instruction */
	const void *target;		/* where the jump goes */
	bool likely;			/* built with the _likely polarity */
	enum statickeys_site_state state;
};

/* Flags of struct statickeys_key_info. */
#define STATICKEYS_KEY_TRUE	0x1	/* defined TRUE (default on) */
#define STATICKEYS_KEY_RO	0x2	/* read-only after init */
#define STATICKEYS_KEY_DEFERRED	0x4	/* a deferred key (by its symbol's size) */

struct statickeys_key_info {
	const void *key;
	const char *name;		/* its symbol, or NULL: none found */
	const char *name_table;		/* "symtab", "dynsym" or "none" */
	const char *object;		/* path of the file mapped at the key */
	unsigned int flags;		/* STATICKEYS_KEY_* */
	int count;			/* reference count (-1: being enabled) */
	bool enabled;			/* the branch direction: on */
	size_t nr_sites;
	const struct statickeys_site_info *sites;	/* in address order */
};

typedef int (*statickeys_key_fn)(const struct statickeys_key_info *info,
				 void *arg);

/**
 * statickeys_for_each_key() - call @fn for every key with a registered site.
 * @fn: called once per key, in key address order; a non-zero return stops
 *	the walk and is returned
 * @arg: passed to @fn
 *
 * The walk holds jump_label_lock() (it may be called inside the caller's
 * own section): @fn sees one consistent state, and must not change a key
 * (a change from inside is refused with EDEADLK) nor keep the pointers it
 * is given.  Names come from each object's file (.symtab, else .dynsym),
 * never from the loader.  Returns 0, @fn's non-zero value, or -ENOMEM.
 */
int statickeys_for_each_key(statickeys_key_fn fn, void *arg);

/**
 * statickeys_print_keys() - print the table of every key to @f, one line
 * per key and one per site, in the format of statickeys-keys(1).
 * @f: the stream
 *
 * Returns the number of keys printed, or -ENOMEM.
 */
int statickeys_print_keys(FILE *f);

/** statickeys_site_state_name() - "NOP", "JMP", "INT3", "EMULATED"... */
const char *statickeys_site_state_name(enum statickeys_site_state state);

SK_END_DECLS

#endif /* _STATICKEYS_INTROSPECT_H */
