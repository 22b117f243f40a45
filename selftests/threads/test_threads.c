// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Patching while threads run the sites: every value a thread sees is its key's
 * old or new state, and once static_key_enable()/disable() has returned every
 * thread's next run of a site takes the new path.  Once per write method.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "arch.h"
#include "tap.h"
#include "emulated.h"
#include "site.h"

#define NR_READERS	4
#define NR_TOGGLES	2000
#define NR_INCDEC	4
#define INCDEC_LOOPS	300
#define WATCHDOG_SECS	300

DEFINE_STATIC_KEY_FALSE(k_false);
DEFINE_STATIC_KEY_TRUE(k_true);
struct static_key k_old_false = STATIC_KEY_INIT_FALSE;
struct static_key k_old_true = STATIC_KEY_INIT_TRUE;
DEFINE_STATIC_KEY_FALSE(k_count);	/* inc/dec from many threads */
DEFINE_STATIC_KEY_FALSE(k_first);	/* the first change: picks the method */

SITE(s_false_unlikely, static_branch_unlikely(&k_false))
SITE(s_false_likely, static_branch_likely(&k_false))
SITE(s_true_likely, static_branch_likely(&k_true))
SITE(s_true_unlikely, static_branch_unlikely(&k_true))
SITE(s_old_false, static_key_false(&k_old_false))
SITE(s_old_true, static_key_true(&k_old_true))
SITE(s_count_unlikely, static_branch_unlikely(&k_count))
SITE(s_count_likely, static_branch_likely(&k_count))
SITE(s_first, static_branch_unlikely(&k_first))

#define NR_KEYS		4
#define INIT_STATES	0xaUL	/* k_true and k_old_true start enabled */

static struct static_key *const keys[NR_KEYS] = {
	&k_false.key, &k_true.key, &k_old_false, &k_old_true,
};

static const struct {
	int (*volatile fn)(void);
	int key;
} sites[] = {
	{ s_false_unlikely, 0 }, { s_false_likely, 0 },
	{ s_true_likely, 1 }, { s_true_unlikely, 1 },
	{ s_old_false, 2 }, { s_old_true, 3 },
};
#define NR_SITES	(int)(sizeof(sites) / sizeof(sites[0]))

static int (*volatile count_unlikely)(void) = s_count_unlikely;
static int (*volatile count_likely)(void) = s_count_likely;
static int (*volatile first_site)(void) = s_first;

/* What a child reports to the parent (shared memory). */
struct result {
	int done;
	char method[16];
	int method_ok;			/* the method is the one expected here */
	int refused_ok;			/* "none": first change refused cleanly */
	int skipped;			/* stress skipped: no write method */
	unsigned long toggle_errors;	/* a toggle failed or left a wrong state */
	unsigned long strict_checks;	/* site runs whose value was determined */
	unsigned long handshake_bad;	/* last toggled key: old path after return */
	unsigned long illegal;		/* a settled key showed the wrong path */
	unsigned long reader_runs[NR_READERS];
	unsigned long incdec_bad;	/* disabled path seen while holding a ref */
	int incdec_final_ok, incdec_drop_ok;
};

static struct result *res;

/*
 * Published after each toggle returns: generation << 8 | the key states.
 * The toggle of generation g flips key (g - 1) % NR_KEYS.
 */
static uint64_t published = INIT_STATES;
static int stop, ready;

static unsigned long key_of_gen(uint64_t g)
{
	return (g - 1) % NR_KEYS;
}

static void check_run(const int *v, uint64_t p1, uint64_t p2,
		      unsigned long *strict, unsigned long *hs,
		      unsigned long *bad)
{
	uint64_t g1 = p1 >> 8, g2 = p2 >> 8, g;
	unsigned long moving = 0;
	int i;

	/* Keys whose state may have changed while the sites ran. */
	if (g2 - g1 >= NR_KEYS)
		return;
	for (g = g1 + 1; g <= g2 + 1 && g <= NR_TOGGLES; g++)
		moving |= 1UL << key_of_gen(g);
	for (i = 0; i < NR_SITES; i++) {
		int k = sites[i].key;

		if (moving & (1UL << k))
			continue;	/* old or new: both legal */
		(*strict)++;
		if (v[i] == (int)((p1 >> k) & 1))
			continue;
		if (g1 && (unsigned long)k == key_of_gen(g1))
			(*hs)++;
		else
			(*bad)++;
	}
}

static void *reader(void *arg)
{
	long id = (long)arg;
	unsigned long strict = 0, hs = 0, bad = 0, runs = 0;
	int v[NR_SITES];

	__atomic_fetch_add(&ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint64_t p1, p2;
		int i;

		p1 = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
		for (i = 0; i < NR_SITES; i++)
			v[i] = sites[i].fn();
		p2 = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
		for (i = 0; i < NR_SITES; i++)
			if (v[i] != 0 && v[i] != 1)
				bad++;
		check_run(v, p1, p2, &strict, &hs, &bad);
		runs++;
	}
	__atomic_fetch_add(&res->strict_checks, strict, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->handshake_bad, hs, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->illegal, bad, __ATOMIC_RELAXED);
	res->reader_runs[id] = runs;
	return NULL;
}

