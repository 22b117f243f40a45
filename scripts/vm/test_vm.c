// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The first test of every check-vm suite, run inside the guest: on a real
 * kernel the library must write code through /proc/self/mem, and system
 * calls must reach the randomize_kstack_offset entry through the seccomp
 * trap.  Both are what user-mode QEMU cannot show for arm64.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/entry.h>
#include <statickeys/statickeys.h>

#include "tap.h"
#include "site.h"

#define NR_ENTRIES	1000

DEFINE_STATIC_KEY_FALSE(vm_key);
SITE(vm_site, static_branch_unlikely(&vm_key))

/* Entries seen by the hook, by path (STATICKEYS_ENTRY_*). */
static unsigned int seen[STATICKEYS_ENTRY_SECCOMP + 1];

static void count(const struct statickeys_entry_info *info, void *arg)
{
	(void)arg;
	if (info->path <= STATICKEYS_ENTRY_SECCOMP)
		seen[info->path]++;
}

int main(void)
{
	static const long nrs[] = { SYS_getppid };
	long want = getppid();
	unsigned int i, bad = 0;
	const char *method;
	int ret;

	tap_plan(4);

	/* The first change of the process chooses the write method. */
	static_branch_enable(&vm_key);
	method = statickeys_text_poke_method();
	tap_ok(vm_site() == 1 && !statickeys_last_error(),
	       "an enabled key's site takes its branch");
#ifdef CONFIG_JUMP_LABEL
	tap_ok(!strcmp(method, "procmem"),
	       "the library chose procmem on a real kernel (got %s)", method);
#else
	tap_skip("CONFIG_JUMP_LABEL=n writes no code",
		 "write method (%s)", method);
#endif
	tap_diag("vm: text_poke method %s", method);

	ret = statickeys_entry_install(nrs, 1);
	tap_ok(ret == 0 && statickeys_entry_path() == STATICKEYS_ENTRY_SECCOMP,
	       "the seccomp trap is installed (%d)", ret);
	statickeys_entry_thread_init();
	statickeys_entry_set_hook(count, NULL);
	for (i = 0; i < NR_ENTRIES; i++)
		bad += getppid() != want;
	statickeys_entry_set_hook(NULL, NULL);
	tap_ok(seen[STATICKEYS_ENTRY_SECCOMP] == NR_ENTRIES &&
	       !seen[STATICKEYS_ENTRY_DIRECT] && !bad,
	       "%u getppid() calls entered through the seccomp path (%u), none direct (%u), results right (%u wrong)",
	       NR_ENTRIES, seen[STATICKEYS_ENTRY_SECCOMP],
	       seen[STATICKEYS_ENTRY_DIRECT], bad);
	tap_diag("vm: kstack entry path %s, %u entries",
		 statickeys_entry_path_name(statickeys_entry_path()),
		 seen[STATICKEYS_ENTRY_SECCOMP]);
	return tap_exit();
}
