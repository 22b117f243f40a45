// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * statickeys_for_each_key() against what the program's keys are: the
 * program's own, a shared object's loaded at start-up and one dlopen()ed
 * later; after toggles; the walk's locking rules.  With --serve FILE it
 * prints its table to FILE and waits (stdin) for statickeys-keys to read it
 * (test_keys_tool.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "intro.h"
#include "libc.h"
#include "site.h"
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(k_exe);
DEFINE_STATIC_KEY_TRUE(k_true);
DEFINE_STATIC_KEY_FALSE_RO(k_ro);
DEFINE_STATIC_KEY_DEFERRED_FALSE(k_def, HZ);

SITE(s_exe_a, static_branch_unlikely(&k_exe))
SITE(s_exe_b, static_branch_likely(&k_exe))
SITE(s_true, static_branch_likely(&k_true))
SITE(s_ro, static_branch_unlikely(&k_ro))
SITE(s_def, static_branch_unlikely(&k_def.key))
SITE(s_dso, static_branch_unlikely(&intro_dso_key))

enum { EXE, TRUEK, RO, DEF, DSO, LATE, NR };
static struct intro_seen seen[NR] = {
	{ .name = "k_exe" }, { .name = "k_true" }, { .name = "k_ro" },
	{ .name = "k_def" }, { .name = "intro_dso_key" },
	{ .name = "intro_late_key" },
};
static char exe[PATH_MAX];
static int keys_walked;

static int record(const struct statickeys_key_info *k, void *arg)
{
	keys_walked++;
	return intro_record(k, seen, NR);
}

static int walk(void)
{
	int i;

	for (i = 0; i < NR; i++)
		seen[i].found = false;
	keys_walked = 0;
	return statickeys_for_each_key(record, NULL);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* Found, in its state, every site holding what the state says. */
static bool key_is(int i, int count, size_t sites, const char *object_tail)
{
	const struct intro_seen *s = &seen[i];
	bool ok = s->found && s->count == count && s->enabled == (count != 0) &&
		  s->nr_sites == sites && !s->wrong_sites &&
		  ends_with(s->object, object_tail);

	if (!ok)
		tap_diag("%s: found %d count %d (want %d) %s sites %zu (want %zu) wrong %zu object %s (want ...%s) table %s",
			 s->name, s->found, s->count, count,
			 s->enabled ? "on" : "off", s->nr_sites, sites,
			 s->wrong_sites, s->object, object_tail, s->table);
	return ok;
}

/* Change keys from inside the walk: refused, EDEADLK. */
static int change_inside(const struct statickeys_key_info *k, void *arg)
{
	int *err = arg;

	static_branch_disable(&k_exe);
	*err = statickeys_last_error();
	return 1;
}

/* Keys of the stripped object that no table names. */
static int count_unnamed(const struct statickeys_key_info *k, void *arg)
{
	if (!k->name && !strcmp(k->name_table, "none") &&
	    ends_with(k->object, "/libintro_dso.so") && k->nr_sites == 1)
		(*(int *)arg)++;
	return 0;
}

static int stop_at_first(const struct statickeys_key_info *k, void *arg)
{
	(*(int *)arg)++;
	return 42;
}

static void test_start_up(void)
{
	int err = walk();

	tap_ok(!err && key_is(EXE, 0, 2, exe) && !strcmp(seen[EXE].table, "symtab") &&
	       !(seen[EXE].flags & STATICKEYS_KEY_TRUE),
	       "the program's key: name from .symtab, object, FALSE, count 0, off, 2 sites NOP");
	tap_ok(key_is(TRUEK, 1, 1, exe) && (seen[TRUEK].flags & STATICKEYS_KEY_TRUE),
	       "a TRUE key: count 1, on, its likely site a NOP");
	tap_ok(key_is(RO, 0, 1, exe) && seen[RO].flags == STATICKEYS_KEY_RO,
	       "a read-only key is RO (flags %#x)", seen[RO].flags);
	tap_ok(key_is(DEF, 0, 1, exe) && seen[DEF].flags == STATICKEYS_KEY_DEFERRED,
	       "a deferred key is DEFERRED (flags %#x)", seen[DEF].flags);
	tap_ok(key_is(DSO, 0, 2, "/libintro_dso.so") && !strcmp(seen[DSO].table, "dynsym"),
	       "a stripped shared object's key loaded at start-up: named from .dynsym, its object, its sites there and in the program");
	err = 0;
	statickeys_for_each_key(count_unnamed, &err);
	tap_ok(err == 1 && intro_hidden_site() == 0,
	       "its static key, in no symbol table: listed without a name (\"none\")");
	tap_ok(!seen[LATE].found, "no key of an object not loaded yet");
}

static void toggle(void)
{
	static_branch_enable(&k_exe);
	static_branch_disable(&k_true);
	static_branch_inc(&intro_dso_key);
	static_branch_inc(&intro_dso_key);
}

static void test_toggles(void)
{
	int err;

	toggle();
	err = walk();
	tap_ok(!err && key_is(EXE, 1, 2, exe) && key_is(TRUEK, 0, 1, exe) &&
	       key_is(DSO, 2, 2, "/libintro_dso.so") &&
	       s_exe_a() == 1 && s_true() == 0 && s_dso() == 1 &&
	       intro_dso_site() == 1,
	       "after toggles: counts, directions and every site's instruction follow");
}

static void test_late(void)
{
	void *h = dlopen(INTRO_LATE, RTLD_NOW);
	struct static_key_true *late = h ? dlsym(h, "intro_late_key") : NULL;
	int err;

	if (!tap_ok(late != NULL, "dlopen %s: %s", INTRO_LATE, h ? "" : dlerror())) {
		tap_skip("no late object", "late object's key");
		tap_skip("no late object", "late object gone");
		return;
	}
	err = walk();
	tap_ok(!err && key_is(LATE, 1, 1, "/libintro_late.so") &&
	       (seen[LATE].flags & STATICKEYS_KEY_TRUE),
	       "a dlopen()ed object's key: listed, its object, TRUE, count 1");
	static_branch_disable(late);
	err = walk();
	tap_ok(!err && key_is(LATE, 0, 1, "/libintro_late.so") && key_is(EXE, 1, 2, exe),
	       "toggled: the walk follows it");
	dlclose(h);
	if (!SK_LIBC_UNLOADS) {
		tap_skip(SK_LIBC_NAME " never unloads an object", "after dlclose() its key is gone");
		return;
	}
	err = walk();
	tap_ok(!err && !seen[LATE].found && seen[EXE].found,
	       "after dlclose() its key is gone");
}

static void test_rules(void)
{
	int err = 0, calls = 0, ret;

	ret = statickeys_for_each_key(change_inside, &err);
	tap_ok(ret == 1 && err == EDEADLK && static_key_enabled(&k_exe),
	       "a key change from inside the walk is refused with EDEADLK, nothing changed (error %d)",
	       err);
	ret = statickeys_for_each_key(stop_at_first, &calls);
	tap_ok(ret == 42 && calls == 1,
	       "a non-zero return stops the walk and is returned (%d, %d calls)",
	       ret, calls);
	jump_label_lock();
	ret = walk();
	jump_label_unlock();
	tap_ok(!ret && seen[EXE].found,
	       "the walk works inside the caller's own jump_label_lock() section");
}

/*
 * The walk holds the lock every change takes: while another thread toggles
 * a key, each walk sees the key's count and every one of its sites agree.
 */
static int toggling;

static void *toggler(void *arg)
{
	int i;

	for (i = 0; i < 2000; i++)
		i & 1 ? static_branch_enable(&k_exe) : static_branch_disable(&k_exe);
	__atomic_store_n(&toggling, 0, __ATOMIC_RELEASE);
	return arg;
}

static void test_concurrent(void)
{
	int walks = 0, torn = 0;
	pthread_t t;

	toggling = 1;
	if (pthread_create(&t, NULL, toggler, NULL)) {
		tap_skip("no thread", "walks while a key toggles");
		return;
	}
	while (__atomic_load_n(&toggling, __ATOMIC_ACQUIRE) || !walks) {
		walk();
		walks++;
		torn += !seen[EXE].found || seen[EXE].wrong_sites;
	}
	pthread_join(t, NULL);
	static_branch_enable(&k_exe);
	tap_ok(!torn, "%d walks while another thread toggles a key: count and sites agree in each (%d torn)",
	       walks, torn);
}

static void test_print(void)
{
	char *buf = NULL;
	size_t len = 0, lines = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int n, sites = 0;

	n = f ? statickeys_print_keys(f) : -1;
	if (f)
		fclose(f);
	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	walk();
	for (i = 0; i < NR; i++)
		sites += seen[i].found ? (int)seen[i].nr_sites : 0;
	tap_ok(n == keys_walked && n > 0 && buf && strstr(buf, " k_exe symtab ") &&
	       lines >= (size_t)n + sites,
	       "statickeys_print_keys(): one line per key and per site (%d keys, %zu lines)",
	       n, lines);
	free(buf);
}

/*
 * --own-file drop|replaced: run as a copy of this program in a directory
 * only root may enter, then either drop to nobody (who may not enter it)
 * or replace the file at its name by another.  Either way the name no
 * longer leads to the file mapped, and the walk must still name the
 * program's key from it.  Exit 0 when it does.
 */
static int own_file(const char *how)
{
	char self[PATH_MAX], other[PATH_MAX + 8];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	if (n <= 0)
		return 2;
	self[n] = '\0';
	if (!strcmp(how, "drop")) {
		if (setgid(65534) || setuid(65534))
			return 2;
		if (access(self, R_OK) == 0) {
			fprintf(stderr, "# %s is still readable by name\n", self);
			return 2;
		}
	} else {
		snprintf(other, sizeof(other), "%s.new", self);
		fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (fd < 0 || write(fd, "not the program\n", 16) != 16 ||
		    close(fd) || rename(other, self))
			return 2;
	}
	walk();
	if (!seen[EXE].found || strcmp(seen[EXE].table, "symtab")) {
		fprintf(stderr, "# %s: k_exe found %d table %s\n", how,
			seen[EXE].found, seen[EXE].table);
		return 1;
	}
	return 0;
}

/*
 * Copy this program into a new directory of mode 0700 and run the copy
 * with --own-file @how: its exit status, or -1 when it could not be set
 * up.
 */
static int run_own_file(const char *how)
{
	char dir[] = "/tmp/sk-intro-XXXXXX", copy[sizeof(dir) + 32], buf[65536];
	int in, out, st = -1;
	ssize_t n;
	pid_t pid;

	if (!mkdtemp(dir))
		return -1;
	snprintf(copy, sizeof(copy), "%s/test_introspect", dir);
	in = open(exe, O_RDONLY | O_CLOEXEC);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0 && !close(out) && in >= 0) {
		pid = fork();
		if (pid == 0) {
			execl(copy, copy, "--own-file", how, (char *)NULL);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid)
			st = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		else
			st = -1;
	}
	unlink(copy);
	rmdir(dir);
	return st;
}

static void test_own_file(void)
{
	const char *runner = getenv("RUNNER");
	int st;

	if (runner && *runner) {
		tap_skip("under qemu-user, which opens /proc/self/exe by the program's name (a known limit, Documentation/introspection.rst)",
			 "own file replaced");
		tap_skip("under qemu-user, which opens /proc/self/exe by the program's name",
			 "own file after setuid");
		return;
	}
	st = run_own_file("replaced");

	tap_ok(st == 0,
	       "the program's file replaced at its name: the walk still names its key from the file mapped (status %d)",
	       st);
	if (geteuid() != 0) {
		tap_skip("dropping privileges takes root", "own file after setuid");
		return;
	}
	st = run_own_file("drop");
	tap_ok(st == 0,
	       "a program started by root from a directory of mode 0700 that dropped to uid 65534 still names its key (status %d)",
	       st);
}

/* Where a debugger stops to read the table (test_keys_gdb.sh). */
__attribute__((noinline)) void intro_served(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * --serve FILE [undumpable]: for test_keys_tool.sh; --serve-with SO FILE
 * loads the shared object SO as well, and --serve-exit-on-open PATH FILE
 * ends the process the moment somebody opens PATH, once it is ready
 * (test_keys_hostile.sh).
 */
/* Wait until somebody opens @path, then end the process at once. */
static void exit_when_opened(const char *path)
{
	int fd = inotify_init1(IN_CLOEXEC);
	char buf[4096];

	if (fd < 0 || inotify_add_watch(fd, path, IN_OPEN) < 0)
		_exit(2);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (read(fd, buf, sizeof(buf)) > 0)
		_exit(0);
	_exit(2);
}

static int serve(const char *file, bool undumpable, const char *extra,
		 const char *watch)
{
	void *h = dlopen(INTRO_LATE, RTLD_NOW);
	FILE *f = fopen(file, "w");
	char c;

	if (!h || !f || (extra && !dlopen(extra, RTLD_NOW)))
		return 2;
	toggle();
	if (undumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 2;
	statickeys_print_keys(f);
	fclose(f);
	intro_served();
	if (watch)
		exit_when_opened(watch);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	const int checks = 20;
	ssize_t n;
	int i;

	if (argc >= 3 && !strcmp(argv[1], "--serve"))
		return serve(argv[2], argc > 3, NULL, NULL);
	if (argc == 4 && !strcmp(argv[1], "--serve-with"))
		return serve(argv[3], false, argv[2], NULL);
	if (argc == 4 && !strcmp(argv[1], "--serve-exit-on-open"))
		return serve(argv[3], false, NULL, argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--own-file"))
		return own_file(argv[2]);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	tap_plan(checks);
	if (!IS_ENABLED(CONFIG_JUMP_LABEL)) {
		int err = walk(), found = 0;

		for (i = 0; i < NR; i++)
			found += seen[i].found;
		tap_ok(!err && !found,
		       "CONFIG_JUMP_LABEL=n: the program's keys have no site, and the walk lists none of them (%d keys: the library's own)",
		       keys_walked);
		for (i = 1; i < checks; i++)
			tap_skip("CONFIG_JUMP_LABEL=n: keys are found through their sites",
				 "introspection %d", i + 1);
		return tap_exit();
	}
	test_start_up();
	test_toggles();
	test_late();
	test_rules();
	test_concurrent();
	test_print();
	test_own_file();
	/* The sites are executed: every one in the state the walk said. */
	tap_ok(s_exe_b() == 1 && s_ro() == 0 && s_def() == 0,
	       "the sites run the way the walk said");
	return tap_exit();
}
