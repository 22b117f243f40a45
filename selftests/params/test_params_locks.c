// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Boot parameters against the dynamic loader's lock and fork(): handlers
 * that dlopen() and dlclose(), objects that register while a command line
 * is being applied, children forked while a command line is being applied,
 * and fork() in a jump_label_lock() section while another thread forks.
 * Every case runs in a child process under alarm(): a deadlock is a failed
 * check (killed by SIGALRM), never a stuck suite.  "test_params_locks N"
 * runs the dlopen()/dlclose() race N rounds instead of 300 (for stress runs;
 * the alarm grows with N).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/init.h>
#include <linux/jump_label.h>
#include <statickeys/cmdline.h>
#include <statickeys/object.h>

#include "libc.h"
#include "tap.h"
#include "params_obj.h"

#define LIB_A	PARAMS_OBJ_DIR "/libparams_a.so"
#define LIB_B	PARAMS_OBJ_DIR "/libparams_b.so"

/* Seconds a case may take before it counts as hung. */
#define CASE_TIMEOUT	20

enum mode { M_NONE, M_DEADLOCK, M_REAPPLY, M_SELF_CLOSE, M_CHURN };

static enum mode mode;
static sem_t sem_one, sem_two;
static void *handle_a;
static int handler_ret;
static int b_seen[8], nr_b_seen;
static int rounds = 300;
static int a_calls;

/* ---- hooks called from the objects (see params_obj.h) ---- */

void params_gate_hook(void)
{
	/* In thread 2's dlopen() of libparams_b.so, loader lock held. */
	if (mode == M_DEADLOCK) {
		sem_post(&sem_one);
		sem_wait(&sem_two);
	}
}

void params_obj_hook(const char *param, int value)
{
	if (!strcmp(param, "pa"))
		__atomic_fetch_add(&a_calls, 1, __ATOMIC_RELAXED);
	if (mode == M_CHURN)
		sched_yield();
	if (!strcmp(param, "pb") && nr_b_seen < 8)
		b_seen[nr_b_seen++] = value;
	if (mode == M_REAPPLY && !strcmp(param, "pb") && value == 1) {
		/* Registration of libparams_b.so, its handler running. */
		sem_post(&sem_one);
		sem_wait(&sem_two);
	}
	if (mode == M_SELF_CLOSE && !strcmp(param, "pa") && handle_a) {
		void *h = handle_a;

		handle_a = NULL;
		handler_ret = dlclose(h);
	}
}

/* ---- the test program's own parameters ---- */

/* "open_a": the documented case, a handler that loads an object. */
static int open_a(char *val)
{
	(void)val;
	if (mode == M_DEADLOCK) {
		sem_wait(&sem_one);	/* thread 2 holds the loader lock */
		sem_post(&sem_two);
	}
	handle_a = dlopen(LIB_A, RTLD_NOW);
	return 0;
}
early_param("open_a", open_a);

/* "hold": stays in the handler until released. */
static int hold(char *val)
{
	(void)val;
	sem_post(&sem_one);
	sem_wait(&sem_two);
	return 0;
}
early_param("hold", hold);

/* "forker": fork() from a handler; the child loads an object with parameters. */
static int forker_status = -1;

static int forker(char *val)
{
	int status;
	pid_t pid;

	(void)val;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		alarm(CASE_TIMEOUT);
		if (statickeys_parse_cmdline("pa=1") != -EDEADLK)
			_exit(2);
		_exit(dlopen(LIB_B, RTLD_NOW) ? 0 : 3);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		forker_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
						      WEXITSTATUS(status);
	return 0;
}
early_param("forker", forker);

/* ---- helpers ---- */

static int obj_value(void *h, const char *fn)
{
	int (*get)(void) = h ? (int (*)(void))dlsym(h, fn) : NULL;

	return get ? get() : -2;
}

static void *dlopen_b(void *arg)
{
	return dlopen(arg ? arg : LIB_B, RTLD_NOW);
}

/* Run @fn in a child bounded by CASE_TIMEOUT; print why it failed. */
static int run_case(int (*fn)(void *), const char *what)
{
	int st;

	st = tap_fork(fn, NULL);
	if (st == 128 + SIGALRM)
		tap_diag("%s: hung (killed by SIGALRM after %d s)", what,
			 CASE_TIMEOUT);
	else if (st)
		tap_diag("%s: child status %d", what, st);
	return st;
}

static void case_init(enum mode m)
{
	alarm(CASE_TIMEOUT);
	sem_init(&sem_one, 0, 0);
	sem_init(&sem_two, 0, 0);
	mode = m;
}

/* ---- the cases ---- */

