// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A host that knows nothing of static keys: it loads plugin.so with
 * dlopen(), which brings libstatickeys along, and switches the plugin's
 * key through the plugin's own function.
 *	make plugin-host plugin.so && ./plugin-host ./plugin.so
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "./plugin.so";
	const char *(*run)(void);
	void (*set)(int);
	const char *before, *after;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "plugin-host: %s\n", dlerror());
		return 1;
	}
	*(void **)&run = dlsym(h, "plugin_run");
	*(void **)&set = dlsym(h, "plugin_set_verbose");
	if (!run || !set) {
		fprintf(stderr, "plugin-host: %s: not a plugin\n", path);
		return 1;
	}
	before = run();
	set(1);
	after = run();
	printf("plugin %s, after plugin_set_verbose(1) %s\n", before, after);
	dlclose(h);		/* its keys unregister */
	return 0;
}
