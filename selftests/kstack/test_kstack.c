// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * randomize_kstack_offset end to end: offsets seen inside the handler over
 * many entries (trap path where seccomp works, else direct), the register
 * frame, the read-only key, and the boot parameter in child processes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include <linux/jump_label.h>
#include <linux/randomize_kstack.h>
#include <statickeys/cmdline.h>
#include <statickeys/entry.h>
#include <statickeys/statickeys.h>

#include "tap.h"
#include "probe.h"

#define NR_ENTRIES	10000
#define NR_OFFSETS	(1U << CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS)

struct sample {
	uintptr_t regs, sp;
	uint32_t visible;	/* the thread's state, as seen inside the entry */
	unsigned int nested;
};

static struct sample samples[NR_ENTRIES];
static unsigned int nr_samples;

#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET
static void record(const struct statickeys_entry_info *info, void *arg)
{
	struct sample *s;

	(void)arg;
	if (nr_samples >= NR_ENTRIES)
		return;
	s = &samples[nr_samples++];
	s->regs = (uintptr_t)info->regs;
	s->sp = (uintptr_t)info->sp;
	s->visible = KSTACK_OFFSET_MAX(kstack_state.offset);
	s->nested = info->nested;
}

/*
 * The probe: NR_ENTRIES getppid() calls through @how ("trap" falls back to
 * direct where seccomp is missing), then one line of figures on stdout.
 */
static int probe(const char *how)
{
	static const long nrs[] = { SYS_getppid };
	unsigned int path = STATICKEYS_ENTRY_DIRECT, i, distinct = 0;
	unsigned int hist[NR_OFFSETS] = { 0 }, same = 0, mismatch = 0;
	unsigned int moved = 0, bad_ret = 0;
	long want = getppid();
	uintptr_t base = UINTPTR_MAX;
	double chi2 = 0, expect;

	if (how && !strcmp(how, "trap") && statickeys_entry_install(nrs, 1) == 0)
		path = STATICKEYS_ENTRY_SECCOMP;
	statickeys_entry_thread_init();
	statickeys_entry_set_hook(record, NULL);
	for (i = 0; i < NR_ENTRIES; i++) {
		long r = path == STATICKEYS_ENTRY_SECCOMP ? getppid() :
			 statickeys_entry_syscall(SYS_getppid, 0, 0, 0, 0, 0, 0);
		bad_ret += r != want;
	}
	statickeys_entry_set_hook(NULL, NULL);
	/* Distance from frame to handler; the smallest is offset 0. */
	for (i = 0; i < nr_samples; i++)
		if (samples[i].regs - samples[i].sp < base)
			base = samples[i].regs - samples[i].sp;
	for (i = 0; i < nr_samples; i++) {
		uintptr_t off = samples[i].regs - samples[i].sp - base;

		moved += samples[i].regs != samples[0].regs || samples[i].nested;
		mismatch += off != samples[i].visible;
		if (off / 16 < NR_OFFSETS && off % 16 == 0)
			distinct += hist[off / 16]++ == 0;
		else
			mismatch++;
		if (i && samples[i].visible == samples[i - 1].visible)
			same++;
	}
	expect = (double)nr_samples / NR_OFFSETS;
	for (i = 0; i < NR_OFFSETS; i++)
		chi2 += (hist[i] - expect) * (hist[i] - expect) / expect;
	printf("path=%s samples=%u distinct=%u chi2=%.1f same=%u mismatch=%u moved=%u bad_ret=%u\n",
	       statickeys_entry_path_name(path), nr_samples, distinct, chi2,
	       same, mismatch, moved, bad_ret);
	return 0;
}
#endif

struct figures {
	char path[16];
	unsigned int samples, distinct, same, mismatch, moved, bad_ret;
	double chi2;
};

static int parse(const char *out, struct figures *f)
{
	return sscanf(out, "path=%15s samples=%u distinct=%u chi2=%lf same=%u mismatch=%u moved=%u bad_ret=%u",
		      f->path, &f->samples, &f->distinct, &f->chi2, &f->same,
		      &f->mismatch, &f->moved, &f->bad_ret) == 8;
}

/*
 * The chi-square quantile for df = NR_OFFSETS - 1 at p = 1e-6 (z = 4.753),
 * by Wilson and Hilferty's cube approximation: 131.7 for 64 offsets.  A
 * uniform source fails it once in a million runs; a source that misses a
 * quarter of the offsets scores about 3300 here.
 */
static double chi2_limit(void)
{
	double df = NR_OFFSETS - 1, c = 2 / (9 * df);

	return df * pow(1 - c + 4.753 * sqrt(c), 3);
}

/*
 * Entry n+1 reuses entry n's offset with probability 1/NR_OFFSETS; six
 * standard deviations either side of the binomial mean.
 */
