/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Writing over a site the way a stray patcher would (mprotect(), a store,
 * the instruction cache cleaned): a test's site holding another
 * instruction (SK_TEST_FOREIGN, selftests/lib/arch.h), and put back.
 */
#ifndef _SELFTESTS_FOREIGN_H
#define _SELFTESTS_FOREIGN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write the @len bytes at @bytes over the code at @addr: 0 or -errno. */
static inline int sk_test_write_code(uintptr_t addr, const unsigned char *bytes,
				     size_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t pg = addr & ~(uintptr_t)(ps - 1);
	size_t span = addr + len - pg;

	if (mprotect((void *)pg, span, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy((void *)addr, bytes, len);
	__builtin___clear_cache((char *)addr, (char *)addr + len);
	return mprotect((void *)pg, span, PROT_READ | PROT_EXEC) ? -errno : 0;
}

#endif /* _SELFTESTS_FOREIGN_H */
