// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Probing a write method: does its write take effect?  The library's own
 * probe site is flipped with the candidate method and executed, never read
 * back (an emulator may keep running a stale translation of bytes that
 * read back as written).  The flip goes through the whole update path of
 * the key logic, reached through its writer hook (kernel/internal.h), not
 * by name: the key logic is layers above.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

/* The probe site must be a real site whatever CONFIG_JUMP_LABEL says. */
#if defined(__has_include)
# if __has_include(<asm/jump_label.h>) && !defined(CONFIG_JUMP_LABEL)
#  define CONFIG_JUMP_LABEL 1
# endif
#endif

#include <linux/jump_label.h>
#include "text_poke.h"

/* What each method's probe said, for the life of the process. */
enum verdict sk_tp_verdicts[POKE_NONE];

static DEFINE_STATIC_KEY_FALSE(sk_probe_key);

static __attribute__((noinline)) bool probe_site(void)
{
	if (static_branch_unlikely(&sk_probe_key))
		return true;
	return false;
}

/* Called through a volatile pointer so that the site really executes. */
static bool (*volatile probe_fn)(void) = probe_site;

/*
 * The probe site and its two instructions, as the arch patcher wrote them
 * the first time a probe flipped it: enough to probe again by writing it
 * directly, while a batch holds the arch queue.  Only the prober ever runs
 * the probe site, with the jump-label lock held, so a direct write of the
 * whole instruction races with nobody.
 */
static uintptr_t probe_addr;
static uint8_t probe_off[JUMP_LABEL_SITE_SIZE], probe_on[JUMP_LABEL_SITE_SIZE];
static bool probe_known;

/* The library's own site of the probe key, from its own table. */
static uintptr_t find_probe_site(void)
{
	const struct jump_entry *e =
		(const struct jump_entry *)(void *)__start___jump_table;
	const struct jump_entry *stop =
		(const struct jump_entry *)(void *)__stop___jump_table;

	for (; e && e < stop; e++)
		if (jump_entry_key(e) == &sk_probe_key.key)
			return jump_entry_code(e);
	return 0;
}

/*
 * The key logic's update of the probe key to @count, through its hook: the
 * number of sites queued and written, 0 if the probe site is not
 * registered, or an error.
 */
static int update_probe_key(int count)
{
	sk_hook_key_update_fn *fn = sk_writer_hook(key_update);

	if (!fn)
		return sk_tp_failed(-EACCES, "no key logic linked in to flip the probe site");
	return fn(&sk_probe_key.key, count);
}

/*
 * Flip the probe site with the candidate method through the whole update
 * path and execute it: 0 if it flipped both ways, -ENOEXEC if the writes
 * went through and the code did not change, or why the update failed.
 */
int sk_tp_probe_by_update(void)
{
	uintptr_t a = probe_addr ? probe_addr : find_probe_site();
	uint8_t off[JUMP_LABEL_SITE_SIZE];
	int n, flipped;

	if (a)
		memcpy(off, (const void *)a, sizeof(off));
	n = update_probe_key(1);
	if (n == 0)		/* the probe site is not registered: trust it */
		return 0;
	if (n < 0)
		return n;
	flipped = probe_fn();
	if (a && !probe_known) {
		memcpy(probe_off, off, sizeof(off));
		memcpy(probe_on, (const void *)a, sizeof(probe_on));
		probe_addr = a;
		probe_known = memcmp(probe_on, probe_off, sizeof(off)) != 0;
	}
	n = update_probe_key(0);
	if (n < 0)
		return n;
	return flipped && !probe_fn() ? 0 : -ENOEXEC;
}

static int write_probe(const uint8_t *bytes)
{
	int err = sk_text_poke(probe_addr, bytes, sizeof(probe_on));

	__builtin___clear_cache((char *)probe_addr,
				(char *)probe_addr + sizeof(probe_on));
	return err;
}

/*
 * The same, while a batch holds the arch queue: write the probe site's
 * instructions directly with @m, and execute it.
 */
int sk_tp_probe_direct(enum poke_method m)
{
	uintptr_t a = probe_addr;
	int err, flipped;

	if (!probe_known)
		return sk_tp_failed(-EACCES, "%s was never probed", sk_tp_method_names[m]);
	sk_tp_method = m;
	err = sk_tp_prepare(m, &a, 1, sizeof(a), sizeof(probe_on));
	if (err)
		return err;
	err = write_probe(probe_on);
	flipped = !err && probe_fn();
	if (!err)
		err = write_probe(probe_off);
	sk_tp_finish(m);
	if (err)
		return err;
	return flipped && !probe_fn() ? 0 : -ENOEXEC;
}

/* Record what a probe of @m said; 0 when @m works. */
int sk_tp_probed(enum poke_method m, int err)
{
	if (!err)
		sk_tp_verdicts[m] = V_EXECUTES;
	else if (err == -ENOEXEC)
		sk_tp_verdicts[m] = V_NO_EFFECT;
	return err;
}