static int same_ok(const struct figures *f)
{
	double p = 1.0 / NR_OFFSETS, n = f->samples - 1;
	double mean = n * p, sd = sqrt(n * p * (1 - p));

	return f->same >= mean - 6 * sd && f->same <= mean + 6 * sd;
}

static void check_on(const char *self, const char *how, const char *cmdline,
		     const char *what)
{
	char out[1024], err[1024];
	struct figures f = { .path = "?" };
	int ret = run_probe(self, how, cmdline, out, sizeof(out), err, sizeof(err));
	int ran = ret == 0 && parse(out, &f);

	if (!tap_ok(ran && f.samples == NR_ENTRIES && !f.bad_ret,
		    "%s: probe ran %u entries, results right", what, f.samples))
		tap_diag("status %d, stdout: %s stderr: %s", ret, out, err);
	tap_diag("%s: %.*s", what, (int)strcspn(out, "\n"), out);
	tap_ok(f.distinct >= NR_OFFSETS, "%s (%s path): %u distinct offsets, want %u",
	       what, f.path, f.distinct, NR_OFFSETS);
	tap_ok(f.chi2 < chi2_limit(), "%s: chi-square %.1f < %.1f (uniform)",
	       what, f.chi2, chi2_limit());
	tap_ok(f.moved == 0, "%s: the register frame never moved", what);
	tap_ok(f.mismatch == 0,
	       "%s: each entry's offset is the state visible during it", what);
	tap_ok(same_ok(&f),
	       "%s: entry n+1 kept entry n's offset %u times (about 1/%u)",
	       what, f.same, NR_OFFSETS);
}

static void check_off(const char *self, const char *how, const char *cmdline,
		      const char *what)
{
	char out[1024], err[1024];
	struct figures f = { .path = "?" };
	int ret = run_probe(self, how, cmdline, out, sizeof(out), err, sizeof(err));
	int ran = ret == 0 && parse(out, &f);

	if (!tap_ok(ran && f.samples == NR_ENTRIES && !f.bad_ret,
		    "%s: probe ran", what))
		tap_diag("status %d, stdout: %s stderr: %s", ret, out, err);
	tap_ok(f.distinct == 1 && f.moved == 0,
	       "%s (%s path): exactly one offset (%u), frame fixed", what,
	       f.path, f.distinct);
}

static void check_maybe(const char *self)
{
	static const char msg[] = "randomize_kstack_offset=maybe";
	char out[1024], err[1024];
	struct figures f = { .path = "?" };
	const char *nl;
	int ret = run_probe(self, "trap", "randomize_kstack_offset=maybe",
			    out, sizeof(out), err, sizeof(err));
	unsigned int want = IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT) ?
			    NR_OFFSETS : 1;

	nl = strchr(err, '\n');
	tap_ok(ret == 0 && strstr(err, msg) && nl && nl[1] == '\0',
	       "=maybe: one line on stderr naming it");
	if (!strstr(err, msg))
		tap_diag("stderr: %s", err);
	ret = parse(out, &f);
	tap_ok(ret && (want == 1 ? f.distinct == 1 : f.distinct >= want),
	       "=maybe: the default stays (%u offsets)", f.distinct);
}

/* Writing the sealed key behind the library's back faults. */
static int poke_key(void *arg)
{
	(void)arg;
	*(volatile int *)&randomize_kstack_offset.key.enabled = 0;
	return 0;
}

static void check_ro(void)
{
	bool before = static_key_enabled(&randomize_kstack_offset);

	if (before)
		static_branch_disable(&randomize_kstack_offset);
	else
		static_branch_enable(&randomize_kstack_offset);
	tap_ok(statickeys_last_error() == EPERM &&
	       static_key_enabled(&randomize_kstack_offset) == before,
	       "sealed key refuses a change: EPERM, state kept (%d)", before);
	tap_ok(tap_fork(poke_key, NULL) == 128 + SIGSEGV,
	       "the sealed key's page is read-only");
}

int main(int argc, char **argv)
{
#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET
	probe_enter(argc, argv, probe);
	tap_plan(26);
	check_on(argv[0], "trap", "randomize_kstack_offset=on", "on");
	check_on(argv[0], "direct", "randomize_kstack_offset=on", "on, direct");
	check_off(argv[0], "trap", "randomize_kstack_offset=off", "off");
	check_off(argv[0], "direct", "randomize_kstack_offset=off", "off, direct");
	if (IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT))
		check_on(argv[0], "trap", NULL, "default");
	else
		for (int i = 0; i < 6; i++)
			tap_skip("the default is off", "default: check %d", i);
	check_maybe(argv[0]);
	check_ro();
#else
	(void)argc;
	(void)argv;
	tap_plan(1);
	tap_skip("CONFIG_RANDOMIZE_KSTACK_OFFSET=n", "randomize_kstack_offset");
#endif
	return tap_exit();
}
