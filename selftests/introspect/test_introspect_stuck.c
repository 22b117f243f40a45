// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A write that fails and cannot be undone leaves a key's sites emulated
 * (x86-64: the INT3 stays, the trap handler runs the old instruction): the
 * walk says EMULATED for them, and the next change that can write brings
 * them back and lists them as they are.  Linked with the static library for
 * its write hook.  With --serve FILE it leaves the sites stuck, prints its
 * table to FILE and waits (test_keys_tool.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <statickeys/statickeys.h>
#include "arch.h"
#include "intro.h"
#include "site.h"
#include "tap.h"

/* The library's hidden test hook (kernel/internal.h). */
extern int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);
/* x86 bridges neighbouring sites into one write: this test fails one site's. */
extern bool sk_test_write_by_site;

DEFINE_STATIC_KEY_FALSE(k_stuck);
DEFINE_STATIC_KEY_FALSE(k_warm);

SITE(s_stuck_a, static_branch_unlikely(&k_stuck))
SITE(s_stuck_b, static_branch_unlikely(&k_stuck))
SITE(s_warm, static_branch_unlikely(&k_warm))

static struct intro_seen seen = { .name = "k_stuck" };
static int writes;

/* The first write (an INT3) lands; every write after it fails. */
static int fail_after_first(uintptr_t addr, const void *bytes, size_t len)
{
	return ++writes > 1 ? -EIO : 0;
}

static int record(const struct statickeys_key_info *k, void *arg)
{
	return intro_record(k, &seen, 1);
}

static int walk(void)
{
	seen.found = false;
	return statickeys_for_each_key(record, NULL);
}

static int make_stuck(void)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	/* The write method is chosen (by writing) at the first change. */
	static_branch_enable(&k_warm);
	if (null >= 0)
		dup2(null, 2);		/* the failure is said there */
	sk_test_write_by_site = true;
	sk_test_poke_hook = fail_after_first;
	static_branch_enable(&k_stuck);
	sk_test_poke_hook = NULL;
	if (saved >= 0)
		dup2(saved, 2);
	if (null >= 0)
		close(null);
	if (saved >= 0)
		close(saved);
	return statickeys_last_error();
}

static int serve(const char *file)
{
	FILE *f = fopen(file, "w");
	char c;

	if (!f || make_stuck() != EIO)
		return 2;
	statickeys_print_keys(f);
	fclose(f);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	int err, i;

	if (argc == 3 && !strcmp(argv[1], "--serve"))
		return serve(argv[2]);
	tap_plan(3);
#ifndef SK_TEST_X86
	for (i = 0; i < 3; i++)
		tap_skip("x86 only: elsewhere one instruction is written, never left emulated",
			 "emulated sites %d", i + 1);
	return tap_exit();
#endif
	if (!IS_ENABLED(CONFIG_JUMP_LABEL)) {
		for (i = 0; i < 3; i++)
			tap_skip("CONFIG_JUMP_LABEL=n: nothing is patched",
				 "emulated sites %d", i + 1);
		return tap_exit();
	}
	err = make_stuck();
	tap_ok(err == EIO && !static_key_enabled(&k_stuck) && s_warm() == 1 &&
	       s_stuck_a() == 0 && s_stuck_b() == 0,
	       "a failed write that cannot be undone: key unchanged, EIO (%d)", err);
	err = walk();
	/* The first write landed on one site: the other still holds its NOP. */
	tap_ok(!err && seen.found && seen.count == 0 && seen.nr_sites == 2 &&
	       seen.emulated == 1 && seen.wrong_sites == 1,
	       "the walk lists the site holding the INT3 EMULATED, the other NOP (%zu emulated, %zu not NOP, of %zu)",
	       seen.emulated, seen.wrong_sites, seen.nr_sites);
	static_branch_enable(&k_stuck);
	err = walk();
	tap_ok(!statickeys_last_error() && !err && seen.count == 1 &&
	       !seen.emulated && !seen.wrong_sites && s_stuck_a() == 1,
	       "the next change repairs them: listed JMP, none emulated (%zu wrong)",
	       seen.wrong_sites);
	return tap_exit();
}
