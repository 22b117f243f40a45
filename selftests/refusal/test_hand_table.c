// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Tables given to statickeys_register_object() by hand.  Registration
 * proves a table in order, with every site in one code segment and every
 * key as built, in one pass and looks at no site; any other table has each
 * site checked: one outside the object's code is never written and its
 * key refuses every change, said once at registration.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "../ro/capture.h"
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(hand_key);	/* its only "site" is data */
DEFINE_STATIC_KEY_FALSE(other_key);

static struct static_key *lo_key(void)
{
	return (uintptr_t)&hand_key < (uintptr_t)&other_key ? &hand_key.key
							    : &other_key.key;
}

static struct static_key *hi_key(void)
{
	return lo_key() == &hand_key.key ? &other_key.key : &hand_key.key;
}

static unsigned char not_code[16];	/* .bss: no instruction lives here */
static struct jump_entry table[2];

static void set_entry(struct jump_entry *e, const void *code,
		      struct static_key *key)
{
	e->code = (int32_t)((intptr_t)code - (intptr_t)&e->code);
	e->target = (int32_t)((intptr_t)code - (intptr_t)&e->target);
	e->key = (uintptr_t)key;
}

static struct statickeys_object hand_object(int n)
{
	struct statickeys_object d = {
		.abi = STATICKEYS_OBJECT_ABI,
		.handle = table,
		.jump_start = table,
		.jump_stop = table + n,
	};

	return d;
}

int main(void)
{
	struct statickeys_object d;
	int st;

	tap_plan(4);

	/* A site in .bss: the range check fails, every site is looked at. */
	set_entry(&table[0], not_code, &hand_key.key);
	d = hand_object(1);
	capture_begin();
	statickeys_register_object(&d);
	capture_end();
	tap_ok(captured_one_line("outside its object's code"),
	       "a site outside the code: said once at registration");
	capture_begin();
	static_branch_enable(&hand_key);
	capture_end();
	st = statickeys_last_error();
	tap_ok(st == EILSEQ && !static_key_enabled(&hand_key) &&
	       not_code[0] == 0,
	       "its key refuses to change (error %d), nothing written", st);
	statickeys_unregister_object(&d);

	static_branch_enable(&hand_key);
	tap_ok(!statickeys_last_error() && static_key_enabled(&hand_key),
	       "once that table is unregistered the key changes");
	static_branch_disable(&hand_key);

	/* Two keys out of order: sorted, then every site checked. */
	set_entry(&table[0], not_code + 8, hi_key());
	set_entry(&table[1], not_code, lo_key());
	d = hand_object(2);
	capture_begin();
	statickeys_register_object(&d);
	capture_end();
	tap_ok(captured_lines() == 2 &&
	       strstr(captured, "outside its object's code") &&
	       (table[0].key & ~(uintptr_t)3) == (uintptr_t)lo_key(), /* low bits: flags */
	       "a table out of order: sorted, both sites outside the code said");
	statickeys_unregister_object(&d);
	return tap_exit();
}
