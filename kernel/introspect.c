// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Introspection: the walk over every registered key and its sites
 * (statickeys_for_each_key()), the printed table, and STATICKEYS_DEBUG=keys.
 * It reaches the object registry only through the calls kernel/internal.h
 * declares, so that it moves with the registry as a unit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/introspect.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "object_hooks.h"
#include "symbols.h"
#include "../lib/lifecycle.h"

struct site_rec {
	uintptr_t key, code;
	const struct jump_entry *e;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct site_rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static enum statickeys_site_state site_state(const struct jump_entry *e)
{
	enum jump_label_type t;
	int err;

	if (jump_entry_is_dead(e))	/* never read: it may not be code */
		return STATICKEYS_SITE_DEAD;
	err = arch_jump_label_decode(e, &t);
	if (!err)
		return t == JUMP_LABEL_JMP ? STATICKEYS_SITE_JMP
					   : STATICKEYS_SITE_NOP;
	/*
	 * A failed batch's site whose write never landed holds a whole
	 * instruction and runs it; one holding our INT3 is emulated.
	 */
	if (arch_jump_label_stuck(jump_entry_code(e)))
		return STATICKEYS_SITE_EMULATED;
	return err == -EBUSY ? STATICKEYS_SITE_INT3 : STATICKEYS_SITE_OTHER;
}

/* Every site of every registered object, in (key, address) order.  Locked. */
static int collect(struct site_rec **recs, size_t *n)
{
	struct sk_object_view v;
	struct site_rec *r;
	const struct jump_entry *e;
	size_t total = 0;
	unsigned int i;

	for (i = 0; sk_object_view(i, &v); i++)
		total += v.stop - v.start;
	r = malloc((total ? total : 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	*n = 0;
	for (i = 0; sk_object_view(i, &v); i++)
		for (e = v.start; e < v.stop; e++)
			if (jump_entry_key(e))
				r[(*n)++] = (struct site_rec){
					(uintptr_t)jump_entry_key(e),
					jump_entry_code(e), e };
	qsort(r, *n, sizeof(*r), rec_cmp);
	*recs = r;
	return 0;
}

/* Describe the key of @recs[0..@n) and call @fn.  Locked. */
static int one_key(struct sk_elf_cache *c, const struct site_rec *recs,
		   size_t n, struct statickeys_site_info *sites,
		   statickeys_key_fn fn, void *arg)
{
	struct static_key *key = (struct static_key *)recs[0].key;
	struct statickeys_key_info info = { 0 };
	size_t i;

	sk_key_describe(c, recs[0].key, sizeof(struct static_key_deferred),
			&info);
	if (key->type & JUMP_TYPE_TRUE)
		info.flags |= STATICKEYS_KEY_TRUE;
	if (sk_key_read_only(key))
		info.flags |= STATICKEYS_KEY_RO;
	info.count = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
	info.enabled = info.count != 0;
	for (i = 0; i < n; i++)
		sites[i] = (struct statickeys_site_info){
			.addr = (const void *)recs[i].code,
			.target = (const void *)jump_entry_target(recs[i].e),
			.likely = jump_entry_is_branch(recs[i].e),
			.state = site_state(recs[i].e),
		};
	info.nr_sites = n;
	info.sites = sites;
	return fn(&info, arg);
}

SK_EXPORT int statickeys_for_each_key(statickeys_key_fn fn, void *arg)
{
	struct sk_elf_cache cache = { 0 };
	struct statickeys_site_info *sites = NULL;
	struct sk_map *maps = NULL;
	struct site_rec *recs = NULL;
	bool locked = !sk_lock_is_mine();
	size_t n = 0, i, j;
	int ret;

	if (locked)
		jump_label_lock();
	/*
	 * Files and /proc/self/maps are read under the lock, which keeps
	 * every registered object mapped; the loader is never asked.
	 */
	ret = collect(&recs, &n);
	if (!ret && sk_maps_read(&maps, &cache.nr_maps))
		cache.nr_maps = 0;	/* no names, no objects: still a table */
	cache.maps = maps;
	if (!ret && !(sites = malloc((n ? n : 1) * sizeof(*sites))))
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i = j) {
		for (j = i + 1; j < n && recs[j].key == recs[i].key; j++)
			;
		ret = one_key(&cache, recs + i, j - i, sites, fn, arg);
	}
	sk_elf_cache_free(&cache);
	if (locked)
		__jump_label_unlock();
	free(maps);
	free(sites);
	free(recs);
	return ret;
}

struct print_ctx {
	FILE *f;
	int keys;
};

static int print_one(const struct statickeys_key_info *info, void *arg)
{
	struct print_ctx *p = arg;

	sk_key_print(p->f, info);
	p->keys++;
	return 0;
}

SK_EXPORT int statickeys_print_keys(FILE *f)
{
	struct print_ctx p = { f, 0 };
	int err = statickeys_for_each_key(print_one, &p);

	fflush(f);
	return err < 0 ? err : p.keys;
}

SK_EXPORT const char *statickeys_site_state_name(enum statickeys_site_state s)
{
	return sk_site_state_name(s);
}

/* ---- STATICKEYS_DEBUG=keys ---- */

static bool debug_keys;
static bool printed_startup;

/* Registered objects that have no site: built with =n, or without keys. */
static unsigned int objects_without_sites(void)
{
	bool locked = !sk_lock_is_mine();
	struct sk_object_view v;
	unsigned int i, n = 0;

	if (locked)
		jump_label_lock();
	for (i = 0; sk_object_view(i, &v); i++)
		n += v.start == v.stop;
	if (locked)
		__jump_label_unlock();
	return n;
}

static void print_table(const char *when)
{
	struct statickeys_stats st;
	unsigned int bare = objects_without_sites();
	int n;

	statickeys_get_stats(&st);
	fprintf(stderr, "statickeys: keys %s (pid %d): %lu objects, %lu sites\n",
		when, (int)getpid(), st.objects, st.sites);
	/* Keys are found through their sites. */
	if (bare)
		fprintf(stderr, "statickeys: %u of them have no site (built with CONFIG_JUMP_LABEL=n, or without keys): their keys are not listed\n",
			bare);
	n = statickeys_print_keys(stderr);
	if (n < 0)
		sk_warn("keys %s: %s", when, strerror(-n));
}

/* The exit phase the main program's registration armed (lib/lifecycle.c). */
static void print_at_exit(bool main_program)
{
	if (main_program && __atomic_load_n(&printed_startup, __ATOMIC_RELAXED))
		print_table("at exit");
}

SK_LIFECYCLE_EXIT(introspect, SK_LC_INTROSPECT, print_at_exit);

/*
 * Start-up ends when the main program registers: its constructors run
 * after those of every shared object loaded with it.  The exit phase is
 * armed then too (lib/lifecycle.c), after glibc's handler that runs the
 * destructors (registered before the program's constructors run), so that
 * it runs first, with every object still registered; one registered from
 * the library's own constructor would run last, with none left.
 */
static void introspect_object_ready(const struct statickeys_object *d,
				    bool main_program)
{
	(void)d;
	if (!debug_keys || !main_program ||
	    __atomic_exchange_n(&printed_startup, true, __ATOMIC_RELAXED))
		return;
	print_table("at start-up");
}

/* After the other start-up reports (the unknown boot parameters). */
SK_OBJECT_HOOK(introspect_object_hook) = {
	.order = SK_HOOK_LAST,
	.ready = introspect_object_ready,
};

/* A comma-separated list; secure_getenv(): a set-user-ID program sees none. */
static void __attribute__((constructor(101))) introspect_setup(void)
{
	const char *env = secure_getenv("STATICKEYS_DEBUG");
	char *copy, *word, *save = NULL;

	if (!env || !*env || !(copy = strdup(env)))
		return;
	for (word = strtok_r(copy, ",", &save); word;
	     word = strtok_r(NULL, ",", &save)) {
		if (!strcmp(word, "keys"))
			debug_keys = true;
		else
			sk_warn("STATICKEYS_DEBUG=%s: unknown word '%s' (known: keys): ignored",
				env, word);
	}
	free(copy);
}
