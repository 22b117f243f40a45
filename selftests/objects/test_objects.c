// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Keys across shared objects: sites everywhere follow every change, a late
 * dlopen() comes up in the keys' current state, and after dlclose() nothing
 * is written where the object was; dlopen() again works.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <statickeys/statickeys.h>
#include "libc.h"
#include "objs.h"
#include "tap.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

#define MAX_LATE_SITES	32

DEFINE_STATIC_KEY_FALSE(exe_false);

OBJS_SITES(exe)

static const char *const key_names[OBJS_NR_KEYS] = {
	"obj_false", "obj_true", "obj_old_false", "obj_old_true", "exe_false",
};
static int state[OBJS_NR_KEYS] = { 0, 1, 0, 1, 0 };

/* Flip every key through the API its sites were written for. */
static int flip_all(void)
{
	int k, errors = 0;

	for (k = 0; k < OBJS_NR_KEYS; k++) {
		bool on = !state[k];

		switch (k) {
		case 0:
			on ? static_branch_enable(&obj_false) : static_branch_disable(&obj_false);
			break;
		case 1:
			on ? static_branch_enable(&obj_true) : static_branch_disable(&obj_true);
			break;
		case 2:
			on ? (void)static_key_slow_inc(&obj_old_false) : static_key_slow_dec(&obj_old_false);
			break;
		case 3:
			on ? (void)static_key_slow_inc(&obj_old_true) : static_key_slow_dec(&obj_old_true);
			break;
		case 4:
			on ? static_branch_enable(&exe_false) : static_branch_disable(&exe_false);
			break;
		}
		if (statickeys_last_error()) {
			tap_diag("changing %s: error %d", key_names[k],
				 statickeys_last_error());
			errors++;
		}
		state[k] = on;
	}
	return errors;
}

/* Do an object's sites show the expected states?  Diagnoses the first miss. */
static int sites_ok(const char *who, objs_read_fn *read)
{
	int v[OBJS_NR_KEYS], k;

	read(v);
	for (k = 0; k < OBJS_NR_KEYS; k++) {
		if (v[k] != state[k]) {
			tap_diag("%s: site of %s took %d, key is %d", who,
				 key_names[k], v[k], state[k]);
			return 0;
		}
	}
	return 1;
}

static int linked_ok(void)
{
	int a = sites_ok("program", exe_read);
	int b = sites_ok("libobjs_key.so", objk_read);
	int c = sites_ok("libobjs_user.so", obju_read);

	return a && b && c;
}

static struct statickeys_stats base;

static int stats_are(unsigned long objects, unsigned long sites)
{
	struct statickeys_stats s;

	statickeys_get_stats(&s);
	if (s.objects == objects && s.sites == sites)
		return 1;
	tap_diag("stats: %lu objects, %lu sites; expected %lu, %lu",
		 s.objects, s.sites, objects, sites);
	return 0;
}

struct late {
	void *h;
	objs_read_fn *read;
	int nsites;
	uintptr_t addrs[MAX_LATE_SITES];
};

static int late_open(struct late *l)
{
	objs_sites_fn *sites;

	memset(l, 0, sizeof(*l));
	l->h = dlopen(OBJS_LATE, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		tap_diag("dlopen: %s", dlerror());
		return 0;
	}
	l->read = (objs_read_fn *)dlsym(l->h, "objl_read");
	sites = (objs_sites_fn *)dlsym(l->h, "objl_sites");
	if (!l->read || !sites)
		return 0;
	l->nsites = sites(l->addrs, MAX_LATE_SITES);
	return 1;
}

/* The text pages of the unloaded object, as they were. */
struct ghost {
	int nr;
	uintptr_t page[MAX_LATE_SITES];
	unsigned char *bytes[MAX_LATE_SITES];
};

static void ghost_save(struct ghost *g, const struct late *l, long ps)
{
	int i, j;

	g->nr = 0;
	for (i = 0; i < l->nsites && i < MAX_LATE_SITES; i++) {
		uintptr_t pg = l->addrs[i] & ~(uintptr_t)(ps - 1);

		for (j = 0; j < g->nr && g->page[j] != pg; j++)
			;
		if (j < g->nr)
			continue;
		g->page[g->nr] = pg;
		g->bytes[g->nr] = malloc(ps);
		memcpy(g->bytes[g->nr], (void *)pg, ps);
		g->nr++;
	}
}

struct ghost_result {
	int placed, changed, toggle_errors, sites_bad;
};

static struct ghost ghost;
static struct ghost_result *gres;

/*
 * In a child: put the old bytes back at the old addresses (anonymous pages,
 * so a write would not be refused for bad bytes), change every key, and
 * look whether anything was written there.
 */
