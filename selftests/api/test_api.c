// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Every kernel static-key name this library provides, used once the way
 * kernel code uses it, with its result checked.  Deferred keys, read-only
 * keys and refusals have suites of their own.
 */
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/static_key.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "site.h"

/* A program's own Kconfig symbols, as autoconf.h would define them. */
#define CONFIG_SK_TEST_ON 1
#undef CONFIG_SK_TEST_OFF

DEFINE_STATIC_KEY_TRUE(kt);
DEFINE_STATIC_KEY_FALSE(kf);
DECLARE_STATIC_KEY_TRUE(kt);
DECLARE_STATIC_KEY_FALSE(kf);
DEFINE_STATIC_KEY_MAYBE(CONFIG_SK_TEST_ON, maybe_on);
DEFINE_STATIC_KEY_MAYBE(CONFIG_SK_TEST_OFF, maybe_off);
DECLARE_STATIC_KEY_MAYBE(CONFIG_SK_TEST_ON, maybe_on);
DECLARE_STATIC_KEY_MAYBE(CONFIG_SK_TEST_OFF, maybe_off);
DEFINE_STATIC_KEY_MAYBE_RO(CONFIG_SK_TEST_ON, maybe_ro_on);
DEFINE_STATIC_KEY_TRUE_RO(ro_t);
DEFINE_STATIC_KEY_FALSE_RO(ro_f);
DEFINE_STATIC_KEY_ARRAY_TRUE(arr_t, 4);
DEFINE_STATIC_KEY_ARRAY_FALSE(arr_f, 4);
static DEFINE_STATIC_KEY_FALSE(static_kf);
struct static_key old_key = STATIC_KEY_INIT;
struct static_key counted = STATIC_KEY_INIT_FALSE;

SITE(kt_likely, static_branch_likely(&kt))
SITE(kf_unlikely, static_branch_unlikely(&kf))
SITE(on_maybe, static_branch_maybe(CONFIG_SK_TEST_ON, &maybe_on))
SITE(off_maybe, static_branch_maybe(CONFIG_SK_TEST_OFF, &maybe_off))
SITE(ro_on_maybe, static_branch_maybe(CONFIG_SK_TEST_ON, &maybe_ro_on))
SITE(arr_t2, static_branch_likely(&arr_t[2]))
SITE(arr_f3, static_branch_unlikely(&arr_f[3]))
SITE(static_site, static_branch_unlikely(&static_kf))
SITE(old_site, static_key_false(&old_key))
SITE(counted_site, static_key_false(&counted))

static void kconfig_checks(void)
{
	tap_ok(IS_ENABLED(CONFIG_SK_TEST_ON) && IS_BUILTIN(CONFIG_SK_TEST_ON) &&
	       !IS_MODULE(CONFIG_SK_TEST_ON) && IS_REACHABLE(CONFIG_SK_TEST_ON),
	       "IS_ENABLED/IS_BUILTIN/IS_MODULE/IS_REACHABLE of a =y option");
	tap_ok(!IS_ENABLED(CONFIG_SK_TEST_OFF) && !IS_ENABLED(CONFIG_NEVER_DEFINED),
	       "IS_ENABLED of an undefined option is 0");
}

static void maybe_checks(void)
{
	tap_ok(__builtin_types_compatible_p(__typeof__(maybe_on), struct static_key_true) &&
	       __builtin_types_compatible_p(__typeof__(maybe_off), struct static_key_false) &&
	       __builtin_types_compatible_p(__typeof__(maybe_ro_on), struct static_key_true),
	       "DEFINE_STATIC_KEY_MAYBE picks the key type from the option");
	tap_ok(on_maybe() == 1 && off_maybe() == 0 && ro_on_maybe() == 1,
	       "static_branch_maybe follows the initial states");
	static_branch_disable(&maybe_on);
	static_branch_enable(&maybe_off);
	tap_ok(on_maybe() == 0 && off_maybe() == 1,
	       "static_branch_maybe sites follow static_branch_enable/disable");
	static_branch_enable(&maybe_on);
	static_branch_disable(&maybe_off);
}

static void init_macro_checks(void)
{
	struct static_key_true t = STATIC_KEY_TRUE_INIT;
	struct static_key_false f = STATIC_KEY_FALSE_INIT;
	struct static_key a = STATIC_KEY_INIT_TRUE, b = STATIC_KEY_INIT_FALSE;

	tap_ok(static_key_enabled(&t) && !static_key_enabled(&f) &&
	       static_key_enabled(&a) && !static_key_enabled(&b) &&
	       t.key.type == JUMP_TYPE_TRUE && f.key.type == JUMP_TYPE_FALSE,
	       "STATIC_KEY_{TRUE,FALSE}_INIT and STATIC_KEY_INIT_{TRUE,FALSE}");
	tap_ok(static_key_initialized && jump_label_enabled(&kt),
	       "static_key_initialized, jump_label_enabled alias");
}

