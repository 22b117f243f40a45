// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Tables out of (key, code) order, given to statickeys_register_object() by
 * hand: registration sorts them in place, and every entry must come out
 * whole (its site, its target and its key with the polarity bit), in
 * order, and none refused.  The shapes cover the sort's paths: keys
 * interleaved over sites in code order (one pass by key), keys far apart
 * over sites out of order with two entries of one site (passes by site and
 * by key), one key over sites out of order (by site only).  Keys changed
 * before registration have their sites, and only theirs, looked at.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "../ro/capture.h"
#include "tap.h"

/* 16 KiB of the code segment for the sites: never run, never written. */
__asm__(".pushsection .text\n"
	".globl sort_text\n"
	".hidden sort_text\n"
	"sort_text:\n"
	".fill 16384, 1, 0\n"
	".popsection\n");
extern const unsigned char sort_text[];

#define NR_ENTRIES	3000
#define NR_KEYS		4096	/* 64 KiB of keys: two passes */
#define NR_SITES	8000

static struct static_key keys[NR_KEYS];
static struct jump_entry table[NR_ENTRIES];

/* What each site's entries must still say after the sort. */
static struct {
	uintptr_t key;		/* with the polarity bit */
	uintptr_t target;
	int entries, seen;
} want[NR_SITES];

static void set_entry(struct jump_entry *e, unsigned int site,
		      unsigned int key, bool branch)
{
	uintptr_t code = (uintptr_t)&sort_text[site];
	uintptr_t target = (uintptr_t)&sort_text[NR_SITES + site % 4096];

	e->code = (int32_t)(code - (uintptr_t)&e->code);
	e->target = (int32_t)(target - (uintptr_t)&e->target);
	e->key = (uintptr_t)&keys[key] | (branch ? JUMP_ENTRY_BRANCH : 0);
	want[site].key = e->key;
	want[site].target = target;
	want[site].entries++;
}

/* Does every line said name a site of a key that changed? */
static bool said_changed_sites(void)
{
	const char *p = captured;
	unsigned long site;
	uintptr_t key;

	while ((p = strstr(p, "site 0x"))) {
		site = strtoul(p + 5, NULL, 16) - (uintptr_t)sort_text;
		if (site >= NR_SITES)
			return false;
		key = want[site].key & ~(uintptr_t)JUMP_ENTRY_BRANCH;
		if (!static_key_enabled((struct static_key *)key))
			return false;
		p++;
	}
	return true;
}

/*
 * Register the first @n entries; true when they come out sorted and whole,
 * with @said lines on stderr, each of a site of a key that changed.
 */
static bool sorted_whole(int n, const char *shape, int said)
{
	struct statickeys_object d = {
		.abi = STATICKEYS_OBJECT_ABI,
		.handle = table,
		.jump_start = table,
		.jump_stop = table + n,
	};
	uintptr_t key, code, prev_key = 0, prev_code = 0;
	unsigned int site;
	bool ok = true;
	int i;

	capture_begin();
	statickeys_register_object(&d);
	capture_end();
	for (i = 0; i < n && ok; i++) {
		struct jump_entry *e = &table[i];

		key = e->key & ~(uintptr_t)JUMP_ENTRY_BRANCH;
		code = (uintptr_t)&e->code + e->code;
		site = code - (uintptr_t)sort_text;
		ok = site < NR_SITES && want[site].key == e->key &&
		     want[site].target ==
		     (uintptr_t)&e->target + e->target &&
		     (key > prev_key || (key == prev_key && code >= prev_code));
		if (ok)
			want[site].seen++;
		else
			tap_diag("%s: entry %d: site %u, key %#lx (want %#lx)",
				 shape, i, site, (unsigned long)e->key,
				 site < NR_SITES ? (unsigned long)want[site].key : 0UL);
		prev_key = key;
		prev_code = code;
	}
	for (site = 0; site < NR_SITES && ok; site++)
		ok = want[site].seen == want[site].entries;
	if (captured_lines() != said || !said_changed_sites()) {
		tap_diag("%s: %d lines said, %d expected: %s", shape,
			 captured_lines(), said, captured);
		ok = false;
	}
	statickeys_unregister_object(&d);
	memset(want, 0, sizeof(want));
	return ok;
}

static int interleaved(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NR_ENTRIES; i++)
		set_entry(&table[i], 2 * i, i % 64, i % 3 == 0);
	return !sorted_whole(NR_ENTRIES, "interleaved", 0);
}

static int spread(void *arg)
{
	int i;

	(void)arg;
	/*
	 * 3001 is prime to 8000: distinct sites, in no order; 200 keys 304
	 * bytes apart, 15 sites each.
	 */
	for (i = 0; i < NR_ENTRIES - 10; i++)
		set_entry(&table[i], i * 3001 % NR_SITES, i % 200 * 19,
			  i & 1);
	for (; i < NR_ENTRIES; i++) {	/* a second entry of ten sites */
		table[i] = table[i - 100];
		table[i].code -= (int32_t)(100 * sizeof(table[0]));
		table[i].target -= (int32_t)(100 * sizeof(table[0]));
		want[(i - 100) * 3001 % NR_SITES].entries++;
	}
	return !sorted_whole(NR_ENTRIES, "spread", 0);
}

static int one_key(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 256; i++)
		set_entry(&table[i], i * 77 % 256, 5, i % 5 == 0);
	return !sorted_whole(256, "one key", 0);
}

/*
 * Two of eight keys changed before registration, three sites each: those
 * six sites are looked at, and only those.  Each holds zero bytes, no
 * instruction the library knows, and is said once.
 */
static int changed_keys(void *in_order)
{
	int i;

	for (i = 0; i < 24; i++)
		set_entry(&table[i], 16 * i, in_order ? i / 3 : i % 8, i & 1);
	static_key_slow_inc(&keys[2]);
	static_key_slow_inc(&keys[5]);
	return !sorted_whole(24, in_order ? "in order" : "changed", 6);
}

/* Each in a child: a sort gone wrong may crash. */
int main(void)
{
	tap_plan(5);
	tap_ok(!tap_fork(interleaved, NULL),
	       "64 keys in turn, sites in code order: sorted, every entry whole, none refused");
	tap_ok(!tap_fork(spread, NULL),
	       "200 keys over 59 KiB, sites out of order, ten sites twice: sorted, every entry whole, none refused");
	tap_ok(!tap_fork(one_key, NULL),
	       "one key, sites out of order: sorted, every entry whole, none refused");
	tap_ok(!tap_fork(changed_keys, NULL),
	       "two keys of eight changed before registration, table out of order: their 6 sites looked at, no other");
	tap_ok(!tap_fork(changed_keys, "in order"),
	       "the same with the table in order: their 6 sites looked at, no other");
	return tap_exit();
}
