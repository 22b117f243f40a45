// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The process the writer's state belongs to (its held descriptors, its
 * membarrier registration): getpid() is a system call, and costs a few
 * microseconds in a virtual machine.  The answer is kept in a page the
 * kernel empties in every child that gets a copy of the address space,
 * however it was made (MADV_WIPEONFORK, Linux 4.14): a child finds 0 and
 * asks again.  Where the page cannot be had, every call asks.  The lock
 * serialises every call.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>
#include "text_poke.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK		18
#endif

static pid_t *pid_page;
static bool pid_page_tried;

static void pid_page_init(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p;

	pid_page_tried = true;
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return;
	if (madvise(p, ps, MADV_WIPEONFORK)) {
		munmap(p, ps);
		return;
	}
	pid_page = p;
}

pid_t sk_tp_pid(void)
{
	if (!pid_page_tried)
		pid_page_init();
	if (!pid_page)
		return getpid();
	if (!*pid_page)
		*pid_page = getpid();
	return *pid_page;
}

/* In a child, from the fork handler: where the kernel ignored the advice. */
void sk_tp_pid_forget(void)
{
	if (pid_page)
		*pid_page = 0;
}

/* Whether the page says, for nothing, that this may be another process. */
bool sk_tp_pid_wiped(void)
{
	return pid_page && !*pid_page;
}
