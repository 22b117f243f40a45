// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The C++ tier: sites in inline functions, templates, in-class methods and
 * lambdas that two translation units and a shared object each emit link,
 * and every copy the linker keeps flips with its key.  Built with $(CXX) by
 * the Makefile, and by test_cxx.sh with g++ and clang++ and each linker.
 */
#include <stdio.h>

#include <statickeys/statickeys.h>
#include "cxx.h"
#include "tap.h"

extern "C" {
DEFINE_STATIC_KEY_FALSE(cxx_key);
}

/* The bits of CXX_ALL_SITES(): which keys are on. */
static int expect(bool key, bool feature, bool lib)
{
	return (key ? 0x7 : 0) | (feature ? 0x8 : 0) | (lib ? 0x10 : 0);
}

static void check(const char *when, int want)
{
	int a = cxx_sites_a(), b = cxx_sites_b(), l = cxx_sites_lib();

	tap_ok(a == want && b == want && l == want,
	       "%s: both translation units and libcxx.so see %#x (got %#x %#x %#x)",
	       when, want, a, b, l);
}

int main(void)
{
	tap_plan(7);
	check("as built", expect(false, false, true));
	static_branch_enable(&cxx_key);
	check("cxx_key on", expect(true, false, true));
	static_branch_enable(&cxx_feature::key);
	check("class-static key on", expect(true, true, true));
	static_branch_disable(&cxx_lib_key);
	check("libcxx.so's key off", expect(true, true, false));
	static_branch_enable(&cxx_tfeature<2>::key);
	check("one class template instance's key on",
	      expect(true, true, false) | 0x40);
	static_branch_disable(&cxx_key);
	static_branch_disable(&cxx_feature::key);
	static_branch_disable(&cxx_tfeature<2>::key);
	static_branch_enable(&cxx_lib_key);
	check("back as built", expect(false, false, true));
	tap_ok(statickeys_last_error() == 0, "no change was refused (error %d)",
	       statickeys_last_error());
	return tap_exit();
}
