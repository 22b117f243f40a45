// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * make stress: everything at once, longer and wider than make check.  More
 * threads than cores toggle keys, run their sites, move counts on the fast
 * and slow paths, use deferred keys, load and unload a plugin and fork,
 * for STRESS_SECS seconds.  Prints what it checked and what went wrong;
 * exits non-zero if anything did.  A hang is caught by alarm().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "site.h"

#define NR_KEYS		4
#define NR_READERS	4

DEFINE_STATIC_KEY_FALSE(k0);
DEFINE_STATIC_KEY_FALSE(k1);
DEFINE_STATIC_KEY_TRUE(k2);
DEFINE_STATIC_KEY_TRUE(k3);
DEFINE_STATIC_KEY_FALSE(k_count);
DEFINE_STATIC_KEY_DEFERRED_FALSE(k_deferred, 1);
DEFINE_STATIC_KEY_FALSE(k_child);

SITE(s0, static_branch_unlikely(&k0))
SITE(s1, static_branch_likely(&k1))
SITE(s2, static_branch_likely(&k2))
SITE(s3, static_branch_unlikely(&k3))
SITE(s_count, static_branch_unlikely(&k_count))
SITE(s_child, static_branch_unlikely(&k_child))

static struct static_key *const keys[NR_KEYS] = {
	&k0.key, &k1.key, &k2.key, &k3.key,
};
static int (*volatile sites[NR_KEYS])(void) = { s0, s1, s2, s3 };
static int (*volatile count_site)(void) = s_count;
static int (*volatile child_site)(void) = s_child;

/* Per key: a sequence, odd while its toggler changes it, and its state. */
static struct { unsigned long seq; int state; } settled[NR_KEYS];

static volatile int stop;
static unsigned long runs, checked, wrong, wrong_self, toggles, toggle_errors;
static unsigned long incdec, forks, hangs, fork_failures, loads;
static const char *plugin;

static void add(unsigned long *c, unsigned long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void *toggler(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!stop) {
		int k = rand_r(&seed) % NR_KEYS;
		int on = !settled[k].state;

		/* Two togglers: only even keys for one, odd for the other. */
		if (k % 2 != (int)((uintptr_t)arg % 2))
			continue;
		__atomic_fetch_add(&settled[k].seq, 1, __ATOMIC_ACQ_REL);
		if (on)
			static_key_enable(keys[k]);
		else
			static_key_disable(keys[k]);
		if (statickeys_last_error() || static_key_enabled(keys[k]) != on)
			add(&toggle_errors, 1);
		/* After the call returns, this thread sees the new path. */
		if (sites[k]() != on)
			add(&wrong_self, 1);
		settled[k].state = on;
		__atomic_fetch_add(&settled[k].seq, 1, __ATOMIC_ACQ_REL);
		add(&toggles, 1);
	}
	return NULL;
}

static void *reader(void *arg)
{
	unsigned long n = 0, c = 0, bad = 0;

	(void)arg;
	while (!stop) {
		int k;

		for (k = 0; k < NR_KEYS; k++) {
			unsigned long s1, s2;
			int st, v;

			s1 = __atomic_load_n(&settled[k].seq, __ATOMIC_ACQUIRE);
			st = settled[k].state;
			v = sites[k]();
			s2 = __atomic_load_n(&settled[k].seq, __ATOMIC_ACQUIRE);
			n++;
			if (s1 == s2 && !(s1 & 1)) {	/* settled throughout */
				c++;
				bad += v != st;
			}
		}
	}
	add(&runs, n);
	add(&checked, c);
	add(&wrong, bad);
	return NULL;
}

static void *counter(void *arg)
{
	bool fast = arg != NULL;
	unsigned long n = 0;

	while (!stop) {
		if (fast) {
			if (static_key_fast_inc_not_disabled(&k_count.key)) {
				if (!count_site())	/* a reference is held */
					add(&wrong, 1);
				static_key_slow_dec(&k_count.key);
			}
		} else {
			static_branch_inc(&k_count);
			if (!count_site())
				add(&wrong, 1);
			static_branch_dec(&k_count);
		}
		n++;
	}
	add(&incdec, n);
	return NULL;
}

