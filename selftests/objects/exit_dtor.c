// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A library destructor that changes a program key at exit, after the
 * program's own destructors ran (the program depends on this library, so
 * the loader finalizes it later), and runs the program's site.
 */
#include <statickeys/statickeys.h>
#include "exit_dtor.h"

static struct static_key_false *the_key;
static bool turn_on;
static int (*the_site)(void);
static struct exit_dtor_report *report;

void exit_dtor_arm(struct static_key_false *key, bool on, int (*site)(void),
		   struct exit_dtor_report *r)
{
	the_key = key;
	turn_on = on;
	the_site = site;
	report = r;
}

static void __attribute__((destructor)) exit_dtor(void)
{
	if (!report)
		return;
	if (turn_on)
		static_branch_enable(the_key);
	else
		static_branch_disable(the_key);
	report->err = statickeys_last_error();
	report->enabled = static_key_enabled(the_key);
	report->site = the_site();
	report->ran = 1;
}
