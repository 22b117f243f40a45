// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug: the tables of pr_debug() sites every object hands over
 * from its constructor (<linux/dynamic_debug.h>), the queries that switch
 * them, each call in one batch of key changes (the calls and the boot
 * parameters dyndbg= and <object>.dyndbg=: kernel/dynamic_debug_api.c;
 * what a site prints: kernel/dynamic_debug_print.c).
 *
 * Every query that ran is kept, in order: an object that registers later
 * (dlopen()) gets them all replayed on its own sites, so that it ends in
 * the state it would have if it had been there from the start.  A query
 * that a later one makes of no effect is dropped (ddebug_forget_superseded()).
 */
#ifdef CONFIG_DYNAMIC_DEBUG

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library has no sites of its own: no table to register. */
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include <linux/jump_label.h>
#include <statickeys/batch.h>
#include "ddebug.h"
#include "internal.h"

struct ddebug_table {
	struct ddebug_table *next;
	struct _ddebug *start, *stop;
	size_t nr;			/* sites, stop - start */
	int refs;			/* one per translation unit's constructor */
	const char *modname;		/* ddebug_names' */
};

/*
 * The object names the sites point at (dp->modname), one per distinct
 * name, kept for the life of the process: at exit() an object's
 * destructor removes its table while the object stays mapped, and
 * another thread, or a later destructor, can still print from a site.
 * Reloading an object finds its name here again.
 */
struct ddebug_name {
	struct ddebug_name *next;
	char name[];
};

/* A site a call changed, and the flags it had before. */
struct ddebug_undo {
	struct _ddebug *dp;
	unsigned int flags;
};

/* Every query run so far, oldest first. */
struct ddebug_log {
	struct ddebug_log *next;
	struct ddebug_queries qs;
	/* Until its batch's commit says: the sites it changed, and the next
	 * older call of the batch. */
	bool pending;
	struct ddebug_log *pending_next;
	struct ddebug_undo *undo;
	size_t nr_undo, undo_cap;
};

/*
 * Everything below is read and written with jump_label_mutex held (a
 * batch, or jump_label_lock()): a call runs and is remembered inside its
 * batch, the batch's end settles it, and a fork(), which holds the mutex,
 * never finds any of it half changed.  Printing reads a site's flags
 * without a lock.
 */
static struct ddebug_table *ddebug_tables;
static struct ddebug_name *ddebug_names;
static struct ddebug_log *ddebug_log_head, **ddebug_log_tail = &ddebug_log_head;
/* The calls of the open batch, newest first; their commit has not said. */
static struct ddebug_log *ddebug_pending;

/*
 * Apply @q to the flags of the sites of @t, and count the sites it selects
 * in *@found.  With @undo, each site whose flags change is noted there
 * with the flags it had (a site two queries of a call change is noted
 * twice, and given back newest first); returns the end of the notes.
 * No key moves here: ddebug_switch() follows.
 */
static struct ddebug_undo *ddebug_apply(const struct ddebug_query *q,
					struct ddebug_table *t,
					struct ddebug_undo *undo, int *found)
{
	struct ddebug_match_cache cache = { 0 };
	struct _ddebug *dp;

	for (dp = t->start; dp < t->stop; dp++) {
		unsigned int flags;

		if (!ddebug_query_matches(q, dp, &cache))
			continue;
		(*found)++;
		flags = (dp->flags & q->mask) | q->flags;
		if (flags == dp->flags)
			continue;
		if (undo)
			*undo++ = (struct ddebug_undo){ dp, dp->flags };
		dp->flags = flags;
	}
	return undo;
}

/*
 * Make @dp's key do what its p says, in the caller's batch (@batch: open,
 * asked once).  A key counts as on while it is being enabled (-1), so a
 * site is switched once, however often a call's queries changed it.  A
 * key that refuses (a site holding another instruction, a read-only key)
 * leaves p as the key has it, and *@err gets the first refusal (an errno).
 */
