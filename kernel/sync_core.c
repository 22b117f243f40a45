// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Core serialization: after a step of a change, every thread of the
 * process must fetch the new bytes before it runs the site again.  The
 * strongest barrier the kernel offers (membarrier), else a TLB shootdown.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "text_poke.h"

enum sync_mode { SYNC_UNSET, SYNC_CORE, SYNC_EXPEDITED, SYNC_TLB };

static enum sync_mode sync_mode;
static pid_t sync_pid;
unsigned long sk_tp_sync_gen;

static long membarrier(int cmd, unsigned int flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

/*
 * Register for the strongest barrier the kernel offers.  Registration
 * belongs to the address space, so a forked child registers again.
 */
static void sync_init(void)
{
	long q = membarrier(MEMBARRIER_CMD_QUERY, 0);

	sync_pid = sk_tp_pid();
	if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
	    !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0))
		sync_mode = SYNC_CORE;
	else if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		 !membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0))
		sync_mode = SYNC_EXPEDITED;
	else
		sync_mode = SYNC_TLB;
}

/*
 * Without membarrier: changing a page's protection makes the kernel shoot
 * down its TLB entries on every CPU running this process, with an
 * interrupt, and the return from an interrupt serializes the core.  0 only
 * if both changes were made.
 */
static int sync_by_tlb_shootdown(void)
{
	static void *page;
	long ps = sysconf(_SC_PAGESIZE);

	if (!page) {
		void *p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -EACCES;
		page = p;
	}
	*(volatile char *)page = 1;
	if (mprotect(page, ps, PROT_READ) ||
	    mprotect(page, ps, PROT_READ | PROT_WRITE))
		return -EACCES;
	return 0;
}

/*
 * A step that could not serialize is not counted, and the caller refuses
 * (and undoes) the update: a thread could still run bytes of the step
 * before.
 */
int sk_sync_core(void)
{
	int err = 0;

	if (sync_mode == SYNC_UNSET || sync_pid != sk_tp_pid())
		sync_init();
	switch (sync_mode) {
	case SYNC_CORE:
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0))
			err = sync_by_tlb_shootdown();
		break;
	case SYNC_EXPEDITED:
		/* The IPI's return from interrupt serializes (x86, arm64). */
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0))
			err = sync_by_tlb_shootdown();
		break;
	default:
		err = sync_by_tlb_shootdown();
		break;
	}
	if (err)
		return sk_tp_failed(err, "cannot serialize the threads of this process (membarrier and mprotect refused)");
	sk_tp_sync_gen++;
	sk_count_sync();
	return 0;
}
