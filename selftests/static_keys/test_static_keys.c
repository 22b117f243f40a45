// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The kernel's static-key self-test matrix, rebuilt: old and new API, true
 * and false keys, likely and unlikely, keys defined here and in another
 * shared object, with sites in both.  Verify, invert all, verify, invert
 * back, verify.
 */
#include <statickeys/statickeys.h>
#include "keys_base.h"
#include "tap.h"

struct static_key old_true_key = STATIC_KEY_INIT_TRUE;
struct static_key inv_old_true_key = STATIC_KEY_INIT_TRUE;
struct static_key old_false_key = STATIC_KEY_INIT_FALSE;
struct static_key inv_old_false_key = STATIC_KEY_INIT_FALSE;

DEFINE_STATIC_KEY_TRUE(true_key);
DEFINE_STATIC_KEY_TRUE(inv_true_key);
DEFINE_STATIC_KEY_FALSE(false_key);
DEFINE_STATIC_KEY_FALSE(inv_false_key);

#define SITE(name, expr)					\
	static __attribute__((noinline)) bool name(void)	\
	{							\
		if (expr)					\
			return true;				\
		return false;					\
	}

/* Sites in this program, of keys defined here and in the base object. */
SITE(old_true, static_key_true(&old_true_key))
SITE(inv_old_true, static_key_true(&inv_old_true_key))
SITE(old_false, static_key_false(&old_false_key))
SITE(inv_old_false, static_key_false(&inv_old_false_key))
SITE(true_likely, static_branch_likely(&true_key))
SITE(true_unlikely, static_branch_unlikely(&true_key))
SITE(inv_true_likely, static_branch_likely(&inv_true_key))
SITE(inv_true_unlikely, static_branch_unlikely(&inv_true_key))
SITE(false_likely, static_branch_likely(&false_key))
SITE(false_unlikely, static_branch_unlikely(&false_key))
SITE(inv_false_likely, static_branch_likely(&inv_false_key))
SITE(inv_false_unlikely, static_branch_unlikely(&inv_false_key))
SITE(b_old_true, static_key_true(&base_old_true_key))
SITE(b_inv_old_true, static_key_true(&base_inv_old_true_key))
SITE(b_old_false, static_key_false(&base_old_false_key))
SITE(b_inv_old_false, static_key_false(&base_inv_old_false_key))
SITE(b_true_likely, static_branch_likely(&base_true_key))
SITE(b_true_unlikely, static_branch_unlikely(&base_true_key))
SITE(b_inv_true_likely, static_branch_likely(&base_inv_true_key))
SITE(b_inv_true_unlikely, static_branch_unlikely(&base_inv_true_key))
SITE(b_false_likely, static_branch_likely(&base_false_key))
SITE(b_false_unlikely, static_branch_unlikely(&base_false_key))
SITE(b_inv_false_likely, static_branch_likely(&base_inv_false_key))
SITE(b_inv_false_unlikely, static_branch_unlikely(&base_inv_false_key))

/* As the base object does with its own: start these away from their build state. */
static void __attribute__((constructor)) invert_inv_keys(void)
{
	static_key_slow_dec(&inv_old_true_key);
	static_key_slow_inc(&inv_old_false_key);
	static_branch_disable(&inv_true_key);
	static_branch_enable(&inv_false_key);
}

struct test_key {
	const char *name;
	bool init_state;	/* what the key holds when main() starts */
	struct static_key *key;
	bool (*site)(void);
};

#define K(site_fn, state, keyp)	{ #site_fn, state, keyp, site_fn }

