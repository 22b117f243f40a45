// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* The other translation unit of the program with the header's sites. */
#include "cxx.h"

int cxx_sites_b(void)
{
	return CXX_ALL_SITES();
}
