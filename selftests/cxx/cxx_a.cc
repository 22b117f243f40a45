// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* One of the program's translation units that use the header's sites. */
#include "cxx.h"

int cxx_sites_a(void)
{
	return CXX_ALL_SITES();
}
