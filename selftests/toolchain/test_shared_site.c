// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * One site claimed by two keys, the table identical code folding makes
 * when functions that differ only in their key are merged: registration
 * says so naming both keys, the site keeps its built instruction and both
 * keys refuse every change.  The same site listed twice for one key is
 * harmless and flips.  The tables are given by hand (the headers keep
 * gold and lld from folding such functions, see test_linkers.sh); their
 * site is a real one of this program.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "../ro/capture.h"
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(shared_k1);	/* the site's own key */
DEFINE_STATIC_KEY_FALSE(shared_k2);	/* claims it in the hand table */

static __attribute__((noinline)) int site(void)
{
	return static_branch_unlikely(&shared_k1) ? 1 : 0;
}

/* This program's own entry of site(), as the compiler emitted it. */
static const struct jump_entry *own_entry(void)
{
	const struct jump_entry *e = (const void *)__start___jump_table;
	const struct jump_entry *stop = (const void *)__stop___jump_table;

	for (; e < stop; e++)
		if ((e->key & ~(uintptr_t)3) == (uintptr_t)&shared_k1.key) /* flags: bits 0-1 */
			return e;
	return NULL;
}

static struct jump_entry table[2];

static void set_entry(struct jump_entry *e, const struct jump_entry *like,
		      struct static_key *key)
{
	uintptr_t code = (uintptr_t)&like->code + like->code;
	uintptr_t target = (uintptr_t)&like->target + like->target;

	e->code = (int32_t)(code - (uintptr_t)&e->code);
	e->target = (int32_t)(target - (uintptr_t)&e->target);
	e->key = (uintptr_t)key;
}

static struct statickeys_object hand_object(void)
{
	struct statickeys_object d = {
		.abi = STATICKEYS_OBJECT_ABI,
		.handle = table,
		.jump_start = table,
		.jump_stop = table + 2,
	};

	return d;
}

int main(void)
{
	const struct jump_entry *own = own_entry();
	struct statickeys_object d;
	int e1, e2, order;

	tap_plan(9);
#ifndef CONFIG_JUMP_LABEL
	for (e1 = 0; e1 < 9; e1++)
		tap_skip("CONFIG_JUMP_LABEL=n: no table", "shared site %d", e1 + 1);
	(void)own;
	(void)set_entry;
	(void)hand_object;
	return tap_exit();
#endif
	if (!tap_ok(own != NULL, "site() has an entry in this program's table"))
		return tap_exit();

	/* Both orders: one is in key order already, the other is sorted. */
	for (order = 0; order < 2; order++) {
		set_entry(&table[order], own, &shared_k1.key);
		set_entry(&table[!order], own, &shared_k2.key);
		d = hand_object();
		capture_begin();
		statickeys_register_object(&d);
		capture_end();
		tap_ok(captured_one_line("is claimed by key") &&
		       strstr(captured, "key shared_k1 (") &&
		       strstr(captured, "key shared_k2 ("),
		       "one site, two keys (order %d): said once at registration, naming both",
		       order);

		static_branch_enable(&shared_k2);
		e2 = statickeys_last_error();
		static_branch_enable(&shared_k1);
		e1 = statickeys_last_error();
		tap_ok(e1 == EILSEQ && e2 == EILSEQ &&
		       !static_key_enabled(&shared_k1) &&
		       !static_key_enabled(&shared_k2),
		       "both keys refuse to change (errors %d, %d)", e1, e2);
		tap_ok(site() == 0, "the site keeps its built instruction");
		statickeys_unregister_object(&d);
	}

	/* The same site twice for its own key: flips like any other. */
	set_entry(&table[0], own, &shared_k1.key);
	set_entry(&table[1], own, &shared_k1.key);
	d = hand_object();
	capture_begin();
	statickeys_register_object(&d);
	capture_end();
	static_branch_enable(&shared_k1);
	e1 = statickeys_last_error();
	tap_ok(captured_lines() == 0 && e1 == 0 && site() == 1,
	       "one site listed twice for one key: silent, and it flips (error %d)",
	       e1);
	static_branch_disable(&shared_k1);
	e1 = statickeys_last_error();
	tap_ok(e1 == 0 && site() == 0, "and back (error %d)", e1);
	statickeys_unregister_object(&d);
	return tap_exit();
}