static void *deferred(void *arg)
{
	(void)arg;
	while (!stop) {
		static_branch_inc(&k_deferred.key);
		static_branch_slow_dec_deferred(&k_deferred);
	}
	return NULL;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!stop) {
		void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
		void (*use)(void);

		if (!h) {
			add(&toggle_errors, 1);
			break;
		}
		use = (void (*)(void))dlsym(h, "plugin_use_and_drop");
		if (use)
			use();		/* leaves a delayed decrement pending */
		dlclose(h);
		add(&loads, 1);
	}
	return NULL;
}

static void *forker(void *arg)
{
	(void)arg;
	while (!stop) {
		int st;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(10);
			static_branch_enable(&k_child);
			_exit(statickeys_last_error() || child_site() != 1);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			add(&fork_failures, 1);
		else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			add(&hangs, 1);
		else if (!WIFEXITED(st) || WEXITSTATUS(st))
			add(&fork_failures, 1);
		add(&forks, 1);
		usleep(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? (unsigned int)atoi(argv[1]) : 20;
	/*
	 * Under qemu-user the guest's threads are host threads running
	 * translated code, and the emulator does not order a code change in
	 * one thread with the next run in another (multi-threaded TCG; see
	 * Documentation/whole-system.rst): what other threads see is printed
	 * but not judged there, and neither is fork() with threads, which
	 * qemu-user 7.2 can abort in.  Concurrency is judged natively.
	 */
	bool emulated = getenv("STRESS_EMULATED") != NULL;
	pthread_t t[32];
	int n = 0, i, lost_count, lost_deferred;

	plugin = argc > 2 ? argv[2] : NULL;
	alarm(secs + 120);	/* a hang kills the run: reported by make */
	static_branch_inc(&k_count);	/* our own reference, kept throughout */
	/* k2 and k3 start enabled: readers judge against the real start. */
	for (i = 0; i < NR_KEYS; i++)
		settled[i].state = static_key_enabled(keys[i]);
	for (i = 0; i < 2; i++)
		pthread_create(&t[n++], NULL, toggler, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&t[n++], NULL, reader, NULL);
	for (i = 0; i < 4; i++)
		pthread_create(&t[n++], NULL, counter, (void *)(uintptr_t)(i % 2));
	for (i = 0; i < 2; i++)
		pthread_create(&t[n++], NULL, deferred, NULL);
	if (plugin)
		pthread_create(&t[n++], NULL, loader, NULL);
	pthread_create(&t[n++], NULL, forker, NULL);
	sleep(secs);
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);

	lost_count = static_key_count(&k_count.key) - 1;
	static_key_deferred_flush(&k_deferred);
	for (i = 0; i < 2000 && static_key_count(&k_deferred.key.key); i++)
		usleep(1000);
	lost_deferred = static_key_count(&k_deferred.key.key);

	printf("stress: method %s, %u s, %d threads on %ld cores\n",
	       statickeys_text_poke_method(), secs, n,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("stress: site runs %lu, checked %lu, wrong %lu (other threads), %lu (the toggling thread)%s\n",
	       runs, checked, wrong, wrong_self,
	       emulated ? "; other threads not judged under qemu-user" : "");
	printf("stress: toggles %lu (errors %lu), inc/dec %lu, lost counts %d, deferred left %d\n",
	       toggles, toggle_errors, incdec, lost_count, lost_deferred);
	printf("stress: plugin loads %lu, forks %lu (failed %lu), hangs %lu\n",
	       loads, forks, fork_failures, hangs);
	tap_plan(5);
	tap_ok((wrong == 0 || emulated) && wrong_self == 0 && checked > 0,
	       "wrong observations: %lu of %lu checked%s, %lu by the toggling thread",
	       wrong, checked, emulated ? " (not judged under qemu-user)" : "",
	       wrong_self);
	tap_ok(toggle_errors == 0 && toggles > 0, "toggle errors: %lu of %lu",
	       toggle_errors, toggles);
	tap_ok(lost_count == 0 && lost_deferred == 0,
	       "lost counts: %d, deferred count left: %d", lost_count,
	       lost_deferred);
	tap_ok(hangs == 0 && (fork_failures == 0 || emulated) && forks > 0,
	       "forked children: %lu, hung %lu, failed %lu%s", forks, hangs,
	       fork_failures, emulated ? " (failures not judged under qemu-user)" : "");
	tap_ok(!plugin || loads > 0, "plugin loads: %lu", loads);
	return tap_exit();
}
