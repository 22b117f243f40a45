// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Dynamic debug: the tables of pr_debug() sites every object hands over
 * from its constructor (<linux/dynamic_debug.h>), the queries that switch
 * them, each call in one batch of key changes, the boot parameters
 * dyndbg= and <object>.dyndbg=, and the kernel's output prefixes.
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
#include <sys/syscall.h>
#include <unistd.h>

/* The library has no sites of its own: no table to register. */
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <statickeys/batch.h>
#include "ddebug.h"
#include "internal.h"

struct ddebug_table {
	struct ddebug_table *next;
	struct _ddebug *start, *stop;
	int refs;			/* one per translation unit's constructor */
	char modname[];
};

/* Every query run so far, oldest first. */
struct ddebug_log {
	struct ddebug_log *next;
	struct ddebug_queries qs;
	bool pending;		/* its call's commit has not said yet */
};

static pthread_mutex_t ddebug_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ddebug_table *ddebug_tables;
static struct ddebug_log *ddebug_log_head, **ddebug_log_tail = &ddebug_log_head;

/*
 * Apply @q to the sites of @t.  Return: how many matched.  A site whose key
 * refuses the change (a site holding another instruction, a read-only
 * key) keeps its p, which says what the key does; the others go on, and
 * *@err gets the first refusal (an errno).  @batch: the caller's batch is
 * open (it always is; asked once, not for every key).
 */
static int ddebug_apply(const struct ddebug_query *q, struct ddebug_table *t,
			bool batch, int *err)
{
	struct ddebug_match_cache cache = { 0 };
	struct _ddebug *dp;
	int found = 0;

	for (dp = t->start; dp < t->stop; dp++) {
		unsigned int newflags;

		if (!ddebug_query_matches(q, dp, &cache))
			continue;
		found++;
		newflags = (dp->flags & q->mask) | q->flags;
		if (newflags == dp->flags)
			continue;
		/*
		 * Only p moves the key; the other flags shape the output.
		 * The caller's batch holds the lock for every key.
		 */
		if ((newflags ^ dp->flags) & _DPRINTK_FLAGS_PRINT) {
			int e = sk_batch_key_switch(&dp->key.dd_key_true.key,
						    newflags & _DPRINTK_FLAGS_PRINT,
						    batch);

			if (e) {
				newflags ^= _DPRINTK_FLAGS_PRINT;
				if (!*err)
					*err = e;
			}
		}
		dp->flags = newflags;
	}
	return found;
}

static int ddebug_apply_all(const struct ddebug_queries *qs,
			    struct ddebug_table *only, int *err)
{
	struct ddebug_table *t;
	bool batch = sk_batch_open();	/* the caller's: for every key */
	int found = 0;
	size_t i;