/*
 * Thread 2 dlopen()s libparams_b.so and holds the loader lock (in
 * libparams_gate.so's constructor) until thread 1 is inside a handler of
 * statickeys_parse_cmdline(); that handler then dlopen()s libparams_a.so
 * while libparams_b.so's constructor registers its parameters.
 */
static int handler_dlopen_child(void *arg)
{
	pthread_t t;
	void *hb;

	(void)arg;
	case_init(M_DEADLOCK);
	pthread_create(&t, NULL, dlopen_b, NULL);
	if (statickeys_parse_cmdline("open_a pa=7 pb=5"))
		return 2;
	pthread_join(t, &hb);
	if (!handle_a || !hb)
		return 3;
	return obj_value(handle_a, "params_a_value") == 7 &&
	       obj_value(hb, "params_b_value") == 5 ? 0 : 4;
}

/*
 * libparams_b.so registers with "pb=1"; while its handler runs, the main
 * thread applies "pb=2".  That must neither wait for the registration nor
 * miss the object: the registration applies the newer line itself.
 */
static int reapply_child(void *arg)
{
	pthread_t t;
	void *hb;

	(void)arg;
	case_init(M_REAPPLY);
	if (statickeys_parse_cmdline("pb=1"))
		return 2;
	pthread_create(&t, NULL, dlopen_b, NULL);
	sem_wait(&sem_one);
	if (statickeys_parse_cmdline("pb=2"))
		return 3;
	sem_post(&sem_two);
	pthread_join(t, &hb);
	if (!hb)
		return 4;
	if (obj_value(hb, "params_b_value") != 2)
		return 5;
	return nr_b_seen == 2 && b_seen[0] == 1 && b_seen[1] == 2 ? 0 : 6;
}

/* A handler dlclose()s its own object in the middle of a command line. */
static int self_close_child(void *arg)
{
	(void)arg;
	case_init(M_SELF_CLOSE);
	handle_a = dlopen(LIB_A, RTLD_NOW);
	if (!handle_a)
		return 2;
	handler_ret = -1;
	if (statickeys_parse_cmdline("pa=1 pa=2 pb=3"))
		return 3;
	if (handle_a || handler_ret)
		return 4;
	/* musl's dlclose() never unloads: only the rest is checked there. */
	return SK_LIBC_UNLOADS && dlopen(LIB_A, RTLD_NOW | RTLD_NOLOAD) ? 5 : 0;
}

/*
 * dlopen()/dlclose() of an object with parameters, @rounds times, while
 * the main thread applies lines until that is over.
 */
static bool churn_done;

static void *churn(void *arg)
{
	void *ret = NULL;
	int i;

	for (i = 0; i < rounds && !ret; i++) {
		void *h = dlopen(LIB_A, RTLD_NOW);
		int seen = __atomic_load_n(&a_calls, __ATOMIC_RELAXED);

		if (!h) {
			ret = (void *)1;
			break;
		}
		/* Unload once a line reached this load, maybe mid-handler. */
		while (__atomic_load_n(&a_calls, __ATOMIC_RELAXED) == seen)
			sched_yield();
		dlclose(h);
	}
	__atomic_store_n(&churn_done, true, __ATOMIC_RELEASE);
	return ret;
}

static int churn_child(void *arg)
{
	char line[32];
	void *ret, *h;
	pthread_t t;
	int i;

	(void)arg;
	case_init(M_CHURN);
	alarm(CASE_TIMEOUT + rounds / 100);
	pthread_create(&t, NULL, churn, NULL);
	for (i = 0; !__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE); i++) {
		snprintf(line, sizeof(line), "pa=%d", i);
		if (statickeys_parse_cmdline(line))
			return 2;
	}
	pthread_join(t, &ret);
	if (ret)
		return 3;
	/* Not asserted: how often the two threads met depends on the timing. */
	printf("# %d lines, %d calls of libparams_a.so's handler in %d loads\n",
	       i, a_calls, rounds);
	fflush(stdout);
	h = dlopen(LIB_A, RTLD_NOW);
	return obj_value(h, "params_a_value") == i - 1 ? 0 : 4;
}

/*
 * Both threads of fork_child() stay until fork() has returned in the
 * parent.  ThreadSanitizer counts a thread that ended before fork() and
 * was not joined yet as leaked by the child ("thread leak" at its exit,
 * status 66), though the child never had that thread: glibc reclaims it
 * there and nothing could join it.  The check is the same either way.
 */
static sem_t sem_forked;

static void *hold_thread(void *arg)
{
	intptr_t ret = statickeys_parse_cmdline(arg);

	sem_wait(&sem_forked);
	return (void *)ret;
}

static void *release_later(void *arg)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	/*
	 * Not a timed assertion: with the fork handlers in place fork() waits
	 * for the line to be applied whenever this fires; without them the
	 * child is forked while the other thread is still in the handler.
	 */
	nanosleep(&ts, NULL);
	sem_post(&sem_two);
	sem_wait(&sem_forked);
	return arg;
}

