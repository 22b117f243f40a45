// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * early_param_key() end to end: STATICKEYS_CMDLINE switches keys before
 * main().  NEEDS THE STATIC-KEY CORE (links against libstatickeys).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include <statickeys/cmdline.h>

#include "tap.h"
#include "probe.h"

DEFINE_STATIC_KEY_FALSE(foo_key);
DEFINE_STATIC_KEY_TRUE(bar_key);
DEFINE_STATIC_KEY_FALSE(baz_key);
DEFINE_STATIC_KEY_FALSE(dash_key);
DEFINE_STATIC_KEY_FALSE_RO(ro_key);

early_param_key("foo", &foo_key);
early_param_key("bar", &bar_key);
early_param_key("baz", &baz_key);
early_param_key("dash_key", &dash_key);
early_param_key("ro_key", &ro_key);

static const char baz_msg[] =
	"statickeys: baz=maybe: invalid value, keeping the default\n";

static const char probe_line[] =
	"foo=on bar=off baz=maybe dash-key=y ro_key=1 unused=3";

/* Keys as the branches see them, the way a kernel caller would test. */
static int foo(void)
{
	return static_branch_unlikely(&foo_key) ? 1 : 0;
}

static int bar(void)
{
	return static_branch_likely(&bar_key) ? 1 : 0;
}

static void print_state(const char *tag)
{
	printf("%s foo=%d/%d bar=%d/%d baz=%d dash=%d ro=%d\n", tag,
	       static_key_enabled(&foo_key), foo(),
	       static_key_enabled(&bar_key), bar(),
	       static_key_enabled(&baz_key), static_key_enabled(&dash_key),
	       static_key_enabled(&ro_key));
}

/*
 * The probe: started with STATICKEYS_CMDLINE set, reports what the
 * constructors did, then what a run-time command line changes.
 */
static int probe(const char *mode)
{
	print_state("boot");
	printf("unknown=%zu\n", statickeys_cmdline_unknown(NULL, NULL));
	statickeys_parse_cmdline("foo=off ro_key=0");
	print_state("late");
	return 0;
}

int main(int argc, char **argv)
{
	char out[4096], err[4096];
	int ret;

	probe_enter(argc, argv, probe);

	tap_plan(8);
	tap_ok(!static_key_enabled(&foo_key) && static_key_enabled(&bar_key) &&
	       !static_key_enabled(&ro_key),
	       "no command line: the defaults");
	ret = run_probe(argv[0], NULL, probe_line, out, sizeof(out), err,
			sizeof(err));
	tap_ok(ret == 0, "probe ran (status %d)", ret);
	tap_ok(strstr(out, "boot foo=1/1 bar=0/0 ") != NULL,
	       "foo=on enables, bar=off disables, branches agree");
	tap_ok(strstr(out, "boot foo=1/1 bar=0/0 baz=0 dash=1 ro=1\n") != NULL,
	       "baz=maybe kept the default; dash-key=y, ro_key=1 applied");
	tap_ok(!strncmp(err, baz_msg, strlen(baz_msg)) &&
	       !strstr(err + strlen(baz_msg), "baz"),
	       "one line, first on stderr, names baz=maybe");
	tap_ok(strstr(out, "late foo=0/0 ") != NULL,
	       "statickeys_parse_cmdline() switches a key at run time");
	tap_ok(strstr(out, " ro=1\n") && strstr(out, "late") &&
	       strstr(strstr(out, "late"), " ro=1\n"),
	       "a sealed read-only key refuses the run-time command line");
	tap_ok(strstr(out, "unknown=1\n") != NULL,
	       "the one unused word is listed");
	if (tap_failed)
		tap_diag("probe stdout: %s stderr: %s%s", out, err, ret == 127 ?
			 "(could not exec: under an emulator, set RUNNER)" : "");
	return tap_exit();
}