static inline __attribute__((always_inline))
void ddebug_switch(struct _ddebug *dp, bool batch, int *err)
{
	bool on = dp->flags & _DPRINTK_FLAGS_PRINT;
	int e;

	if (on == (static_key_count(&dp->key.dd_key_true.key) != 0))
		return;
	e = sk_batch_key_switch(&dp->key.dd_key_true.key, on, batch);
	if (e) {
		dp->flags ^= _DPRINTK_FLAGS_PRINT;
		if (!*err)
			*err = e;
	}
}

/* Give the sites @log changed the flags they had before it, newest first. */
static void ddebug_give_back(struct ddebug_log *log)
{
	while (log->nr_undo--)
		log->undo[log->nr_undo].dp->flags = log->undo[log->nr_undo].flags;
	log->nr_undo = 0;
}

/*
 * The notes of the last settled call, kept for the next: a program that
 * runs queries over ten thousand sites allocates them once.
 */
static struct ddebug_undo *ddebug_spare;
static size_t ddebug_spare_cap;

/* Room in @log's notes for every site once more. */
static int ddebug_undo_reserve(struct ddebug_log *log, size_t sites)
{
	if (!log->undo && ddebug_spare) {
		log->undo = ddebug_spare;
		log->undo_cap = ddebug_spare_cap;
		ddebug_spare = NULL;
		ddebug_spare_cap = 0;
	}
	return sk_reserve_n((void **)&log->undo, &log->undo_cap,
			    log->nr_undo + sites, sizeof(*log->undo));
}

/* @log is settled: its notes become the spare, the bigger one kept. */
static void ddebug_undo_release(struct ddebug_log *log)
{
	if (log->undo_cap > ddebug_spare_cap) {
		free(ddebug_spare);
		ddebug_spare = log->undo;
		ddebug_spare_cap = log->undo_cap;
	} else {
		free(log->undo);
	}
	log->undo = NULL;
	log->nr_undo = log->undo_cap = 0;
}

/*
 * Run the call @log over every table: first every query on the flags,
 * each change noted in @log, in room taken before each query (-ENOMEM:
 * the flags given back, nothing changed); then the key of every site
 * changed, once, in the caller's batch.  Return: the selections, or
 * -ENOMEM.
 */
static int ddebug_run(struct ddebug_log *log, int *err)
{
	bool batch = sk_batch_open();	/* the caller's: for every key */
	struct ddebug_table *t;
	size_t i, sites = 0;
	int found = 0;

	for (t = ddebug_tables; t; t = t->next)
		sites += t->nr;
	for (i = 0; i < log->qs.nr; i++) {
		struct ddebug_undo *undo;

		if (ddebug_undo_reserve(log, sites)) {
			ddebug_give_back(log);
			return -ENOMEM;
		}
		undo = log->undo + log->nr_undo;
		for (t = ddebug_tables; t; t = t->next)
			undo = ddebug_apply(&log->qs.q[i], t, undo, &found);
		log->nr_undo = (size_t)(undo - log->undo);
	}
	for (i = 0; i < log->nr_undo; i++)
		ddebug_switch(log->undo[i].dp, batch, err);
	return found;
}

/*
 * Every remembered call, in order, over the sites of @t, a table being
 * registered; then each site's key as its p says.
 */
static void ddebug_replay(struct ddebug_table *t, int *err)
{
	bool batch = sk_batch_open();
	struct ddebug_log *log;
	struct _ddebug *dp;
	int found = 0;
	size_t i;

	for (log = ddebug_log_head; log; log = log->next)
		for (i = 0; i < log->qs.nr; i++)
			if (!log->qs.q[i].superseded)
				ddebug_apply(&log->qs.q[i], t, NULL, &found);
	for (dp = t->start; dp < t->stop; dp++)
		ddebug_switch(dp, batch, err);
}

