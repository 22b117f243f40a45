// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A daemon that starts as root, drops to an unprivileged user and goes on
 * switching a key: SIGHUP toggles debug logging, SIGTERM stops it.  After
 * setresuid() the kernel makes the process non-dumpable and its
 * /proc/self/mem root's: the library then writes code through a brief
 * mprotect() mapping instead (and says so once on stderr if it had been
 * using /proc/self/mem; Documentation/static-keys.rst, "Privilege drop").
 *	make daemon && ./daemon &  kill -HUP $!   (as root: drops to nobody)
 *	./daemon --demo			sends itself HUP, HUP, TERM
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>

DEFINE_STATIC_KEY_FALSE(debug_log);

static __attribute__((noinline)) void serve(int request)
{
	if (static_branch_unlikely(&debug_log))
		printf("debug: request %d\n", request);
}

static int drop_privileges(uid_t uid, gid_t gid)
{
	if (getuid() != 0)
		return 0;	/* nothing to drop */
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("daemon: dropping privileges");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int demo = argc > 1 && !strcmp(argv[1], "--demo");
	int sig, request = 0;
	sigset_t set;

	/* Signals are taken in the main loop (sigwait), never in a handler:
	 * changing a key takes a lock and is not async-signal-safe. */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	if (drop_privileges(65534, 65534))	/* nobody, nogroup */
		return 1;
	printf("running as uid %d\n", (int)getuid());
	fflush(stdout);
	for (;;) {
		serve(++request);
		if (demo)
			kill(getpid(), request < 3 ? SIGHUP : SIGTERM);
		if (sigwait(&set, &sig))
			return 1;
		if (sig == SIGTERM)
			break;
		if (static_key_enabled(&debug_log))
			static_branch_disable(&debug_log);
		else
			static_branch_enable(&debug_log);
		printf("debug logging %s (written by %s)\n",
		       static_key_enabled(&debug_log) ? "on" : "off",
		       statickeys_text_poke_method());
		fflush(stdout);
	}
	return statickeys_last_error() != 0;
}
