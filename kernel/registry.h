/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The registry layer: the table of registered objects (kernel/registry.c),
 * their sorted jump tables (kernel/registry_table.c) and the sealing of
 * their read-only keys (kernel/seal.c).  Every call is made with
 * jump_label_mutex held unless it says otherwise; the lock is the key
 * core's, taken by the callers above (kernel/object.c).
 */
#ifndef _STATICKEYS_KERNEL_REGISTRY_H
#define _STATICKEYS_KERNEL_REGISTRY_H

#include <stdbool.h>
#include "internal.h"

#define MAX_SEGMENTS	8
#define SK_OBJECT_NAME_MAX	256

struct sk_segment {
	uintptr_t start, end;
	int prot;
};

/*
 * One registered executable or shared object.  Its entries are sorted by key
 * then address, so the sites of a key form one run found by binary search.
 */
struct sk_object {
	struct sk_object *next;
	const void *handle;
	struct jump_entry *start, *stop;
	const struct obs_kernel_param *param_start;
	char *ro_start, *ro_stop;
	char *ro_page_start, *ro_page_end;
	unsigned int flags;
	bool sealed;
	bool main;		/* the main program: never unmapped */
	bool pinned;		/* made RTLD_NODELETE at exit: never unmapped */
	void **copies;		/* read-only keys the program uses a copy of */
	size_t nr_copies;
	int nsegs;
	struct sk_segment segs[MAX_SEGMENTS];
	char name[SK_OBJECT_NAME_MAX];
};

/* ---- the object table (kernel/registry.c) ---- */

/*
 * Fill @o's name and segments from the loader: those of the object that
 * maps @addr.  Asks the loader: called with no library lock held.
 */
__hidden void sk_registry_fill(struct sk_object *o, uintptr_t addr);
/* Whether [@addr, @addr + @len) lies in one of @o's executable segments. */
__hidden bool sk_in_text(const struct sk_object *o, uintptr_t addr, size_t len);
/* The object registered as @handle, or NULL. */
__hidden struct sk_object *sk_registry_find(const void *handle);
/* The object after @o (NULL: the first, the newest), or NULL past the last. */
__hidden struct sk_object *sk_registry_next(const struct sk_object *o);
__hidden void sk_registry_link(struct sk_object *o);
__hidden void sk_registry_unlink(struct sk_object *o);

/* ---- sorted jump tables (kernel/registry_table.c) ---- */

/*
 * What registration needs to know of a table, in one pass: whether it is
 * in (key, code) order already, where its sites lie, and whether any of
 * its keys is not in the state its sites were built for.
 */
struct table_scan {
	bool sorted;		/* in (key, code) order */
	bool rising;		/* each site above the one before */
	bool changed;		/* a key's state differs from its built one */
	uintptr_t lo, hi;	/* lowest and highest site address */
};

/* @key is not in the state its sites were built for. */
static inline bool sk_key_changed(uintptr_t key)
{
	struct static_key *k = (struct static_key *)key;

	return (static_key_count(k) != 0) != !!(k->type & JUMP_TYPE_TRUE);
}

__hidden void sk_table_scan(const struct jump_entry *start,
			    const struct jump_entry *stop, struct table_scan *s);
__hidden void sk_table_sort(struct jump_entry *start, struct jump_entry *stop,
			    struct table_scan *s);
__hidden struct jump_entry *sk_key_run_end(struct jump_entry *e,
					   struct jump_entry *stop);

/*
 * A site claimed by two keys (identical code folding): the site and the
 * two claims, each key with its polarity bit.
 */
struct shared_site {
	uintptr_t code;
	uintptr_t key, other;
};

#define NR_SHARED_REPORTED	8

__hidden long sk_table_check_shared(struct jump_entry *start,
				    struct jump_entry *stop, bool rising,
				    struct shared_site *out);

/* ---- read-only keys (kernel/seal.c) ---- */

/*
 * The copies the program uses of the read-only keys in [@start, @stop):
 * their number, the copies in *@copies.  Asks the loader: no lock held.
 */
__hidden size_t sk_seal_find_copies(char *start, char *stop,
				    const char *objname, void ***copies);
/* Make @o's read-only keys read-only, and refuse changes of @copies. */
__hidden void sk_seal_object(struct sk_object *o, void **copies,
			     size_t nr_copies);

#endif /* _STATICKEYS_KERNEL_REGISTRY_H */
