// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Objects come and go: statickeys_register_object() and
 * statickeys_unregister_object(), which each executable or shared object's
 * constructor and destructor call (<statickeys/object.h>), as the kernel's
 * module loader does for its modules.  Registration links the object into
 * the registry (kernel/registry.c), sorts and checks its jump table
 * (kernel/registry_table.c), brings its sites to their keys' state and
 * seals its read-only keys (kernel/seal.c).  The key core's lock,
 * jump_label_mutex, guards the registry; the lock order and fork()
 * handling are written there once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "object_hooks.h"
#include "queue.h"
#include "../lib/lifecycle.h"
#include "registry.h"

/* Say which keys claim one site; called unlocked (sk_key_name() asks dladdr). */
static void report_shared_sites(const char *objname, long found,
				const struct shared_site *s)
{
	char a[320], b[320];
	long i;

	if (found < 0) {
		sk_warn("%s: out of memory checking its table for sites claimed by two keys: every key of its sites refuses every change",
			objname);
		return;
	}
	for (i = 0; i < found && i < NR_SHARED_REPORTED; i++) {
		sk_key_name((void *)(s[i].key & ~JUMP_ENTRY_FLAGS), a, sizeof(a));
		sk_key_name((void *)(s[i].other & ~JUMP_ENTRY_FLAGS), b, sizeof(b));
		sk_warn("%s: site %p is claimed by key %s%s and by key %s%s (identical code folding, --icf=all?): the site keeps its built instruction and both keys refuse every change",
			objname, (void *)s[i].code, a,
			s[i].key & JUMP_ENTRY_BRANCH ? " (likely)" : "", b,
			s[i].other & JUMP_ENTRY_BRANCH ? " (likely)" : "");
	}
	if (found > NR_SHARED_REPORTED)
		sk_warn("%s: %ld more sites claimed by two keys, refused the same way",
			objname, found - NR_SHARED_REPORTED);
}

/*
 * Bring the sites of a newly loaded object to their keys' current state: a
 * key may have changed before the object was loaded.  With @every_site
 * each site is looked at: one outside the object's executable segments is
 * marked dead: it is never written, and its key refuses every change.
 * Otherwise (the caller found every site in one such segment) only the
 * sites of keys that changed are, one run of the sorted table each.  A
 * site to be rewritten that holds something unexpected (a debugger's
 * breakpoint, say) is reported and left alone; every site is checked again
 * at every change of its key, which is refused while one holds something
 * unexpected.
 */
static void sync_object(struct sk_object *o, bool every_site)
{
	struct jump_entry *e, *run_end;
	struct static_key *key;
	size_t queued = 0;
	int err;

	for (e = o->start; e < o->stop; e = run_end) {
		run_end = sk_key_run_end(e, o->stop);
		key = jump_entry_key(e);
		if (!key || (!every_site && !sk_key_changed((uintptr_t)key)))
			continue;
		for (; e < run_end; e++) {
			enum jump_label_type now, want;

			key = jump_entry_key(e);
			if (jump_entry_is_dead(e))
				continue;
			if (every_site && !sk_in_text(o, jump_entry_code(e),
						   JUMP_LABEL_SITE_SIZE)) {
				e->key |= JUMP_ENTRY_DEAD;
				sk_warn_key(key, "site %p of key " SK_KEYNAME " lies outside its object's code: the key cannot change",
					    (void *)jump_entry_code(e));
				continue;
			}
			/*
			 * A site still in its built state needs no look:
			 * most keys have not changed before their objects
			 * load, and every update checks each site's bytes
			 * anyway.  Reading them all here cost more than the
			 * rest of registration.
			 */
			want = sk_entry_type(e, static_key_count(key));
			if (want == jump_label_init_type(e))
				continue;
			err = arch_jump_label_decode(e, &now);
			if (err) {
				sk_report_site(e, err);
				continue;
			}
			if (now == want)
				continue;
			if (!queued && sk_queue_ready()) {
				sk_warn("%s: cannot write code: sites left in their built state",
					o->name);
				return;
			}
			if (!sk_queue_site(e, want))
				queued++;
		}
	}
	if (queued && sk_queue_apply())
		sk_warn("%s: could not bring %zu sites to their keys' state",
			o->name, queued);
}

static const void *object_identity(const struct statickeys_object *d)
{
	if (d->handle)
		return d->handle;
	if (d->jump_start)
		return d->jump_start;
	if (d->param_start)
		return d->param_start;
	return d->ro_start;
}

/*
 * Seal the object registered as @handle, if it still is and is not sealed:
 * the loader is asked about copies first, with no lock held.
 */
