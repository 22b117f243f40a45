// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A program linked with the core library only: its key list (the
 * introspection API) holds its own key and nothing of the kstack consumer,
 * which lives in libstatickeys-kstack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/introspect.h>
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(core_only_key);

static __attribute__((noinline)) int core_only_site(void)
{
	return static_branch_unlikely(&core_only_key) ? 1 : 0;
}

struct seen {
	int own;
	int kstack;
	int total;
};

static int look(const struct statickeys_key_info *info, void *arg)
{
	struct seen *s = arg;
	const char *name = info->name ? info->name : "(no name)";

	s->total++;
	printf("# key %s in %s\n", name, info->object ? info->object : "?");
	if (!strcmp(name, "core_only_key"))
		s->own++;
	if (strstr(name, "kstack"))
		s->kstack++;
	return 0;
}

int main(void)
{
	struct seen s = { 0 };
	int ret;

	tap_plan(4);
	ret = statickeys_for_each_key(look, &s);
	if (IS_ENABLED(CONFIG_JUMP_LABEL))
		tap_ok(ret == 0 && s.own == 1 && !core_only_site(),
		       "the walk lists this program's own key (ret %d, %d keys)",
		       ret, s.total);
	else	/* keys are found through their sites: there are none */
		tap_ok(ret == 0 && s.own == 0 && !core_only_site(),
		       "CONFIG_JUMP_LABEL=n: the walk succeeds and lists no site's key (ret %d, %d keys)",
		       ret, s.total);
	tap_ok(s.kstack == 0, "no kstack key in the list (%d seen)", s.kstack);
	tap_ok(!dlsym(RTLD_DEFAULT, "statickeys_randomize_kstack_offset"),
	       "statickeys_randomize_kstack_offset is not defined in the process");
	tap_ok(!dlsym(RTLD_DEFAULT, "statickeys_entry_install"),
	       "statickeys_entry_install (the entry path) is not in the process");
	return tap_exit();
}
