// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libobjs_late.so: dlopen()ed by the test after the keys changed; reports
 * where its own sites are so the test can watch that memory after dlclose.
 */
#include "objs.h"

OBJS_SITES(objl)

/* objl_sites() - the code addresses of this object's sites; returns how many. */
int objl_sites(uintptr_t *addrs, int max)
{
	struct jump_entry *e = (struct jump_entry *)(void *)__start___jump_table;
	struct jump_entry *stop = (struct jump_entry *)(void *)__stop___jump_table;
	int n = 0;

	for (; e && e < stop; e++, n++)
		if (n < max)
			addrs[n] = (uintptr_t)&e->code + e->code;
	return n;
}