static bool seal_handle(const void *handle)
{
	char *start = NULL, *stop = NULL, name[SK_OBJECT_NAME_MAX];
	struct sk_object *o;
	void **copies = NULL;
	size_t n = 0;
	bool found;

	jump_label_lock();
	o = sk_registry_find(handle);
	found = o && !o->sealed;
	if (found) {
		start = o->ro_start;
		stop = o->ro_stop;
		memcpy(name, o->name, sizeof(name));
	}
	__jump_label_unlock();
	if (!found)
		return false;
	if (start != stop)
		n = sk_seal_find_copies(start, stop, name, &copies);
	jump_label_lock();
	o = sk_registry_find(handle);
	found = o && !o->sealed;
	if (found)
		sk_seal_object(o, copies, n);
	else
		free(copies);
	__jump_label_unlock();
	return found;
}

/* ---- exit ---- */

/*
 * An object's code can run as long as it is mapped, and at exit nothing is
 * unmapped before _exit(): the destructors of the libraries a program
 * links run after the program's own, and may change its keys and run its
 * sites.  So once exit() has begun, an object's destructor leaves it
 * registered if it stays mapped: the main program, and (glibc) every
 * object the exit handler pinned with RTLD_NODELETE, so that a dlclose()
 * from a later exit handler cannot unmap it either.  A dlclose() before
 * exit unregisters as it always did: that object's code stops at its
 * unmap.  (musl never unmaps an object: at exit every object stays.)
 *
 * The handler must run before the loader's, which runs the destructors.
 * glibc registers that one after the shared objects' constructors and
 * before the main program's: the exit phase (lib/lifecycle.c) is armed
 * when the main program registers, and when the first object that is not
 * the main program does (for a host that loads its plugins with dlopen() and does
 * not use the library itself; one loaded with the host would register it
 * too early, and its objects unregister at exit as before).
 */
static bool exiting;