/*
 * fork() while another thread is inside statickeys_parse_cmdline(): the
 * child must be able to apply a line and dlopen() an object with
 * parameters.
 */
static int fork_child(void *arg)
{
	pthread_t t, r;
	int status;
	void *ret;
	pid_t pid;

	(void)arg;
	case_init(M_NONE);
	sem_init(&sem_forked, 0, 0);
	pthread_create(&t, NULL, hold_thread, "hold pa=1");
	sem_wait(&sem_one);
	pthread_create(&r, NULL, release_later, NULL);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		void *h;

		alarm(CASE_TIMEOUT);
		if (statickeys_parse_cmdline("pa=4"))
			_exit(2);
		h = dlopen(LIB_A, RTLD_NOW);
		_exit(obj_value(h, "params_a_value") == 4 ? 0 : 3);
	}
	sem_post(&sem_forked);
	sem_post(&sem_forked);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 4;
	pthread_join(t, &ret);
	pthread_join(r, NULL);
	if (ret)
		return 5;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status) ? 6 : 0;
}

/* fork() from a handler: the child is still "inside the handler". */
static int fork_in_handler_child(void *arg)
{
	(void)arg;
	case_init(M_NONE);
	if (statickeys_parse_cmdline("forker"))
		return 2;
	return forker_status;
}

/*
 * fork() in a jump_label_lock() section while another thread forks too:
 * that thread's fork handler waits for jump_label_mutex, which this one
 * holds; whatever it holds while it waits must not be something this
 * thread's fork handler needs.
 */
static pid_t other_tid;

static void *fork_and_reap(void *arg)
{
	int status;
	pid_t pid;

	__atomic_store_n(&other_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return arg;
	return NULL;
}

/* Is thread @tid asleep (in the kernel, waiting)? */
static bool task_sleeps(pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static int locked_fork_child(void *arg)
{
	int round, i, status, waiting = 0;
	void *ret;
	pthread_t t;
	pid_t pid, tid;

	(void)arg;
	case_init(M_NONE);
	for (round = 0; round < 20; round++) {
		__atomic_store_n(&other_tid, 0, __ATOMIC_RELAXED);
		jump_label_lock();
		pthread_create(&t, NULL, fork_and_reap, (void *)1);
		while (!(tid = __atomic_load_n(&other_tid, __ATOMIC_ACQUIRE)))
			sched_yield();
		/*
		 * Let its fork() reach the wait for jump_label_mutex.  Not
		 * asserted: a round where it has not yet only tests less.
		 */
		for (i = 0; i < 10000 && !task_sleeps(tid); i++)
			sched_yield();
		waiting += i < 10000;
		fflush(NULL);
		pid = fork();
		if (pid == 0)
			_exit(0);
		jump_label_unlock();
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			return 2;
		pthread_join(t, &ret);
		if (ret)
			return 3;
	}
	/* Not asserted: it depends on the timing. */
	printf("# %d of %d rounds with the other fork() asleep first\n",
	       waiting, round);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && atoi(argv[1]) > 0)
		rounds = atoi(argv[1]);
	tap_plan(7);
	unsetenv(STATICKEYS_CMDLINE_ENV);

	tap_ok(!run_case(handler_dlopen_child, "handler dlopen"),
	       "a handler's dlopen() while another thread's dlopen() registers parameters");
	tap_ok(!run_case(reapply_child, "reapply"),
	       "a line applied while an object registers reaches it, newest last");
	tap_ok(!run_case(self_close_child, "self close"),
	       "a handler dlclose()s its own object: unloaded after the line, no crash");
	tap_ok(!run_case(churn_child, "churn"),
	       "lines applied during %d dlopen()/dlclose() of an object with parameters",
	       rounds);
	if (!tap_ok(!run_case(fork_child, "fork"),
		    "a child forked during statickeys_parse_cmdline() parses and dlopen()s"))
		tap_diag("does the core's atfork handler call __sk_params_fork_prepare_apply(), _objects(), _parent() and _child()?");
	tap_ok(!run_case(fork_in_handler_child, "fork in handler"),
	       "a child forked from a handler gets -EDEADLK and can dlopen()");
	if (SK_LIBC_ATFORK_UNLOCKED)
		tap_ok(!run_case(locked_fork_child, "fork in jump_label_lock()"),
		       "fork() in a jump_label_lock() section while another thread forks: no deadlock");
	else
		tap_skip(SK_LIBC_NAME "'s fork() holds its handler lock while a prepare handler waits",
			 "fork() in a jump_label_lock() section while another thread forks: no deadlock");
	return tap_exit();
}
