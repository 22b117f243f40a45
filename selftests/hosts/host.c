// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin host that does not link libstatickeys (a PAM or nginx module
 * loader, a Python extension): it loads a plugin late, with dlopen() or
 * with dlmopen() into a new namespace, and runs its host_plugin_run().
 * usage: host dlopen|dlmopen|twins PLUGIN; exits 0 when the plugin's key
 * changes worked, 77 without dlmopen() (musl), and says why not otherwise.
 * "twins" loads the plugin both ways, so that two copies of the library
 * live in the process, and runs the two in turn 50 times each (100 key
 * changes a copy: more than the 64 after which a copy that stacked the
 * other's SIGTRAP handler at every change used to complain).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int run_fn(void);

static run_fn *plugin_run(void *h)
{
	run_fn *run;

	*(void **)&run = dlsym(h, "host_plugin_run");
	if (!run)
		printf("dlsym: %s\n", dlerror());
	return run;
}

/* Two copies of the library, one in a namespace of its own. */
static int twins(const char *plugin)
{
#ifdef LM_ID_NEWLM
	void *h[2] = {
		dlopen(plugin, RTLD_NOW | RTLD_LOCAL),
		dlmopen(LM_ID_NEWLM, plugin, RTLD_NOW | RTLD_LOCAL),
	};
	run_fn *run[2];
	int i, ret;

	if (!h[0] || !h[1]) {
		printf("%s: %s\n", h[0] ? "dlmopen" : "dlopen", dlerror());
		return 1;
	}
	run[0] = plugin_run(h[0]);
	run[1] = plugin_run(h[1]);
	if (!run[0] || !run[1])
		return 1;
	if (run[0] == run[1]) {
		printf("dlmopen() gave the same copy\n");
		return 1;
	}
	for (i = 0; i < 100; i++) {
		ret = run[i & 1]();
		if (ret) {
			printf("copy %d, round %d: host_plugin_run() returned %d\n",
			       i & 1, i / 2, ret);
			return 1;
		}
	}
	printf("two copies, 50 rounds each: every change worked\n");
	return 0;
#else
	(void)plugin;
	printf("this C library has no dlmopen()\n");
	return 77;
#endif
}

int main(int argc, char **argv)
{
	run_fn *run;
	void *h;
	int ret;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "twins"))
		return twins(argv[2]);
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
	run = plugin_run(h);
	if (!run)
		return 1;
	ret = run();
	printf("host_plugin_run() returned %d\n", ret);
	return ret ? 1 : 0;
}