/* The flags @q sets or clears; it leaves the others as they were. */
static unsigned int ddebug_touched(const struct ddebug_query *q)
{
	return (~q->mask | q->flags) & 0xffU;	/* _ddebug's flags:8 */
}

static bool ddebug_same_word(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether @a and @b select the same sites: the same words in each place. */
static bool ddebug_same_sites(const struct ddebug_query *a,
			      const struct ddebug_query *b)
{
	return ddebug_same_word(a->filename, b->filename) &&
	       ddebug_same_word(a->module, b->module) &&
	       ddebug_same_word(a->function, b->function) &&
	       ddebug_same_word(a->format, b->format) &&
	       a->format_anchored == b->format_anchored &&
	       a->first_lineno == b->first_lineno &&
	       a->last_lineno == b->last_lineno;
}

/* Take the remembered call at *@pl out of the list; returns it. */
static struct ddebug_log *ddebug_log_drop(struct ddebug_log **pl)
{
	struct ddebug_log *log = *pl;

	*pl = log->next;
	if (ddebug_log_tail == &log->next)
		ddebug_log_tail = pl;
	return log;
}

/*
 * @later is remembered after the calls before it in the list.  Each flag
 * of a site ends as the last query that sets or clears it there left it,
 * so an earlier query whose sites @later selects again, and whose every
 * flag @later sets or clears too, changes nothing an object loaded later
 * would end with: it is marked superseded, and a call whose queries all
 * are is forgotten.  A program that switches the same sites on and off
 * for ever keeps one call's worth of queries, not one per call.
 */
static void ddebug_forget_superseded(const struct ddebug_log *later)
{
	struct ddebug_log **pl = &ddebug_log_head, *log;
	size_t i, j, live;

	while ((log = *pl) != later && log) {
		for (i = live = 0; i < log->qs.nr; i++) {
			struct ddebug_query *q = &log->qs.q[i];

			for (j = 0; j < later->qs.nr && !q->superseded; j++)
				q->superseded = ddebug_same_sites(q, &later->qs.q[j]) &&
					!(ddebug_touched(q) &
					  ~ddebug_touched(&later->qs.q[j]));
			live += !q->superseded;
		}
		if (live) {
			pl = &log->next;
			continue;
		}
		ddebug_free_queries(&ddebug_log_drop(pl)->qs);
		free(log);
	}
}

/* Take @log out of the remembered calls. */
static void ddebug_log_unlink(struct ddebug_log *log)
{
	struct ddebug_log **pl;

	for (pl = &ddebug_log_head; *pl; pl = &(*pl)->next)
		if (*pl == log) {
			ddebug_log_drop(pl);
			return;
		}
}

static void ddebug_log_free(struct ddebug_log *log)
{
	ddebug_free_queries(&log->qs);
	free(log->undo);
	free(log);
}

/*
 * The end of a batch in which calls ran or a table was registered
 * (sk_batch_on_commit(): the batch's lock held, nothing changed since the
 * writes).  Committed: the calls are remembered for good, and those they
 * make of no effect are forgotten.  Failed: the writes were undone, so
 * each call gives its sites their old flags back, newest first, and is
 * forgotten; then p follows the keys on every site, which also says the
 * truth on the sites of a table whose replay failed, and where an object
 * registered by hand inside the caller's batch had the batch's first
 * changes written (Documentation/static-keys.rst, "Batches of keys").
 */
static void ddebug_commit_hook(int err)
{
	struct ddebug_log *log, *next;
	struct ddebug_table *t;
	struct _ddebug *dp;

	if (!err) {
		for (log = ddebug_log_head; log; log = log->next) {
			if (!log->pending)
				continue;
			log->pending = false;
			ddebug_undo_release(log);
			ddebug_forget_superseded(log);
		}
		ddebug_pending = NULL;
		return;
	}
	for (log = ddebug_pending; log; log = next) {
		next = log->pending_next;
		ddebug_give_back(log);
		ddebug_undo_release(log);
		ddebug_log_unlink(log);
		ddebug_log_free(log);
	}
	ddebug_pending = NULL;
	for (t = ddebug_tables; t; t = t->next)
		for (dp = t->start; dp < t->stop; dp++) {
			dp->flags &= ~_DPRINTK_FLAGS_PRINT;
			if (static_key_count(&dp->key.dd_key_true.key) > 0)
				dp->flags |= _DPRINTK_FLAGS_PRINT;
		}
}

/*
 * The locks (Documentation/static-keys.rst, "Lock order"): a call runs
 * its queries and is remembered, pending, inside its batch, with
 * jump_label_mutex held; ddebug_commit_hook() settles it at the end of
 * the batch, before the mutex is let go, so no other thread sees a
 * pending call.  The loader is never asked with the mutex held (the
 * commit's messages call dladdr() after).  In the caller's own batch,
 * that end is the caller's commit: the call returns its count, and the
 * caller's commit says whether it was carried out.
 */
int ddebug_exec(const char *query, const char *modname)
{
	struct ddebug_log *log = calloc(1, sizeof(*log));
	int found, ret, refused = 0;

	if (!log)
		return -ENOMEM;
	ret = ddebug_parse_queries(query, modname, &log->qs);
	if (ret) {
		free(log);
		return ret;
	}
	statickeys_batch_begin();
	found = sk_batch_on_commit(ddebug_commit_hook);
	if (!found)
		found = ddebug_run(log, &refused);
	if (found >= 0) {
		log->pending = true;
		log->pending_next = ddebug_pending;
		ddebug_pending = log;
		*ddebug_log_tail = log;
		ddebug_log_tail = &log->next;
	}
	ret = statickeys_batch_commit();
	if (found < 0) {	/* nothing changed */
		ddebug_log_free(log);
		return ret == -EDEADLK ? ret : found;
	}
	/* @log is the hook's now: freed if the commit failed. */
	if (ret < 0)
		return ret;
	return refused ? -refused : found;
}

/*
 * The object's name, as "module" matches it: the file name of the object
 * that holds @addr up to its first '.', so libfoo.so.1 is "libfoo"; the
 * program's own short name when the loader has no file name for it.
 */
static void ddebug_object_name(const void *addr, char *buf, size_t size)
{
	const char *name = NULL, *slash;
	Dl_info info;

	if (dladdr(addr, &info) && info.dli_fname && *info.dli_fname)
		name = info.dli_fname;
	if (!name)
		name = program_invocation_name;
	slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	snprintf(buf, size, "%.*s", (int)strcspn(name, "."), name);
}

/* @fresh's name, from the names kept; @fresh joins them if it is new. */
static const char *ddebug_name_keep(struct ddebug_name **fresh)
{
	struct ddebug_name *n;

	for (n = ddebug_names; n; n = n->next)
		if (!strcmp(n->name, (*fresh)->name))
			return n->name;
	n = *fresh;
	*fresh = NULL;
	n->next = ddebug_names;
	ddebug_names = n;
	return n->name;
}

/* Count one more constructor of the table at @start, if it is known. */
static bool ddebug_table_ref(const struct _ddebug *start)
{
	struct ddebug_table *t;

	for (t = ddebug_tables; t; t = t->next)
		if (t->start == start) {
			t->refs++;
			return true;
		}
	return false;
}

/*
 * An object's table, from its constructor: its sites get every remembered
 * call replayed, in one batch, settled as in ddebug_exec() by the hook at
 * the batch's end (if the commit fails, p follows the keys); the table is in
 * the list from the replay on, so that a query that runs after the commit
 * reaches its sites.  Its name is asked of the loader before any lock,
 * once: the constructors of its other translation units only count.
 */
static void ddebug_add_table(struct _ddebug *start, struct _ddebug *stop,
			     const void *handle)
{
	struct ddebug_table *t, *fresh;
	struct ddebug_name *fresh_name;
	struct _ddebug *dp;
	char name[256];
	int refused = 0, ret;
	bool replay, known, hooked;

	/* Every translation unit's constructor after the first: a count. */
	jump_label_lock();
	known = ddebug_table_ref(start);
	__jump_label_unlock();
	if (known)
		return;
	ddebug_object_name(handle ? handle : start, name, sizeof(name));
	fresh = calloc(1, sizeof(*fresh));
	fresh_name = malloc(sizeof(*fresh_name) + strlen(name) + 1);
	if (fresh_name)
		strcpy(fresh_name->name, name);
	statickeys_batch_begin();
	hooked = !sk_batch_on_commit(ddebug_commit_hook);
	known = ddebug_table_ref(start);	/* another thread's, meanwhile */
	if (known || !fresh || !fresh_name || !hooked) {
		if (!known)
			fprintf(stderr, "dyndbg: out of memory, the debug sites of %s stay as built\n",
				name);
		statickeys_batch_commit();
		free(fresh);
		free(fresh_name);
		return;
	}
	t = fresh;
	t->modname = ddebug_name_keep(&fresh_name);
	t->start = start;
	t->stop = stop;
	t->refs = 1;
	for (dp = start; dp < stop; dp++, t->nr++)
		if (!dp->modname)
			dp->modname = t->modname;
	replay = ddebug_log_head != NULL;
	ddebug_replay(t, &refused);
	t->next = ddebug_tables;
	ddebug_tables = t;
	free(fresh_name);	/* NULL, or a name kept already */
	ret = statickeys_batch_commit();
	if (replay && (ret < 0 || refused))
		fprintf(stderr, "dyndbg: the queries run before %s was loaded could not switch all its sites: %s; p shows which are on\n",
			name, strerror(ret < 0 ? -ret : refused));
}

/*
 * From a constructor, inside the loader: a cancellation pending in the
 * thread must not act here (the commit's unlock is a cancellation point),
 * or the thread would unwind through dlopen().  It acts at the thread's
 * next cancellation point after dlopen() returns.
 */
SK_EXPORT void statickeys_ddebug_add_table(struct _ddebug *start,
					   struct _ddebug *stop,
					   const void *handle)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	ddebug_add_table(start, stop, handle);
	pthread_setcancelstate(old, NULL);
}