	for (i = 0; i < qs->nr; i++)
		for (t = only ? only : ddebug_tables; t; t = only ? NULL : t->next)
			if (!qs->q[i].superseded)
				found += ddebug_apply(&qs->q[i], t, batch, err);
	return found;
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
		if (log->pending) {	/* its own call may take it out */
			pl = &log->next;
			continue;
		}
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

/*
 * A commit that failed was undone: every key has the state it had before
 * the batch, and p must say so again on the sites the batch had switched.
 * Only p follows the keys; the other flags need no write and stay as set.
 */
static void ddebug_follow_keys(struct ddebug_table *only)
{
	struct ddebug_table *t;
	struct _ddebug *dp;

	for (t = only ? only : ddebug_tables; t; t = only ? NULL : t->next)
		for (dp = t->start; dp < t->stop; dp++) {
			dp->flags &= ~_DPRINTK_FLAGS_PRINT;
			if (static_key_count(&dp->key.dd_key_true.key) > 0)
				dp->flags |= _DPRINTK_FLAGS_PRINT;
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

/*
 * The locks (Documentation/static-keys.rst, "Lock order"): ddebug_lock
 * is taken inside jump_label_mutex, the batch's, and nothing is awaited
 * or asked of the loader while it is held.  So a query holds it only to
 * apply itself and to remember the call, in the batch; the commit runs
 * without it (its messages call dladdr()), and what the commit's result
 * decides is done under both locks again, after it: a batch of another
 * thread is then either not begun or committed.  A call is remembered in
 * the order the calls ran, before the commit; one whose commit failed is
 * taken out again.
 */
static int ddebug_exec(const char *query, const char *modname)
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
	pthread_mutex_lock(&ddebug_lock);
	found = ddebug_apply_all(&log->qs, NULL, &refused);
	log->pending = true;
	*ddebug_log_tail = log;
	ddebug_log_tail = &log->next;
	pthread_mutex_unlock(&ddebug_lock);
	ret = statickeys_batch_commit();
	jump_label_lock();
	pthread_mutex_lock(&ddebug_lock);
	if (ret < 0) {
		/* Not carried out: no site switched, and not run again later. */
		ddebug_log_unlink(log);
		ddebug_follow_keys(NULL);
		ddebug_free_queries(&log->qs);
		free(log);
	} else {
		log->pending = false;
		ddebug_forget_superseded(log);
	}
	pthread_mutex_unlock(&ddebug_lock);
	__jump_label_unlock();
	if (ret < 0)
		return ret;
	return refused ? -refused : found;
}

SK_EXPORT int ddebug_exec_queries(char *query, const char *modname)
{
	if (!query)
		return -EINVAL;
	return ddebug_exec(query, modname);
}

SK_EXPORT int dynamic_debug_exec_queries(const char *query, const char *modname)
{
	if (!query)
		return -EINVAL;
	return ddebug_exec(query, modname);
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
 * call replayed, in one batch.  The locks as in ddebug_exec(): the batch
 * first, ddebug_lock inside it, the commit without it; the table is in
 * the list from the replay on, so that a query that runs after the commit
 * reaches its sites.  Its name is asked of the loader before any lock,
 * once: the constructors of its other translation units only count.
 */
SK_EXPORT void statickeys_ddebug_add_table(struct _ddebug *start,
					   struct _ddebug *stop,
					   const void *handle)
{
	struct ddebug_table *t, *fresh;
	struct ddebug_log *log;
	struct _ddebug *dp;
	char name[256];
	int refused = 0, ret;
	bool replay, known;

	/* Every translation unit's constructor after the first: a count. */
	pthread_mutex_lock(&ddebug_lock);
	known = ddebug_table_ref(start);
	pthread_mutex_unlock(&ddebug_lock);
	if (known)
		return;
	ddebug_object_name(handle ? handle : start, name, sizeof(name));
	fresh = calloc(1, sizeof(*fresh) + strlen(name) + 1);
	statickeys_batch_begin();
	pthread_mutex_lock(&ddebug_lock);
	known = ddebug_table_ref(start);	/* another thread's, meanwhile */
	if (known || !fresh) {
		if (!known)
			fprintf(stderr, "dyndbg: out of memory, the debug sites of %s stay as built\n",
				name);
		pthread_mutex_unlock(&ddebug_lock);
		statickeys_batch_commit();
		free(fresh);
		return;
	}
	t = fresh;
	strcpy(t->modname, name);
	t->start = start;
	t->stop = stop;
	t->refs = 1;
	for (dp = start; dp < stop; dp++)
		if (!dp->modname)
			dp->modname = t->modname;
	replay = ddebug_log_head != NULL;
	for (log = ddebug_log_head; log; log = log->next)
		ddebug_apply_all(&log->qs, t, &refused);
	t->next = ddebug_tables;
	ddebug_tables = t;
	pthread_mutex_unlock(&ddebug_lock);
	ret = statickeys_batch_commit();
	if (ret < 0) {
		jump_label_lock();
		pthread_mutex_lock(&ddebug_lock);
		ddebug_follow_keys(t);
		pthread_mutex_unlock(&ddebug_lock);
		__jump_label_unlock();
	}
	if (replay && (ret < 0 || refused))
		fprintf(stderr, "dyndbg: the queries run before %s was loaded could not switch all its sites: %s; p shows which are on\n",
			name, strerror(ret < 0 ? -ret : refused));
}

SK_EXPORT void statickeys_ddebug_remove_table(struct _ddebug *start)
{
	struct ddebug_table **pt, *t;

	pthread_mutex_lock(&ddebug_lock);
	for (pt = &ddebug_tables; (t = *pt); pt = &t->next) {
		if (t->start != start)
			continue;
		if (!--t->refs) {
			*pt = t->next;
			free(t);
		}
		break;
	}
	pthread_mutex_unlock(&ddebug_lock);
}

int ddebug_for_each_site(int (*fn)(const struct _ddebug *dp, void *arg),
			 void *arg)
{
	struct ddebug_table *t;
	struct _ddebug *dp;
	int ret = 0;

	pthread_mutex_lock(&ddebug_lock);
	for (t = ddebug_tables; t && !ret; t = t->next)
		for (dp = t->start; dp < t->stop && !ret; dp++)
			ret = fn(dp, arg);
	pthread_mutex_unlock(&ddebug_lock);
	return ret;
}

/*
 * The kernel's prefix: "[tid] " with t, then "module:", "function:" and
 * "line:" with m, f and l, and one space after the last of these.
 */
static void ddebug_prefix(const struct _ddebug *dp, FILE *f)
{
	bool any = false;

	if (dp->flags & _DPRINTK_FLAGS_INCL_TID)
		fprintf(f, "[%ld] ", (long)syscall(SYS_gettid));
	if (dp->flags & _DPRINTK_FLAGS_INCL_MODNAME) {
		fprintf(f, "%s:", dp->modname ? dp->modname : "");
		any = true;
	}
	if (dp->flags & _DPRINTK_FLAGS_INCL_FUNCNAME) {
		fprintf(f, "%s:", dp->function);
		any = true;
	}
	if (dp->flags & _DPRINTK_FLAGS_INCL_LINENO) {
		fprintf(f, "%u:", dp->lineno);
		any = true;
	}
	if (any)
		fputc(' ', f);
}

SK_EXPORT void __dynamic_pr_debug(struct _ddebug *descriptor,
				  const char *fmt, ...)
{
	va_list ap;

	flockfile(stderr);
	ddebug_prefix(descriptor, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	funlockfile(stderr);
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
