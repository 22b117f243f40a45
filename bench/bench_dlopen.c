// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * dlopen() of a shared object with many sites: callgrind counts inside
 * bench_dlopen() only (--toggle-collect), which is the loader's mapping and
 * relocation plus the object's constructors, its registration included.
 * Prints the sites the library knows afterwards, so that the run shows
 * whether the object registered.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <statickeys/statickeys.h>

__attribute__((noinline)) void *bench_dlopen(const char *path)
{
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

int main(int argc, char **argv)
{
	struct statickeys_stats st;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_dlopen OBJECT.so\n");
		return 2;
	}
	h = bench_dlopen(argv[1]);
	if (!h) {
		fprintf(stderr, "bench_dlopen: %s\n", dlerror());
		return 1;
	}
	statickeys_get_stats(&st);
	printf("dlopen %s sites %lu\n", argv[1], (unsigned long)st.sites);
	return 0;
}
