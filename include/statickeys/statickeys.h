/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What statickeys offers beyond the kernel's API: its version, sealing of
 * read-only keys, the reason the last slow-path call was refused, and the
 * counters the benchmarks and tests read.
 */
#ifndef _STATICKEYS_STATICKEYS_H
#define _STATICKEYS_STATICKEYS_H

#include <stddef.h>
#include <statickeys/export.h>

SK_BEGIN_DECLS

#define STATICKEYS_VERSION_MAJOR	1
#define STATICKEYS_VERSION_MINOR	0
#define STATICKEYS_VERSION_PATCH	0

/**
 * statickeys_seal() - make every registered read-only key read-only now.
 *
 * Objects seal their own _RO keys when they finish registering (after the
 * command line was applied); an object built with -DSTATICKEYS_MANUAL_SEAL
 * waits for this call instead.  Returns the number of objects sealed.
 */
int statickeys_seal(void);

/**
 * statickeys_last_error() - why the calling thread's last key change failed.
 *
 * 0 when it succeeded.  Otherwise the key kept its state, and the reason is
 * one of: EPERM, a sealed read-only key; EILSEQ, a site does not hold the
 * expected instruction (a debugger's breakpoint included); ERANGE, a count
 * would leave its range; EDEADLK, the change was made inside the caller's
 * own jump_label_lock() section; EACCES, code cannot be written or the
 * threads cannot be serialized here; EIO, a write failed part-way and was
 * undone; ENOMEM; EMFILE or ENFILE, no descriptor for /proc/self/mem;
 * EBUSY, a thread blocks SIGTRAP and would be killed by the update
 * (x86-64).  Nothing else is ever returned.
 */
int statickeys_last_error(void);

/**
 * statickeys_text_poke_method() - how code is written: "procmem" (pwrite to
 * /proc/self/mem), "mprotect" (a brief writable mapping), or "none" when
 * neither works here (every change is then refused).  Chosen on the first
 * change by patching a probe site and executing it; STATICKEYS_TEXT_POKE in
 * the environment forces one of the two.
 */
const char *statickeys_text_poke_method(void);

struct statickeys_stats {
	unsigned long updates;		/* key state changes that patched code */
	unsigned long sites_written;	/* sites rewritten */
	unsigned long sync_steps;	/* core-serializing steps (membarrier) */
	unsigned long refused;		/* changes refused (see last_error) */
	unsigned long objects;		/* objects registered now */
	unsigned long sites;		/* sites registered now */
};

/** statickeys_get_stats() - a snapshot of the counters. */
void statickeys_get_stats(struct statickeys_stats *stats);

SK_END_DECLS

#endif /* _STATICKEYS_STATICKEYS_H */