/*
 * The last constructor's table goes: no call of an open batch may give
 * its sites their flags back after the object is gone.
 */
static void ddebug_forget_sites(const struct ddebug_table *t)
{
	struct ddebug_log *log;
	size_t i, n;

	for (log = ddebug_pending; log; log = log->pending_next) {
		for (i = n = 0; i < log->nr_undo; i++)
			if (log->undo[i].dp < t->start || log->undo[i].dp >= t->stop)
				log->undo[n++] = log->undo[i];
		log->nr_undo = n;
	}
}

SK_EXPORT void statickeys_ddebug_remove_table(struct _ddebug *start)
{
	struct ddebug_table **pt, *t;

	jump_label_lock();
	for (pt = &ddebug_tables; (t = *pt); pt = &t->next) {
		if (t->start != start)
			continue;
		if (!--t->refs) {
			*pt = t->next;
			ddebug_forget_sites(t);
			free(t);
		}
		break;
	}
	__jump_label_unlock();
}

int ddebug_for_each_site(int (*fn)(const struct _ddebug *dp, void *arg),
			 void *arg)
{
	struct ddebug_table *t;
	struct _ddebug *dp;
	int ret = 0;

	jump_label_lock();
	for (t = ddebug_tables; t && !ret; t = t->next)
		for (dp = t->start; dp < t->stop && !ret; dp++)
			ret = fn(dp, arg);
	__jump_label_unlock();
	return ret;
}

#endif /* CONFIG_DYNAMIC_DEBUG */