static struct test_key keys[] = {
	K(old_true, true, &old_true_key),
	K(inv_old_true, false, &inv_old_true_key),
	K(old_false, false, &old_false_key),
	K(inv_old_false, true, &inv_old_false_key),
	K(true_likely, true, &true_key.key),
	K(true_unlikely, true, &true_key.key),
	K(inv_true_likely, false, &inv_true_key.key),
	K(inv_true_unlikely, false, &inv_true_key.key),
	K(false_likely, false, &false_key.key),
	K(false_unlikely, false, &false_key.key),
	K(inv_false_likely, true, &inv_false_key.key),
	K(inv_false_unlikely, true, &inv_false_key.key),
	K(b_old_true, true, &base_old_true_key),
	K(b_inv_old_true, false, &base_inv_old_true_key),
	K(b_old_false, false, &base_old_false_key),
	K(b_inv_old_false, true, &base_inv_old_false_key),
	K(b_true_likely, true, &base_true_key.key),
	K(b_true_unlikely, true, &base_true_key.key),
	K(b_inv_true_likely, false, &base_inv_true_key.key),
	K(b_inv_true_unlikely, false, &base_inv_true_key.key),
	K(b_false_likely, false, &base_false_key.key),
	K(b_false_unlikely, false, &base_false_key.key),
	K(b_inv_false_likely, true, &base_inv_false_key.key),
	K(b_inv_false_unlikely, true, &base_inv_false_key.key),
	K(base_site_old_true, true, &base_old_true_key),
	K(base_site_inv_old_true, false, &base_inv_old_true_key),
	K(base_site_old_false, false, &base_old_false_key),
	K(base_site_inv_old_false, true, &base_inv_old_false_key),
	K(base_site_true_likely, true, &base_true_key.key),
	K(base_site_true_unlikely, true, &base_true_key.key),
	K(base_site_inv_true_likely, false, &base_inv_true_key.key),
	K(base_site_inv_true_unlikely, false, &base_inv_true_key.key),
	K(base_site_false_likely, false, &base_false_key.key),
	K(base_site_false_unlikely, false, &base_false_key.key),
	K(base_site_inv_false_likely, true, &base_inv_false_key.key),
	K(base_site_inv_false_unlikely, true, &base_inv_false_key.key),
};

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

/* Every site agrees with its key's state, and the state is as expected. */
static void verify(const char *phase, bool flipped)
{
	unsigned int i, bad = 0;

	for (i = 0; i < NKEYS; i++) {
		bool want = keys[i].init_state ^ flipped;
		bool site = keys[i].site();
		bool state = static_key_enabled(keys[i].key);

		if (site != want || state != want) {
			tap_diag("%s: %s: site %d, key %d, want %d", phase,
				 keys[i].name, site, state, want);
			bad++;
		}
	}
	tap_ok(!bad, "%s: %u sites agree with their keys", phase,
	       (unsigned int)NKEYS);
}

/*
 * Flip every distinct key once (several entries share a key): with the
 * boolean API for the new-style keys and the refcount API for the old.
 */
static void invert_all(void)
{
	unsigned int i, j;

	for (i = 0; i < NKEYS; i++) {
		struct static_key *k = keys[i].key;
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= keys[j].key == k;
		if (seen)
			continue;
		if (static_key_enabled(k))
			static_key_disable(k);
		else
			static_key_enable(k);
	}
}

int main(void)
{
	struct statickeys_stats st;

	tap_plan(6);
	verify("initial", false);
	invert_all();
	verify("inverted", true);
	invert_all();
	verify("restored", false);

	statickeys_get_stats(&st);
	tap_ok(st.objects >= 3, "the program, the base object and the library are registered (%lu)",
	       st.objects);
#ifdef CONFIG_JUMP_LABEL
	tap_ok(st.sites >= NKEYS, "at least %u sites registered (%lu)",
	       (unsigned int)NKEYS, st.sites);
	tap_ok(st.sites_written > 0 && statickeys_last_error() == 0,
	       "sites were rewritten (%lu), no error", st.sites_written);
#else
	tap_ok(!jump_label_text_reserved((void *)old_true, (char *)old_true + 16) &&
	       !jump_label_text_reserved((void *)base_site_true_likely,
					 (char *)base_site_true_likely + 16),
	       "fallback build: no site in the program or the base object");
	tap_ok(st.sites_written == 0 && statickeys_last_error() == 0,
	       "fallback build: nothing rewritten (%lu), no error", st.sites_written);
#endif
	return tap_exit();
}
