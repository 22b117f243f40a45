// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Reference counts under every way they change at once: slow inc/dec, the
 * _cpuslocked forms, static_key_fast_inc_not_disabled(), deferred
 * decrements with and without a rate limit, and enable/disable of a
 * boolean key, on more threads than cores.  Afterwards each key's count,
 * static_key_enabled() and the code (its sites, executed) must agree, and
 * the library must have printed nothing.
 *
 * usage: test_counts [TIMES]  (TIMES the default work; make stress: 20)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "site.h"
#include "../ro/capture.h"

#define SITE_ROUNDS	4000	/* changes per thread of the second phase */
#define BARE_CHANGES	1200000	/* changes of k_bare in the first phase */
#define MAX_THREADS	64
#define MAX_HELD	2	/* references a thread holds on a key at most */
#define WATCHDOG_SECS	600

DEFINE_STATIC_KEY_FALSE(k_plain);
DEFINE_STATIC_KEY_DEFERRED_FALSE(k_def_now, 0);	/* no rate limit */
DEFINE_STATIC_KEY_DEFERRED_TRUE(k_def_rl, 1);	/* 1 ms */
/*
 * No site: nothing to patch, so its count crosses 1 and 0 a hundred times
 * faster than the others' and the races of the count logic itself (a fast
 * increment against the decrement that meets 1) are met often.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(k_bare, 0);
DEFINE_STATIC_KEY_FALSE(k_bool);

SITE(s_plain_u, static_branch_unlikely(&k_plain))
SITE(s_plain_l, static_branch_likely(&k_plain))
SITE(s_now_u, static_branch_unlikely(&k_def_now.key))
SITE(s_now_l, static_branch_likely(&k_def_now.key))
SITE(s_rl_l, static_branch_likely(&k_def_rl.key))
SITE(s_rl_u, static_branch_unlikely(&k_def_rl.key))
SITE(s_bool_u, static_branch_unlikely(&k_bool))

/* The counted keys: how their references may be dropped, their sites. */
static const struct counted {
	struct static_key *key;
	struct delayed_work *work;	/* NULL: not a deferred key */
	unsigned long timeout;
	int (*volatile site[2])(void);	/* NULL: no site */
	const char *name;
} counted[] = {
	{ &k_plain.key, NULL, 0, { s_plain_u, s_plain_l }, "k_plain" },
	{ &k_def_now.key.key, &k_def_now.work, 0, { s_now_u, s_now_l },
	  "k_def_now (deferred, no rate limit)" },
	{ &k_def_rl.key.key, &k_def_rl.work, 1, { s_rl_l, s_rl_u },
	  "k_def_rl (deferred, 1 ms; defined true)" },
	{ &k_bare.key.key, &k_bare.work, 0, { NULL, NULL },
	  "k_bare (deferred, no site)" },
};
#define NR_COUNTED	(int)(sizeof(counted) / sizeof(counted[0]))
#define BARE		(NR_COUNTED - 1)
static int (*volatile bool_site)(void) = s_bool_u;

/* What the child reports to the parent (shared memory). */
struct result {
	int done;
	int threads;
	long cores;
	unsigned long changes, updates;
	unsigned long held_but_off;	/* a reference held, key or code off */
	unsigned long inc_failed;	/* a slow increment said false */
	unsigned long errors;		/* statickeys_last_error() after a change */
	int final_count[NR_COUNTED + 1];
	int final_enabled[NR_COUNTED + 1];
	int final_code[NR_COUNTED + 1];	/* -1: two sites disagree */
	int bool_cycle_ok;
};

static struct result *res;
static unsigned long times = 1;
static int phase1_cpu[2] = { -1, -1 };	/* where the first phase's two run */
static pthread_barrier_t start;
static int bounded_running;	/* the fast threads run until it is 0 */

