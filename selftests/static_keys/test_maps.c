// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Patching leaves the memory map as it found it: the same file-backed
 * mappings, split the same way, with the same protections and offsets, and
 * no mapping writable and executable, with
 * each write method the library has.  Each method runs in a child, chosen
 * with STATICKEYS_TEXT_POKE before the library makes its choice.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(kf);

static __attribute__((noinline)) int site(void)
{
	return static_branch_unlikely(&kf) ? 1 : 0;
}

/*
 * The file-backed lines of /proc/self/maps (anonymous memory comes and goes
 * with malloc), or with @all every line.
 */
static char *read_maps(int all)
{
	FILE *f = fopen("/proc/self/maps", "r");
	size_t cap = 1 << 16, len = 0;
	char line[512], *buf = calloc(1, cap);

	while (f && buf && fgets(line, sizeof(line), f)) {
		if (!all && !strchr(line, '/'))
			continue;
		if (len + strlen(line) + 1 > cap)
			break;
		strcpy(buf + len, line);
		len += strlen(line);
	}
	if (f)
		fclose(f);
	return buf;
}

static int any_wx(const char *maps)
{
	const char *p = maps;

	while (p && *p) {
		const char *perm = strchr(p, ' ');

		if (perm && perm[2] == 'w' && perm[3] == 'x')
			return 1;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/*
 * Whether @maps shows the mapping that holds @addr as executable.  A
 * kernel always does for code that runs; qemu-i386 7.2's emulated
 * /proc/self/maps shows the host's protections, and the host never
 * executes the program's pages: its text reads "r--p" until a first
 * mprotect() of it, after which the guest's "r-xp" is shown.
 */
static int shows_exec(const char *maps, uintptr_t addr)
{
	const char *p = maps;
	unsigned long lo, hi;
	char perm[5];

	while (p && *p) {
		if (sscanf(p, "%lx-%lx %4s", &lo, &hi, perm) == 3 &&
		    addr >= lo && addr < hi)
			return perm[2] == 'x';
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/*
 * Exit status: 0 ok, 2 maps changed, 3 W+X mapping, 4 did not flip, 5 skip,
 * 6 the map does not show this code as executable (skip).
 */
static __attribute__((unused)) int child(void *arg)
{
	char *before, *after;
	int i, flips = 1;

	setenv("STATICKEYS_TEXT_POKE", arg, 1);
	before = read_maps(0);
	if (!shows_exec(before, (uintptr_t)site))
		return 6;
	for (i = 0; i < 50; i++) {
		static_branch_enable(&kf);
		flips &= site() == 1;
		static_branch_disable(&kf);
		flips &= site() == 0;
	}
	if (!strcmp(statickeys_text_poke_method(), "none"))
		return 5;
	after = read_maps(0);
	if (!flips)
		return 4;
	if (any_wx(read_maps(1)))
		return 3;
	if (strcmp(before, after)) {
		printf("# before:\n%s# after:\n%s", before, after);
		fflush(stdout);
		return 2;
	}
	return 0;
}

int main(void)
{
	static const char *const methods[] = { "procmem", "mprotect" };
	unsigned int i;

	tap_plan(2);
	for (i = 0; i < 2; i++) {
#ifdef CONFIG_JUMP_LABEL
		int st = tap_fork(child, (void *)methods[i]);

		if (st == 5)
			tap_skip("this method cannot write code here (qemu user mode ignores /proc/self/mem)",
				 "%s: memory map unchanged", methods[i]);
		else if (st == 6)
			tap_skip("/proc/self/maps does not show the running code as executable here (qemu-i386 shows the host's protections)",
				 "%s: memory map unchanged", methods[i]);
		else
			tap_ok(st == 0, "%s: 100 toggles leave the memory map as it was, no W+X mapping (status %d)",
			       methods[i], st);
#else
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is patched",
			 "%s: memory map unchanged", methods[i]);
#endif
	}
	return tap_exit();
}