static int ghost_child(void *arg)
{
	long ps = sysconf(_SC_PAGESIZE);
	bool placed[MAX_LATE_SITES] = { false };
	int i;

	(void)arg;
	for (i = 0; i < ghost.nr; i++) {
		void *p = mmap((void *)ghost.page[i], ps, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (p == MAP_FAILED)
			continue;
		if (p != (void *)ghost.page[i]) {
			munmap(p, ps);
			continue;
		}
		memcpy(p, ghost.bytes[i], ps);
		mprotect(p, ps, PROT_READ | PROT_EXEC);
		placed[i] = true;
		gres->placed++;
	}
	gres->toggle_errors = flip_all();
	gres->sites_bad = !linked_ok();
	for (i = 0; i < ghost.nr; i++)
		if (placed[i] && memcmp((void *)ghost.page[i], ghost.bytes[i], ps))
			gres->changed++;
	return 0;
}

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct late l;
	int st, n, late_state_ok;

	tap_plan(19);
	gres = mmap(NULL, sizeof(*gres), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	statickeys_get_stats(&base);
	tap_diag("at start: %lu objects, %lu sites", base.objects, base.sites);

	/* 1-3: the linked objects. */
	tap_ok(linked_ok(), "sites in the program and both linked objects start in the keys' initial state");
	tap_ok(base.objects >= 4, "the program, the library and both objects are registered (%lu)",
	       base.objects);
	tap_ok(!flip_all() && linked_ok(),
	       "changing keys defined in one object updates the sites in every object");

	/* 4-7: a late object whose keys changed before it was loaded. */
	n = late_open(&l);
	tap_ok(n, "dlopen of an object using keys that already changed");
	if (!n)
		return tap_exit();
	tap_ok(sites_ok("libobjs_late.so", l.read),
	       "its sites come up in the keys' current state, not their build state");
#ifdef CONFIG_JUMP_LABEL
	tap_ok(l.nsites >= OBJS_NR_KEYS, "it has its own sites (%d)", l.nsites);
#else
	tap_ok(l.nsites == 0, "CONFIG_JUMP_LABEL=n: it has no sites (%d)", l.nsites);
#endif
	tap_ok(stats_are(base.objects + 1, base.sites + l.nsites),
	       "registered: one more object, its sites counted");

	/* 8-9: every loaded object follows. */
	n = flip_all();
	late_state_ok = sites_ok("libobjs_late.so", l.read);
	tap_ok(!n && linked_ok() && late_state_ok,
	       "changing back updates the sites of all four objects");
	n = flip_all();
	tap_ok(!n && linked_ok() && sites_ok("libobjs_late.so", l.read),
	       "and again");

	/* 10-14: dlclose, then change keys. */
	ghost_save(&ghost, &l, ps);
	tap_ok(dlclose(l.h) == 0, "dlclose");
	if (SK_LIBC_UNLOADS)
		tap_ok(stats_are(base.objects, base.sites),
		       "unregistered: object and site counts are back to the start");
	else
		tap_skip(SK_LIBC_NAME "'s dlclose() does not unload",
			 "unregistered: object and site counts are back to the start");
	st = tap_fork(ghost_child, NULL);
	tap_ok(st == 0 && !gres->toggle_errors && !gres->sites_bad,
	       "changing every key after dlclose (in a child): no crash, no error, linked sites right (status %d)",
	       st);
	if (!ghost.nr)
		tap_skip("no sites in the unloaded object (CONFIG_JUMP_LABEL=n)",
			 "nothing written where the unloaded object's sites were");
	else if (gres->placed < ghost.nr)
		tap_skip("could not map a page at the old address (reused)",
			 "nothing written where the unloaded object's sites were (%d of %d placed)",
			 gres->placed, ghost.nr);
	else
		tap_ok(st == 0 && !gres->changed,
		       "nothing written into %d page(s) mapped where the unloaded object's sites were",
		       ghost.nr);
	tap_ok(!flip_all() && linked_ok(),
	       "changing every key after dlclose in this process: linked sites right");

	/* 15-19: load it again. */
	n = late_open(&l);
	tap_ok(n, "dlopen again");
	if (!n)
		return tap_exit();
	tap_ok(sites_ok("libobjs_late.so", l.read),
	       "its sites come up in the keys' current state");
	tap_ok(stats_are(base.objects + 1, base.sites + l.nsites),
	       "registered again");
	tap_ok(!flip_all() && linked_ok() && sites_ok("libobjs_late.so", l.read),
	       "changing every key updates it and the linked objects");
	if (SK_LIBC_UNLOADS)
		tap_ok(dlclose(l.h) == 0 && stats_are(base.objects, base.sites),
		       "dlclose again: counts back to the start");
	else
		tap_skip(SK_LIBC_NAME "'s dlclose() does not unload",
			 "dlclose again: counts back to the start (dlclose %d)",
			 dlclose(l.h));
	return tap_exit();
}