static void add(unsigned long *c, unsigned long n)
{
	if (n)
		__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Both sites of a key, executed: 1 on, 0 off, -1 if they differ. */
static int code_of(const struct counted *c)
{
	int a, b;

	if (!c->site[0])
		return static_key_enabled(c->key);
	a = c->site[0]();
	b = c->site[1]();
	return a == b ? a : -1;
}

static bool take(const struct counted *c, unsigned int how)
{
	bool ok;

	switch (how) {
	case 0:
		ok = static_key_slow_inc(c->key);
		break;
	case 1:
		cpus_read_lock();
		ok = static_key_slow_inc_cpuslocked(c->key);
		cpus_read_unlock();
		break;
	default:
		/* Refused while the key is off or being switched on. */
		return static_key_fast_inc_not_disabled(c->key);
	}
	if (!ok)
		add(&res->inc_failed, 1);
	return ok;
}

static void drop(const struct counted *c, unsigned int how)
{
	switch (c->work ? how % 3 : how % 2) {
	case 0:
		static_key_slow_dec(c->key);
		break;
	case 1:
		cpus_read_lock();
		static_key_slow_dec_cpuslocked(c->key);
		cpus_read_unlock();
		break;
	default:
		/* Lock-free unless it is the last reference. */
		__static_key_slow_dec_deferred(c->key, c->work, c->timeout);
		return;
	}
	if (statickeys_last_error())
		add(&res->errors, 1);
}

static void toggle_bool(unsigned int how)
{
	switch (how) {
	case 0:
		static_branch_enable(&k_bool);
		break;
	case 1:
		static_branch_disable(&k_bool);
		break;
	case 2:
		cpus_read_lock();
		static_branch_enable_cpuslocked(&k_bool);
		cpus_read_unlock();
		break;
	default:
		cpus_read_lock();
		static_branch_disable_cpuslocked(&k_bool);
		cpus_read_unlock();
		break;
	}
	if (statickeys_last_error())
		add(&res->errors, 1);
	(void)bool_site();	/* either value: others toggle it too */
}

/*
 * What each thread does, in two phases.  Fast threads spin on fast
 * increments and drop their references lock-free where they can, as long
 * as the others run.  First the count logic alone, on k_bare: one thread
 * takes and drops a reference in turn, BARE_CHANGES * @times times, by
 * every slow means, while one fast thread keeps moving the count between
 * 1 and 2.  The window in which a decrement meets a count of 1 and a fast
 * increment lands is a few instructions wide: nothing else competes for
 * the cores then.  Then everything, on every thread: three in four make
 * SITE_ROUNDS * @times changes of every kind to the keys with sites and
 * toggle k_bool, the fourth makes fast increments of every counted key.
 */
enum role { ROLE_FAST_BARE, ROLE_BARE, ROLE_FAST, ROLE_SITES, ROLE_NONE };

static int phase;

static enum role role_of(unsigned int id)
{
	if (phase == 1)
		return id < 2 ? (id ? ROLE_FAST_BARE : ROLE_BARE) : ROLE_NONE;
	return id % 4 == 3 ? ROLE_FAST : ROLE_SITES;
}

static bool bounded(enum role role)
{
	return role == ROLE_BARE || role == ROLE_SITES;
}

struct thread {
	unsigned int id, seed;
	enum role role;
	int held[NR_COUNTED];
	unsigned long changes, off;
};

/*
 * One change of key @k: take a reference, or drop one.  Mostly 0 or 1 are
 * held, so that the counts keep crossing 1 and 0; the k_bare thread of
 * the first phase takes and drops in turn.  Then every reference this
 * thread holds must find its key enabled and its code on.
 */
static void step(struct thread *t, int k)
{
	const struct counted *c = &counted[k];
	unsigned int r = rand_r(&t->seed);
	unsigned int how = r % 4;
	bool fast = t->role == ROLE_FAST || t->role == ROLE_FAST_BARE;
	bool more = t->role != ROLE_BARE && t->held[k] < MAX_HELD &&
		    (r >> 4) % 4 == 0;
	int *h = &t->held[k], i;

	if (*h == 0 || more) {
		/*
		 * The others take a first reference by slow means, a further
		 * one by any (a fast increment by a holder: the kernel's use).
		 */
		if (!take(c, fast ? 2 : *h ? how : how % 2))
			return;
		(*h)++;
	} else {
		drop(c, t->role == ROLE_FAST_BARE || (fast && how) ? 2 : how);
		(*h)--;
	}
	t->changes++;
	for (i = 0; i < NR_COUNTED; i++)
		if (t->held[i] && (code_of(&counted[i]) != 1 ||
				   !static_key_enabled(counted[i].key)))
			t->off++;
}

static void round_of(struct thread *t)
{
	unsigned int r = rand_r(&t->seed);

	switch (t->role) {
	case ROLE_FAST_BARE:
	case ROLE_BARE:
		step(t, BARE);
		break;
	case ROLE_FAST:
		step(t, (int)(r % NR_COUNTED));
		break;
	case ROLE_SITES:
		/* Its own key, whose count then often comes back to 0. */
		if (r % 8 == 0)
			toggle_bool(r >> 3);
		else
			step(t, (int)(t->id % BARE));
		break;
	case ROLE_NONE:
		break;
	}
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	struct thread t = { .id = id, .seed = (id + 1) * 2654435761u,
			    .role = role_of(id) };
	unsigned long n, max = times * (t.role == ROLE_BARE ? BARE_CHANGES
							     : SITE_ROUNDS);
	int i;

	/*
	 * The race of the first phase needs its two threads on two CPUs at
	 * once: the scheduler of a busy machine would often give them one.
	 */
	if (phase == 1 && id < 2 && phase1_cpu[id] >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(phase1_cpu[id], &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&start);	/* all at once, not one after another */
	for (n = 0; bounded(t.role) ? n < max
			: __atomic_load_n(&bounded_running, __ATOMIC_RELAXED); n++)
		round_of(&t);
	for (i = 0; i < NR_COUNTED; i++)
		for (; t.held[i]; t.held[i]--)
			drop(&counted[i], 0);
	if (bounded(t.role))
		__atomic_fetch_sub(&bounded_running, 1, __ATOMIC_RELAXED);
	add(&res->changes, t.changes);
	add(&res->held_but_off, t.off);
	return NULL;
}

static void record(int i, struct static_key *key, int code)
{
	res->final_count[i] = static_key_count(key);
	res->final_enabled[i] = static_key_enabled(key);
	res->final_code[i] = code;
}

/* Two CPUs this process may run on, if it has two. */
static void pick_cpus(void)
{
	cpu_set_t set;
	int cpu, k = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && k < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			phase1_cpu[k++] = cpu;
	if (k < 2)
		phase1_cpu[0] = -1;
}

static int child(void *arg)
{
	pthread_t t[MAX_THREADS];
	struct statickeys_stats stats;
	int i, n;

	(void)arg;
	alarm(WATCHDOG_SECS);
	/* Every key starts at 0: the definition's reference of k_def_rl goes. */
	static_key_slow_dec(&k_def_rl.key.key);
	res->cores = sysconf(_SC_NPROCESSORS_ONLN);
	n = res->cores > 0 ? 2 * (int)res->cores + 2 : 6;
	if (n < 6)
		n = 6;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	res->threads = n;
	pick_cpus();
	for (phase = 1; phase <= 2; phase++) {
		int m = 0;

		for (i = 0; i < n; i++) {
			m += role_of(i) != ROLE_NONE;
			bounded_running += bounded(role_of(i));
		}
		pthread_barrier_init(&start, NULL, m);
		for (i = 0; i < m; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i))
				return 1;
		while (i--)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
	}
	/* Owed decrements are made now, not dropped. */
	for (i = 0; i < NR_COUNTED; i++)
		if (counted[i].work)
			__static_key_deferred_flush(counted[i].key, counted[i].work);
	statickeys_get_stats(&stats);
	res->updates = stats.updates;
	for (i = 0; i < NR_COUNTED; i++)
		record(i, counted[i].key, code_of(&counted[i]));
	record(NR_COUNTED, &k_bool.key, bool_site());
	static_branch_enable(&k_bool);
	res->bool_cycle_ok = static_key_count(&k_bool.key) == 1 && bool_site();
	static_branch_disable(&k_bool);
	res->bool_cycle_ok &= static_key_count(&k_bool.key) == 0 && !bool_site();
	res->done = 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *err;
	char *line;
	size_t len;
	int st, i, b = NR_COUNTED;

	if (argc > 1)
		times = strtoul(argv[1], NULL, 0);
	tap_plan(4 + NR_COUNTED + 1);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("test_counts: mmap");
		return 1;
	}
	/* Whatever the library says in the child is captured. */
	capture_begin();
	st = tap_fork(child, NULL);
	err = capture_end();
	len = strlen(err);

	tap_diag("%d threads on %ld cores, %lu count changes, %lu code updates",
		 res->threads, res->cores, res->changes, res->updates);
	tap_ok(st == 0 && res->done && res->threads > res->cores,
	       "the child ran %d threads to the end (status %d)", res->threads,
	       st);
	tap_ok(res->held_but_off == 0 && res->inc_failed == 0,
	       "a held reference always found its key and code on (%lu times not; %lu increments refused)",
	       res->held_but_off, res->inc_failed);
	tap_ok(res->errors == 0, "no change was refused (%lu refusals)",
	       res->errors);
	for (i = 0; i < NR_COUNTED; i++)
		tap_ok(res->final_count[i] == 0 && res->final_enabled[i] == 0 &&
		       res->final_code[i] == 0,
		       "%s: every reference dropped: count %d, enabled %d, code %d",
		       counted[i].name, res->final_count[i],
		       res->final_enabled[i], res->final_code[i]);
	tap_ok((res->final_count[b] == 0 || res->final_count[b] == 1) &&
	       res->final_enabled[b] == res->final_count[b] &&
	       res->final_code[b] == res->final_count[b] && res->bool_cycle_ok,
	       "k_bool: count %d, enabled %d, code %d; enable and disable after",
	       res->final_count[b], res->final_enabled[b], res->final_code[b]);
	for (line = strtok(captured, "\n"); line; line = strtok(NULL, "\n"))
		tap_diag("stderr: %s", line);
	tap_ok(len == 0, "the library printed nothing (%zu bytes on stderr)",
	       len);
	return tap_exit();
}
