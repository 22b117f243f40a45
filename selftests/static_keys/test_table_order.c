// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Registration sorts a table that is not in (key, code) order: sites of
 * eight keys in descending key order, keys far apart in memory (so that
 * several bytes of their addresses differ), and half the sites in cold
 * functions, which the linker places before the others while their entries
 * come after.  Every
 * key must then switch exactly its own sites, likely and unlikely.
 */
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "tap.h"

#define NKEYS	8
#define PER_KEY	6

/* Page-aligned keys: their addresses differ above the low byte too. */
#define KEY(i)								\
	struct static_key_false key##i __attribute__((aligned(4096))) =	\
		STATIC_KEY_FALSE_INIT
KEY(0); KEY(1); KEY(2); KEY(3); KEY(4); KEY(5); KEY(6); KEY(7);

static struct static_key_false *const keys[NKEYS] = {
	&key0, &key1, &key2, &key3, &key4, &key5, &key6, &key7,
};

/* Site j of key i; odd j are cold, so their code lands elsewhere. */
#define HOT	__attribute__((noinline))
#define COLD	__attribute__((noinline, cold))
#define SITE(i, j, attr)						\
	static attr int site_##i##_##j(void)				\
	{								\
		if ((j) % 3 == 2 ? !static_branch_likely(&key##i)	\
				 : static_branch_unlikely(&key##i))	\
			return (j) % 3 == 2 ? 0 : 1;			\
		return (j) % 3 == 2 ? 1 : 0;				\
	}

/* Emitted round-robin: key 0, key 1, ..., key 7, key 0, ... */
#define ROUND(j, attr)							\
	SITE(0, j, attr) SITE(1, j, attr) SITE(2, j, attr) SITE(3, j, attr) \
	SITE(4, j, attr) SITE(5, j, attr) SITE(6, j, attr) SITE(7, j, attr)
ROUND(0, HOT) ROUND(1, COLD) ROUND(2, HOT) ROUND(3, COLD) ROUND(4, HOT)
ROUND(5, COLD)

#define ROW(i) { site_##i##_0, site_##i##_1, site_##i##_2,		\
		 site_##i##_3, site_##i##_4, site_##i##_5 }
static int (*const sites[NKEYS][PER_KEY])(void) = {
	ROW(0), ROW(1), ROW(2), ROW(3), ROW(4), ROW(5), ROW(6), ROW(7),
};

/* One function, keys in descending order: the table is out of key order. */
#define BIT(i)	(static_branch_unlikely(&key##i) ? 1U << (i) : 0)
static __attribute__((noinline)) unsigned int descending(void)
{
	return BIT(7) | BIT(6) | BIT(5) | BIT(4) | BIT(3) | BIT(2) | BIT(1) |
	       BIT(0);
}

/* Every site says 1 exactly when its key is @on. */
static unsigned int wrong(int on)
{
	unsigned int i, j, bad = 0;

	for (i = 0; i < NKEYS; i++)
		for (j = 0; j < PER_KEY; j++)
			bad += sites[i][j]() != (i == (unsigned int)on);
	return bad + (descending() != (on < 0 ? 0 : 1U << on));
}

int main(void)
{
	struct statickeys_stats st;
	int i;

	tap_plan(NKEYS + 2);
	statickeys_get_stats(&st);
	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		tap_ok(st.sites >= NKEYS * (PER_KEY + 1),
		       "%d sites registered (%lu in all)",
		       NKEYS * (PER_KEY + 1), st.sites);
	else
		tap_skip("CONFIG_JUMP_LABEL=n: no table", "sites registered");
	tap_ok(wrong(-1) == 0, "every site in its built state");
	for (i = 0; i < NKEYS; i++) {
		unsigned int bad;

		static_branch_enable(keys[i]);
		bad = wrong(i);
		static_branch_disable(keys[i]);
		bad += wrong(-1);
		tap_ok(bad == 0, "key %d switches its %d sites and no other (%u wrong)",
		       i, PER_KEY + 1, bad);
	}
	return tap_exit();
}
