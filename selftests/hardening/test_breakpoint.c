// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A site that holds a debugger's breakpoint (INT3 over its first byte, or
 * any foreign instruction) when its object registers: built with
 * STATICKEYS_NO_OBJECT_CTOR, this program plants the breakpoint itself and
 * only then hands its table to the library.  While the breakpoint is
 * there, a change of the key must be refused (never reported done with a
 * site left behind); once it is gone the site must follow its key again.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/object.h>
#include <statickeys/statickeys.h>
#include "hard.h"
#include "site.h"

/* Weak: with CONFIG_JUMP_LABEL=n there are no sites and no table. */
extern char __start___jump_table[] __attribute__((weak));
extern char __stop___jump_table[] __attribute__((weak));
extern void *__dso_handle;

DEFINE_STATIC_KEY_FALSE(k_bp);
DEFINE_STATIC_KEY_FALSE(k_other);
SITE(s_bp, static_branch_unlikely(&k_bp))
SITE(s_bp2, static_branch_unlikely(&k_bp))
SITE(s_other, static_branch_unlikely(&k_other))

static int (*volatile run_bp)(void) = s_bp;
static int (*volatile run_bp2)(void) = s_bp2;
static int (*volatile run_other)(void) = s_other;

static struct statickeys_object me;

/* The address of @key's site inside @fn, from the table. */
static uintptr_t site_in(void *fn, struct static_key *key)
{
	struct jump_entry *e;

	for (e = (void *)__start___jump_table; e < (struct jump_entry *)(void *)__stop___jump_table; e++) {
		uintptr_t code = (uintptr_t)&e->code + e->code;

		if ((struct static_key *)(e->key & ~3UL) == key &&
		    code >= (uintptr_t)fn && code < (uintptr_t)fn + 64)
			return code;
	}
	return 0;
}

/*
 * What a debugger does: write through /proc/self/mem.  Under qemu-user
 * that descriptor is the emulator's memory, which holds the program's at an
 * offset (qemu-i386, qemu-arm): the bytes there are read first and
 * compared with the program's own view, and where they differ the byte is
 * stored through a writable mapping instead, which the emulator sees (as
 * its own debugger stub would write it).
 */
static int poke(uintptr_t addr, uint8_t byte)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *page = (void *)(addr & ~(uintptr_t)(ps - 1));
	int fd = open("/proc/self/mem", O_RDWR);
	uint8_t there[8];
	int ok = fd >= 0 && pread(fd, there, 8, (off_t)addr) == 8 &&
		 !memcmp(there, (void *)addr, 8);

	if (ok)
		ok = pwrite(fd, &byte, 1, (off_t)addr) == 1;
	if (fd >= 0)
		close(fd);
	if (ok)
		return 0;
	if (mprotect(page, ps, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	*(volatile uint8_t *)addr = byte;
	return mprotect(page, ps, PROT_READ | PROT_EXEC);
}

int main(void)
{
	uintptr_t site = site_in((void *)s_bp, &k_bp.key);
	uint8_t saved;

	tap_plan(5);
#if !defined(SK_TEST_X86) || !defined(CONFIG_JUMP_LABEL)
	for (int i = 0; i < 5; i++)
		tap_skip(IS_ENABLED(CONFIG_JUMP_LABEL) ?
			 "x86 only: an arm64 breakpoint replaces the whole instruction" :
			 "CONFIG_JUMP_LABEL=n: nothing is patched",
			 "breakpoint at registration");
	return tap_exit();
#endif
	if (!site || poke(site, 0xcc)) {
		for (int i = 0; i < 5; i++)
			tap_skip("cannot write this program's code here (neither /proc/self/mem nor a writable mapping)",
				 "breakpoint at registration");
		return tap_exit();
	}
	saved = 0x0f;	/* the first byte of the 5-byte NOP built there */
	me = (struct statickeys_object){
		.abi = STATICKEYS_OBJECT_ABI,
		.handle = &__dso_handle,
		.jump_start = (void *)__start___jump_table,
		.jump_stop = (void *)__stop___jump_table,
	};
	statickeys_register_object(&me);

	static_branch_enable(&k_bp);
	tap_ok(statickeys_last_error() == EILSEQ && !static_key_enabled(&k_bp) &&
	       run_bp2() == 0,
	       "enable while a site holds a breakpoint: refused (error %d, want EILSEQ), key %d, other site %d",
	       statickeys_last_error(), static_key_enabled(&k_bp), run_bp2());
	static_branch_enable(&k_other);
	tap_ok(statickeys_last_error() == 0 && run_other() == 1,
	       "another key of the same object changes meanwhile (error %d)",
	       statickeys_last_error());

	/* The debugger takes its breakpoint out. */
	poke(site, saved);
	static_branch_enable(&k_bp);
	tap_ok(statickeys_last_error() == 0 && run_bp() == 1 && run_bp2() == 1,
	       "breakpoint gone: enable works and both sites move (%d %d)",
	       run_bp(), run_bp2());
	static_branch_disable(&k_bp);
	tap_ok(statickeys_last_error() == 0 && run_bp() == 0 && run_bp2() == 0,
	       "and disable brings both back");
	tap_ok(statickeys_last_error() == 0, "last error is 0 after a good change");
	statickeys_unregister_object(&me);
	return tap_exit();
}
