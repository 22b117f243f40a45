// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The fork() and exit handlers of every layer (lib/lifecycle.c) in a
 * program linked with libstatickeys.a and --gc-sections: each level has its
 * entry in the "sk_lifecycle" section (the arch level on x86 only, whose
 * breakpoint patcher has per-process state; no other architecture
 * registers one), none was left behind by the static link or collected by
 * the linker, and a child forked while another thread changes
 * keys can change keys itself.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "../../lib/lifecycle.h"

extern const struct sk_lifecycle __start_sk_lifecycle[];
extern const struct sk_lifecycle __stop_sk_lifecycle[];

static const char *const level_names[SK_LC_NR] = {
	"control", "writer", "arch", "deferred", "params", "core", "apply",
	"objects", "introspect",
};

DEFINE_STATIC_KEY_FALSE(k_busy);
DEFINE_STATIC_KEY_FALSE(k_child);

static volatile bool stop;

/* Entries expected at @level in this configuration. */
static int want(int level)
{
#if defined(CONFIG_X86_64) || defined(CONFIG_X86_32)
	return 1;
#else
	return level == SK_LC_ARCH ? 0 : 1;
#endif
}

static void *toggler(void *arg)
{
	(void)arg;
	while (!stop) {
		static_branch_enable(&k_busy);
		static_branch_disable(&k_busy);
	}
	return NULL;
}

static int child_changes_key(void)
{
	static_branch_enable(&k_child);
	if (!static_branch_unlikely(&k_child))
		return 1;
	static_branch_disable(&k_child);
	return static_branch_unlikely(&k_child) ? 2 : 0;
}

int main(void)
{
	const struct sk_lifecycle *e;
	int seen[SK_LC_NR] = { 0 };
	int i, status, fails = 0;
	pthread_t t;
	pid_t pid;

	tap_plan(SK_LC_NR + 2);
	for (e = __start_sk_lifecycle; e < __stop_sk_lifecycle; e++)
		if ((unsigned int)e->level < SK_LC_NR)
			seen[e->level]++;
	for (i = 0; i < SK_LC_NR; i++)
		tap_ok(seen[i] == want(i), "%s entry at level %s (found %d)",
		       want(i) ? "one" : "no", level_names[i], seen[i]);

	pthread_create(&t, NULL, toggler, NULL);
	for (i = 0; i < 50; i++) {
		pid = fork();
		if (pid == 0)
			_exit(child_changes_key());
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			fails++;
	}
	stop = true;
	pthread_join(t, NULL);
	tap_ok(fails == 0, "50 children forked while a thread changes a key change keys (%d failed)",
	       fails);
	tap_ok(!static_branch_unlikely(&k_busy) && child_changes_key() == 0,
	       "the parent changes keys after the forks");
	return tap_exit();
}
