// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libcxx.so, built from C++: it defines a key the program's sites use and
 * has its own copies of the header's sites.
 */
#include "cxx.h"

extern "C" {
CXX_API DEFINE_STATIC_KEY_TRUE(cxx_lib_key);
}

int cxx_sites_lib(void)
{
	return CXX_ALL_SITES();
}
