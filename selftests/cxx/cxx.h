// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Sites the way C++ code has them: in a header included by several
 * translation units, in an inline function, a function template, a method
 * defined in its class, a lambda and against a class-static key.  Every
 * function is kept out of line (noinline), so that each translation unit
 * emits its own copy in a COMDAT group and the linker keeps one.
 */
#ifndef _SELFTESTS_CXX_H
#define _SELFTESTS_CXX_H

#include <linux/jump_label.h>

#define CXX_API	__attribute__((visibility("default")))

extern "C" {
DECLARE_STATIC_KEY_FALSE(cxx_key);		/* the program's */
DECLARE_STATIC_KEY_TRUE(cxx_lib_key);		/* libcxx.so's */
}

/* A class-static key, defined in the class (an inline variable). */
struct cxx_feature {
	static inline struct static_key_false key = STATIC_KEY_FALSE_INIT;

	__attribute__((noinline)) int on() const
	{
		return static_branch_unlikely(&key) ? 1 : 0;
	}
};

/* A class template: each instance has its own key and its own site. */
template <int N>
struct cxx_tfeature {
	static inline struct static_key_false key = STATIC_KEY_FALSE_INIT;

	__attribute__((noinline)) int on() const
	{
		return static_branch_unlikely(&key) ? N : 0;
	}
};

__attribute__((noinline)) inline int cxx_inline(void)
{
	return static_branch_unlikely(&cxx_key) ? 1 : 0;
}

template <typename T>
__attribute__((noinline)) T cxx_template(T v)
{
	return static_branch_unlikely(&cxx_key) ? v : T();
}

__attribute__((noinline)) inline int cxx_lambda(void)
{
	auto f = []() __attribute__((noinline)) {
		return static_branch_likely(&cxx_lib_key) ? 1 : 0;
	};
	return f();
}

/*
 * Every site of the header, as one bit each: inline, template<int>,
 * template<long>, method, lambda (libcxx.so's key, likely), and the
 * methods of two instances of a class template (bits 5 and 6).
 */
#define CXX_ALL_SITES()						\
	(cxx_inline() | cxx_template<int>(1) << 1 |		\
	 (int)cxx_template<long>(1) << 2 | cxx_feature().on() << 3 | \
	 cxx_lambda() << 4 | cxx_tfeature<1>().on() << 5 |	\
	 cxx_tfeature<2>().on() << 5)

CXX_API int cxx_sites_a(void);		/* cxx_a.cc */
CXX_API int cxx_sites_b(void);		/* cxx_b.cc */
CXX_API int cxx_sites_lib(void);	/* libcxx.so */

#endif /* _SELFTESTS_CXX_H */