static void toggle_stress(void)
{
	pthread_t th[NR_READERS];
	unsigned long states = INIT_STATES;
	uint64_t g;
	long i;

	for (i = 0; i < NR_READERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)i);
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < NR_READERS)
		sched_yield();
	for (g = 1; g <= NR_TOGGLES; g++) {
		unsigned long k = key_of_gen(g);
		bool want = !((states >> k) & 1);

		if (want)
			static_key_enable(keys[k]);
		else
			static_key_disable(keys[k]);
		if (statickeys_last_error() || static_key_enabled(keys[k]) != want)
			res->toggle_errors++;
		states ^= 1UL << k;
		__atomic_store_n(&published, g << 8 | states, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(th[i], NULL);
}

static void *incdec(void *arg)
{
	unsigned long bad = 0;
	int i;

	(void)arg;
	for (i = 0; i < INCDEC_LOOPS; i++) {
		if (!static_branch_inc(&k_count))
			bad++;
		/* Our reference keeps the key enabled until our dec. */
		if (!count_unlikely() || !count_likely() ||
		    !static_key_enabled(&k_count))
			bad++;
		static_branch_dec(&k_count);
	}
	if (!static_branch_inc(&k_count))	/* keep one reference each */
		bad++;
	__atomic_fetch_add(&res->incdec_bad, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void incdec_stress(void)
{
	pthread_t th[NR_INCDEC];
	int i, ok;

	for (i = 0; i < NR_INCDEC; i++)
		pthread_create(&th[i], NULL, incdec, NULL);
	for (i = 0; i < NR_INCDEC; i++)
		pthread_join(th[i], NULL);
	res->incdec_final_ok = static_key_count(&k_count.key) == NR_INCDEC &&
			       count_unlikely() && count_likely();
	for (i = 0; i < NR_INCDEC; i++)
		static_branch_dec(&k_count);
	ok = static_key_count(&k_count.key) == 0 && !count_unlikely() &&
	     !count_likely() && !statickeys_last_error();
	res->incdec_drop_ok = ok;
}

static int expected_method(const char *forced, const char *m)
{
#ifdef CONFIG_JUMP_LABEL
	if (forced && !strcmp(forced, "procmem"))
# ifdef SK_TEST_X86
		/* works natively on x86 (i386 included), never under qemu-i386 */
		return !strcmp(m, "procmem") ||
		       (sk_test_emulated() && !strcmp(m, "none"));
# else
		return !strcmp(m, "procmem") || !strcmp(m, "none");
# endif
	if (forced)
		return !strcmp(m, forced);
	return !strcmp(m, "procmem") || !strcmp(m, "mprotect");
#else
	(void)forced;
	return !strcmp(m, "unset");	/* no site was ever written */
#endif
}

static int child(void *arg)
{
	const char *forced = arg;

	alarm(WATCHDOG_SECS);
	if (forced)
		setenv("STATICKEYS_TEXT_POKE", forced, 1);
	/* The first change in this process chooses the write method. */
	static_branch_enable(&k_first);
	snprintf(res->method, sizeof(res->method), "%s",
		 statickeys_text_poke_method());
	res->method_ok = expected_method(forced, res->method);
	if (!strcmp(res->method, "none")) {
		res->refused_ok = statickeys_last_error() == EACCES &&
				  !static_key_enabled(&k_first) && !first_site();
		res->skipped = 1;
		res->done = 1;
		return 0;
	}
	if (!static_key_enabled(&k_first) || !first_site())
		res->toggle_errors++;
	toggle_stress();
	incdec_stress();
	res->done = 1;
	return 0;
}

static void run_method(const char *forced)
{
	const char *name = forced ? forced : "auto";
	int st, i, ran = 1;

	memset(res, 0, sizeof(*res));
	st = tap_fork(child, (void *)forced);
	tap_ok(st == 0 && res->done, "%s: child ran to the end (status %d)",
	       name, st);
#ifdef CONFIG_JUMP_LABEL
	tap_ok(res->method_ok, "%s: write method is \"%s\"", name, res->method);
#else
	tap_skip("CONFIG_JUMP_LABEL=n: no sites, no write method chosen",
		 "%s: write method is \"%s\"", name, res->method);
#endif
	if (res->skipped) {
		const char *why = "the write method does not work here (e.g. /proc/self/mem under qemu-aarch64)";

		tap_ok(res->refused_ok, "%s: method \"none\": change refused with EACCES, key and site unchanged",
		       name);
		tap_skip(why, "%s: handshake", name);
		tap_skip(why, "%s: only old or new values", name);
		tap_skip(why, "%s: readers ran", name);
		tap_skip(why, "%s: concurrent inc/dec", name);
		tap_skip(why, "%s: drop every reference", name);
		return;
	}
	tap_ok(res->toggle_errors == 0, "%s: %d toggles all succeeded (%lu errors)",
	       name, NR_TOGGLES, res->toggle_errors);
	tap_ok(res->done && res->handshake_bad == 0,
	       "%s: after each toggle returned, readers' next run took the new path (%lu violations)",
	       name, res->handshake_bad);
	tap_ok(res->done && res->illegal == 0,
	       "%s: settled keys only showed their state (%lu bad values)",
	       name, res->illegal);
	for (i = 0; i < NR_READERS; i++)
		if (!res->reader_runs[i])
			ran = 0;
	tap_ok(ran && res->strict_checks > 0,
	       "%s: every reader ran the sites (%lu determined values checked)",
	       name, res->strict_checks);
	tap_ok(res->incdec_final_ok && res->incdec_bad == 0,
	       "%s: %d threads x %d inc/dec: count %d, sites on while a reference is held (%lu bad)",
	       name, NR_INCDEC, INCDEC_LOOPS, NR_INCDEC, res->incdec_bad);
	tap_ok(res->incdec_drop_ok, "%s: dropping every reference disables the key and its sites",
	       name);
}

int main(void)
{
	static const char *const methods[] = { NULL, "procmem", "mprotect" };
	unsigned int i;

	tap_plan(3 * 8);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/*
	 * Every key change happens in a child: the write method is chosen on
	 * a process's first change, from STATICKEYS_TEXT_POKE.
	 */
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		run_method(methods[i]);
	return tap_exit();
}
