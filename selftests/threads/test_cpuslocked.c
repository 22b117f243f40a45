// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The _cpuslocked forms with the kernel's locking: the caller holds
 * cpus_read_lock(), the function takes jump_label_lock() itself.  Kernel
 * code ported as it is, run while another thread toggles the same key and
 * others run its sites, must neither crash nor warn; the misuses are
 * refused or said, never patched unlocked.  Each case runs in a child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <statickeys/statickeys.h>
#include "tap.h"
#include "site.h"
#include "../ro/capture.h"

#define NR_READERS	3
#define PORT_LOOPS	1000
#define WATCHDOG_SECS	300

DEFINE_STATIC_KEY_FALSE(k_flag);	/* enabled and disabled */
DEFINE_STATIC_KEY_FALSE(k_users);	/* counted */

SITE(s_flag, static_branch_unlikely(&k_flag))
SITE(s_users, static_branch_unlikely(&k_users))
static int (*volatile flag_site)(void) = s_flag;
static int (*volatile users_site)(void) = s_users;

/* What a child reports (shared memory). */
struct result {
	int done;
	unsigned long loops, errors, held_but_off, reader_runs;
	int users_count, users_code, flag_ok;
	int value_ok[8];
};

static struct result *res;
static int stop, ready;

static void add(unsigned long *c, unsigned long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	__atomic_fetch_add(&ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		(void)flag_site();	/* either value; a trap would kill us */
		(void)users_site();
		n++;
	}
	add(&res->reader_runs, n);
	return NULL;
}

static void *toggler(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		static_branch_enable(&k_flag);
		static_branch_disable(&k_flag);
		static_branch_inc(&k_users);
		static_branch_dec(&k_users);
	}
	return NULL;
}

/*
 * Kernel code as it is written: the _cpuslocked calls inside a
 * cpus_read_lock() section, with no jump_label_lock() of its own.
 */
static void ported(void)
{
	cpus_read_lock();
	lockdep_assert_cpus_held();
	static_branch_enable_cpuslocked(&k_flag);
	static_branch_inc_cpuslocked(&k_users);
	cpus_read_unlock();
	if (statickeys_last_error())
		add(&res->errors, 1);
	/* Our reference keeps k_users on whatever the toggler does. */
	if (!users_site() || !static_key_enabled(&k_users))
		add(&res->held_but_off, 1);
	cpus_read_lock();
	static_key_slow_dec_cpuslocked(&k_users.key);
	static_key_disable_cpuslocked(&k_flag.key);
	cpus_read_unlock();
	if (statickeys_last_error())
		add(&res->errors, 1);
}

static int port_as_is(void *arg)
{
	pthread_t r[NR_READERS], t;
	int i;

	(void)arg;
	alarm(WATCHDOG_SECS);
	for (i = 0; i < NR_READERS; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	pthread_create(&t, NULL, toggler, NULL);
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < NR_READERS + 1)
		sched_yield();
	for (i = 0; i < PORT_LOOPS; i++)
		ported();
	res->loops = i;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	for (i = 0; i < NR_READERS; i++)
		pthread_join(r[i], NULL);
	res->users_count = static_key_count(&k_users.key);
	res->users_code = users_site();
	res->flag_ok = static_key_count(&k_flag.key) == !!flag_site();
	res->done = 1;
	return 0;
}

/*
 * The misuses, one process: each is refused or said once, and nothing is
 * ever written without jump_label_lock().
 */
static int misuse(void *arg)
{
	(void)arg;
	alarm(WATCHDOG_SECS);

	/* A _cpuslocked call without cpus_read_lock(): said, and done. */
	static_branch_enable_cpuslocked(&k_flag);
	res->value_ok[0] = !statickeys_last_error() && flag_site() &&
			   static_key_count(&k_flag.key) == 1;
	static_branch_disable_cpuslocked(&k_flag);
	res->value_ok[1] = !statickeys_last_error() && !flag_site();

	/*
	 * Inside the caller's own jump_label_lock(): in the kernel a
	 * deadlock; here refused, nothing changed.
	 */
	jump_label_lock();
	cpus_read_lock();
	static_branch_enable_cpuslocked(&k_flag);
	res->value_ok[2] = statickeys_last_error() == EDEADLK;
	cpus_read_unlock();
	static_branch_inc(&k_users);
	res->value_ok[3] = statickeys_last_error() == EDEADLK;
	jump_label_unlock();
	res->value_ok[4] = !flag_site() && !users_site() &&
			   static_key_count(&k_flag.key) == 0 &&
			   static_key_count(&k_users.key) == 0;

	/* lockdep_assert_cpus_held() outside, then an unbalanced unlock. */
	lockdep_assert_cpus_held();
	cpus_read_unlock();
	res->value_ok[5] = cpus_read_trylock() == 1;
	lockdep_assert_cpus_held();	/* held now: silent */
	cpus_read_unlock();
	res->done = 1;
	return 0;
}

/* Run @fn in a child; what it said on stderr is in captured[]. */
static int run(int (*fn)(void *))
{
	char copy[sizeof(captured)], *line;
	int st;

	memset(res, 0, sizeof(*res));
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	capture_begin();
	st = tap_fork(fn, NULL);
	capture_end();
	memcpy(copy, captured, sizeof(copy));
	for (line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
		tap_diag("stderr: %s", line);
	return st;
}

static int count_lines(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

int main(void)
{
	const char *err = captured;
	int st;

	tap_plan(10);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	st = run(port_as_is);
	tap_ok(st == 0 && res->done,
	       "kernel code as it is, against a toggling thread and %d readers: ran %lu loops to the end (status %d%s)",
	       NR_READERS, res->loops, st, st == 128 + SIGTRAP ? ": SIGTRAP" : "");
	tap_ok(res->done && res->errors == 0 && res->held_but_off == 0,
	       "every change made (%lu refused), a held reference always found its code on (%lu times not)",
	       res->errors, res->held_but_off);
	tap_ok(res->done && res->users_count == 0 && res->users_code == 0 &&
	       res->flag_ok && res->reader_runs > 0,
	       "afterwards counts and code agree (k_users count %d, code %d)",
	       res->users_count, res->users_code);
	tap_ok(err[0] == '\0', "and nothing was said on stderr");

	st = run(misuse);
	tap_ok(st == 0 && res->done, "misuses: the child ran to the end (status %d)",
	       st);
	tap_ok(res->value_ok[0] && res->value_ok[1] &&
	       count_lines(err, "without cpus_read_lock() held (") == 1,
	       "a _cpuslocked call without cpus_read_lock(): done under the lock, said once for the key");
	tap_ok(res->value_ok[2] && res->value_ok[3] && res->value_ok[4] &&
	       count_lines(err, "jump_label_lock() held") == 2,
	       "a key change inside the caller's own jump_label_lock(): refused with EDEADLK, nothing changed, said");
	tap_ok(count_lines(err, "lockdep_assert_cpus_held()") == 1,
	       "lockdep_assert_cpus_held() without the lock: said once, silent with it");
	tap_ok(count_lines(err, "cpus_read_unlock() without") == 1,
	       "an unbalanced cpus_read_unlock(): said");
	tap_ok(res->value_ok[5], "cpus_read_trylock() always succeeds (no writer in a process)");
	return tap_exit();
}
