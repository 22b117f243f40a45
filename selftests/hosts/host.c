// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin host that does not link libstatickeys (a PAM or nginx module
 * loader, a Python extension): it loads a plugin late, with dlopen() or
 * with dlmopen() into a new namespace, and runs its host_plugin_run().
 * usage: host dlopen|dlmopen PLUGIN; exits 0 when the plugin's key
 * changes worked, 77 without dlmopen() (musl), and says why not otherwise.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int (*run)(void);
	void *h;
	int ret;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "dlmopen")) {
#ifdef LM_ID_NEWLM
		h = dlmopen(LM_ID_NEWLM, argv[2], RTLD_NOW | RTLD_LOCAL);
#else
		printf("this C library has no dlmopen()\n");
		return 77;
#endif
	} else {
		h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	}
	if (!h) {
		printf("%s: %s\n", argv[1], dlerror());
		return 1;
	}
	*(void **)&run = dlsym(h, "host_plugin_run");
	if (!run) {
		printf("dlsym: %s\n", dlerror());
		return 1;
	}
	ret = run();
	printf("host_plugin_run() returned %d\n", ret);
	return ret ? 1 : 0;
}
