// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin with a SIGTRAP handler of its own, as debugging and crash
 * reporting plugins have: installed when the plugin is loaded, chaining to
 * the handler it replaced, and that handler put back when it is unloaded.
 */
#include <signal.h>
#include <string.h>
#include "hard.h"

int trap_plugin_calls(void);

static struct sigaction prev;
static volatile int calls;

static void plugin_trap(int sig, siginfo_t *info, void *uc)
{
	calls++;
	hard_chain(&prev, sig, info, uc);
}

int trap_plugin_calls(void)
{
	return calls;
}

static void __attribute__((constructor)) trap_plugin_load(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = plugin_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &prev);
}

static void __attribute__((destructor)) trap_plugin_unload(void)
{
	sigaction(SIGTRAP, &prev, NULL);
}