#ifdef __GLIBC__
/* Make the object that holds @handle RTLD_NODELETE.  Asks the loader. */
static bool pin_object(const void *handle)
{
	struct link_map *lm = NULL;
	Lmid_t lmid;
	Dl_info info;

	if (!dladdr1(handle, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    !lm->l_name || !lm->l_name[0] || dlinfo(lm, RTLD_DI_LMID, &lmid))
		return false;
	return dlmopen(lmid, lm->l_name,
		       RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

/*
 * Pin every registered object but the main program and the one that holds
 * the library: this handler also runs when that one is dlclose()d (a
 * private copy of the library in a plugin), and an object cannot be
 * pinned while it is being unloaded.  The loader is asked unlocked: a
 * handle gone meanwhile is not found, and its object is not marked.
 */
static void pin_objects(void)
{
	const void **handles = NULL, **h;
	struct sk_object *o;
	size_t n = 0, i;

	jump_label_lock();
	for (o = sk_registry_next(NULL); o; o = sk_registry_next(o)) {
		if (o->main || sk_in_text(o, (uintptr_t)pin_objects, 1))
			continue;
		h = realloc(handles, (n + 1) * sizeof(*h));
		if (!h)
			break;
		handles = h;
		handles[n++] = o->handle;
	}
	__jump_label_unlock();
	for (i = 0; i < n; i++) {
		if (!pin_object(handles[i]))
			continue;
		jump_label_lock();
		o = sk_registry_find(handles[i]);
		if (o)
			o->pinned = true;
		__jump_label_unlock();
	}
	free(handles);
}

static bool stays_mapped(const struct sk_object *o)
{
	return o->main || o->pinned;
}
#else
static void pin_objects(void)
{
}

static bool stays_mapped(const struct sk_object *o)
{
	(void)o;
	return true;
}
#endif

static void exit_begins(bool main_program)
{
	(void)main_program;
	__atomic_store_n(&exiting, true, __ATOMIC_RELEASE);
	pin_objects();
}

SK_LIFECYCLE_EXIT(objects, SK_LC_OBJECTS, exit_begins);

/**
 * statickeys_register_object() - hand an object's tables to the library.
 * @d: the description, built by the constructor in <statickeys/object.h>
 *
 * Idempotent per object.  Order: link the table and bring its sites to their
 * keys' state; run the registered hooks of the layers above
 * (kernel/object_hooks.h), unlocked: the command line is applied to the
 * object's parameters, whose handlers change keys; seal its read-only keys;
 * run the ready hooks (the start-up reports).  Runs in the
 * object's constructor, with the loader's lock held: it calls into the
 * loader (dl_iterate_phdr, dladdr) only with none of the library's locks.
 */
SK_EXPORT void statickeys_register_object(const struct statickeys_object *d)
{
	struct shared_site shared_sites[NR_SHARED_REPORTED];
	char name[SK_OBJECT_NAME_MAX];
	const void *id = object_identity(d);
	struct table_scan ts;
	bool every_site, main_program;
	long shared;
	const struct sk_object_hook *h;
	enum sk_object_hook_order ord;
	struct sk_object *o;
	int i;

	if (d->abi != STATICKEYS_OBJECT_ABI) {
		sk_warn("object built for ABI %u, library has %u: not registered",
			d->abi, STATICKEYS_OBJECT_ABI);
		return;
	}
	if (!id)
		return;
	o = calloc(1, sizeof(*o));
	if (!o) {
		sk_warn("out of memory registering an object");
		return;
	}
	o->handle = id;
	o->start = d->jump_start;
	o->stop = d->jump_start ? d->jump_stop : d->jump_start;
	o->param_start = d->param_start;
	o->ro_start = d->ro_start;
	o->ro_stop = d->ro_start ? d->ro_stop : d->ro_start;
	o->ro_page_start = d->ro_page_start;
	o->ro_page_end = d->ro_page_end;
	o->flags = d->flags;
	sk_registry_fill(o, (uintptr_t)id);
	/* The main program holds the entry point (musl gives it its path). */
	o->main = sk_in_text(o, getauxval(AT_ENTRY), 1);
	main_program = o->main;

	jump_label_lock();
	sk_batch_settle();	/* the queue is the batch's */
	if (sk_registry_find(id)) {
		__jump_label_unlock();
		free(o);
		return;
	}
	for (i = 0; i < o->nsegs; i++)	/* fresh code: nothing of ours stuck */
		arch_jump_label_repair(o->segs[i].start, o->segs[i].end,
				       SK_STUCK_FRESH);
	sk_table_scan(o->start, o->stop, &ts);
	if (!ts.sorted)
		sk_table_sort(o->start, o->stop, &ts);
	shared = sk_table_check_shared(o->start, o->stop, ts.rising, shared_sites);
	sk_registry_link(o);
	/*
	 * Every site in one executable segment and every key as built: no
	 * site needs a look, whether the table was sorted or in order
	 * already; with keys changed only theirs.  Otherwise each one is
	 * checked.
	 */
	every_site = shared || (ts.lo <= ts.hi &&
		     !sk_in_text(o, ts.lo, ts.hi - ts.lo + JUMP_LABEL_SITE_SIZE));
	if (every_site || ts.changed)
		sync_object(o, every_site);
	if (shared)	/* said unlocked, when o may be gone */
		memcpy(name, o->name, sizeof(name));
	__jump_label_unlock();
	if (shared)
		report_shared_sites(name, shared, shared_sites);

	for_each_object_hook(h, ord)
		if (h->registered)
			h->registered(d, o->name);

	if (!(d->flags & STATICKEYS_OBJ_MANUAL_SEAL))
		seal_handle(id);
	sk_lifecycle_exit_arm(main_program);
	for_each_object_hook(h, ord)
		if (h->ready)
			h->ready(d, main_program);
}

/**
 * statickeys_unregister_object() - forget an object before it is unmapped.
 * @d: the description given at registration
 *
 * Delayed decrements pending in the object's memory are run first (the
 * worker must never touch it afterwards).  After this returns nothing is
 * ever written into the object's memory.  Once exit() has begun, an object
 * that stays mapped until _exit() stays registered (see "exit" above).
 */
SK_EXPORT void statickeys_unregister_object(const struct statickeys_object *d)
{
	const void *id = object_identity(d);
	struct sk_segment segs[MAX_SEGMENTS];
	const struct sk_object_hook *h;
	enum sk_object_hook_order ord;
	struct sk_object *o;
	int nsegs = 0, i;

	jump_label_lock();
	o = sk_registry_find(id);
	if (o && __atomic_load_n(&exiting, __ATOMIC_ACQUIRE) && stays_mapped(o))
		o = NULL;
	if (o) {
		nsegs = o->nsegs;
		memcpy(segs, o->segs, sizeof(segs));
	}
	__jump_label_unlock();
	if (!o)
		return;
	for_each_object_hook(h, ord)
		for (i = nsegs; h->unmapping && i--;)
			h->unmapping(segs[i].start, segs[i].end);

	jump_label_lock();
	sk_batch_settle();	/* the queue is the batch's */
	sk_registry_unlink(o);
	/* Its stuck sites: brought back if they can be, else orphans. */
	for (i = 0; i < o->nsegs; i++)
		arch_jump_label_repair(o->segs[i].start, o->segs[i].end,
				       SK_STUCK_ORPHAN);
	__jump_label_unlock();
	for_each_object_hook(h, ord)
		if (h->unregistered)
			h->unregistered(d);
	free(o->copies);
	free(o);
}

/**
 * statickeys_seal() - seal the read-only keys of every registered object.
 */
SK_EXPORT int statickeys_seal(void)
{
	const void *handle;
	struct sk_object *o;
	int n = 0;

	/* One object at a time: the loader is asked with no lock held. */
	for (;;) {
		jump_label_lock();
		for (o = sk_registry_next(NULL); o && o->sealed;
		     o = sk_registry_next(o))
			;
		handle = o ? o->handle : NULL;
		__jump_label_unlock();
		if (!handle)
			return n;
		n += seal_handle(handle);
	}
}