static void array_checks(void)
{
	int i, ok = 1;

	for (i = 0; i < 4; i++)
		ok &= static_key_enabled(&arr_t[i]) && !static_key_enabled(&arr_f[i]);
	tap_ok(ok && arr_t2() == 1 && arr_f3() == 0,
	       "DEFINE_STATIC_KEY_ARRAY_TRUE/FALSE initial states");
	static_branch_disable(&arr_t[2]);
	static_branch_enable(&arr_f[3]);
	tap_ok(arr_t2() == 0 && arr_f3() == 1 && static_key_enabled(&arr_t[1]) &&
	       !static_key_enabled(&arr_f[2]),
	       "one array element switches alone");
}

static void refcount_checks(void)
{
	bool r1, r2;

	r1 = static_key_slow_inc(&counted);
	r2 = static_key_fast_inc_not_disabled(&counted);
	tap_ok(r1 && r2 && static_key_count(&counted) == 2 && counted_site() == 1,
	       "static_key_slow_inc enables, fast_inc_not_disabled adds a user");
	static_key_slow_dec(&counted);
	tap_ok(static_key_count(&counted) == 1 && counted_site() == 1,
	       "static_key_slow_dec keeps a key with users enabled");
	static_key_slow_dec(&counted);
	tap_ok(static_key_count(&counted) == 0 && counted_site() == 0 &&
	       !static_key_fast_inc_not_disabled(&counted),
	       "the last static_key_slow_dec disables; fast inc refuses a disabled key");

	static_branch_inc(&kf);
	static_branch_inc(&kf);
	static_branch_dec(&kf);
	tap_ok(static_key_count(&kf.key) == 1 && kf_unlikely() == 1,
	       "static_branch_inc/dec count");
	static_branch_dec(&kf);
	tap_ok(kf_unlikely() == 0, "static_branch_dec to zero disables");
}

static void bool_checks(void)
{
	static_branch_enable(&static_kf);
	static_key_enable(&old_key);
	tap_ok(static_site() == 1 && old_site() == 1 && static_key_enabled(&static_kf),
	       "static_branch_enable / static_key_enable (static key, old API)");
	static_branch_disable(&static_kf);
	static_key_disable(&old_key);
	tap_ok(static_site() == 0 && old_site() == 0,
	       "static_branch_disable / static_key_disable");
	static_branch_disable(&kt);
	tap_ok(kt_likely() == 0 && static_key_count(&kt.key) == 0,
	       "static_branch_disable on a true key");
	static_branch_enable(&kt);
	tap_ok(kt_likely() == 1, "static_branch_enable on a true key");
}

static void locked_checks(void)
{
	cpus_read_lock();
	lockdep_assert_cpus_held();
	static_branch_enable_cpuslocked(&kf);
	static_branch_inc_cpuslocked(&kf);
	static_branch_dec_cpuslocked(&kf);
	cpus_read_unlock();
	tap_ok(kf_unlikely() == 1, "_cpuslocked enable/inc/dec under cpus_read_lock()");
	if (cpus_read_trylock()) {
		static_branch_disable_cpuslocked(&kf);
		static_key_enable_cpuslocked(&old_key);
		static_key_disable_cpuslocked(&old_key);
		static_key_slow_inc_cpuslocked(&counted);
		static_key_slow_dec_cpuslocked(&counted);
		cpus_read_unlock();
	}
	tap_ok(kf_unlikely() == 0 && old_site() == 0 && counted_site() == 0,
	       "_cpuslocked disable and the static_key_ spellings");
}

static void misc_checks(void)
{
	void *fn = (void *)kf_unlikely;

	jump_label_init();
	STATIC_KEY_CHECK_USE(&kf);
#ifdef CONFIG_JUMP_LABEL
	tap_ok(jump_label_text_reserved(fn, (char *)fn + 32) == 1,
	       "jump_label_text_reserved finds the site in a site function");
#else
	tap_ok(jump_label_text_reserved(fn, (char *)fn + 32) == 0,
	       "jump_label_text_reserved: no sites in a fallback build");
#endif
	tap_ok(jump_label_text_reserved((void *)&kconfig_checks,
					(char *)&kconfig_checks + 1) == 0,
	       "jump_label_text_reserved: no site at the start of a site-less function");
	tap_ok(static_key_enabled(&ro_t) && !static_key_enabled(&ro_f),
	       "DEFINE_STATIC_KEY_TRUE_RO/FALSE_RO initial states");
}

int main(void)
{
	tap_plan(23);
	kconfig_checks();
	maybe_checks();
	init_macro_checks();
	array_checks();
	refcount_checks();
	bool_checks();
	locked_checks();
	misc_checks();
	return tap_exit();
}
