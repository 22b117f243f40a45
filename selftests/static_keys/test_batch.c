// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Batches of key changes (<statickeys/batch.h>): one update for many keys,
 * and every key keeping the meaning of its own change: a key refused when
 * it is changed leaves the others alone, a commit that fails gives every
 * key its count back, a key changed twice (once, at the commit) and nested
 * batches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/batch.h>
#include <statickeys/statickeys.h>
#include "tap.h"

/* The library's hidden test hook (kernel/internal.h): a failing write. */
extern int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);

#define NKEYS	8

#define KEY(i) DEFINE_STATIC_KEY_FALSE(key##i);				\
	static __attribute__((noinline)) int site##i(void)		\
	{								\
		return static_branch_unlikely(&key##i) ? 1 : 0;		\
	}
KEY(0) KEY(1) KEY(2) KEY(3) KEY(4) KEY(5) KEY(6) KEY(7)

static struct static_key_false *const keys[NKEYS] = {
	&key0, &key1, &key2, &key3, &key4, &key5, &key6, &key7,
};
static int (*volatile sites[NKEYS])(void) = {
	site0, site1, site2, site3, site4, site5, site6, site7,
};

#ifdef CONFIG_JUMP_LABEL
# define PATCHED 1
#else
# define PATCHED 0
#endif

/* How many sites run their enabled branch. */
static int flipped(void)
{
	int i, n = 0;

	for (i = 0; i < NKEYS; i++)
		n += sites[i]();
	return n;
}

static int enabled(void)
{
	int i, n = 0;

	for (i = 0; i < NKEYS; i++)
		n += static_key_enabled(keys[i]);
	return n;
}

static unsigned long steps(void)
{
	struct statickeys_stats st;

	statickeys_get_stats(&st);
	return st.sync_steps;
}

static void all(bool on)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		if (on)
			static_branch_enable(keys[i]);
		else
			static_branch_disable(keys[i]);
}

/*
 * Write raw bytes into our own code, as a debugger would: through a
 * mapping made writable for the moment, which an emulator sees too
 * (under qemu-user, /proc/self/mem is the emulator's memory, not ours).
 */
static int poke_self(void *addr, const void *bytes, size_t len)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(ps - 1);
	size_t span = (uintptr_t)addr + len - start;

	if (mprotect((void *)start, span, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy(addr, bytes, len);
	if (mprotect((void *)start, span, PROT_READ | PROT_EXEC))
		return -1;
	__builtin___clear_cache((char *)addr, (char *)addr + len);
	return 0;
}

static int nr_writes;

static int count_writes(uintptr_t addr, const void *bytes, size_t len)
{
	(void)addr; (void)bytes; (void)len;
	nr_writes++;
	return 0;
}

static int fail_writes(uintptr_t addr, const void *bytes, size_t len)
{
	(void)addr; (void)bytes; (void)len;
	return -EIO;
}

/* The batch's commit, its writes failing. */
static int commit_failing(void)
{
	int err;

	sk_test_poke_hook = fail_writes;
	err = statickeys_batch_commit();
	sk_test_poke_hook = NULL;
	return err;
}

static void test_one_update(void)
{
	unsigned long s0, one, batch;
	int mid_enabled, mid_flipped, err;

	/* The very first change is inside a batch: the method is chosen. */
	statickeys_batch_begin();
	static_branch_enable(keys[7]);
	err = statickeys_batch_commit();
	tap_ok(!err && sites[7]() && static_key_enabled(keys[7]),
	       "the first change ever, in a batch, works (%d)", err);
	static_branch_disable(keys[7]);

	s0 = steps();
	static_branch_enable(keys[0]);
	one = steps() - s0;
	static_branch_disable(keys[0]);

	s0 = steps();
	statickeys_batch_begin();
	all(true);
	mid_enabled = enabled();
	mid_flipped = flipped();
	sk_test_poke_hook = count_writes;
	err = statickeys_batch_commit();
	sk_test_poke_hook = NULL;
	batch = steps() - s0;
#if defined(__x86_64__) && defined(CONFIG_JUMP_LABEL)
	/* Eight sites in neighbouring functions: one bridged write a step. */
	if (!strcmp(statickeys_text_poke_method(), "procmem"))
		tap_ok(nr_writes == 3, "the sites of 8 neighbouring functions went in 3 writes (%d)",
		       nr_writes);
	else
		tap_skip("not procmem: writes are stores", "bridged writes");
#else
	tap_skip("x86-64 procmem only", "bridged writes");
#endif
	tap_ok(!err && flipped() == NKEYS && enabled() == NKEYS,
	       "a batch enables %d keys: every site flipped (%d), every key enabled (%d), commit %d",
	       NKEYS, flipped(), enabled(), err);
	tap_ok(batch == one,
	       "the batch took as many serializing steps as one key (%lu vs %lu)",
	       batch, one);
	if (PATCHED)
		tap_ok(mid_enabled == 0 && mid_flipped == 0,
		       "before the commit no site flipped (%d) and no key reads enabled (%d)",
		       mid_flipped, mid_enabled);
	else
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written, counts change at once",
			 "before the commit no site flipped");
	statickeys_batch_begin();
	all(false);
	err = statickeys_batch_commit();
	tap_ok(!err && !flipped() && !enabled(),
	       "a batch disables them all again (flipped %d, enabled %d, commit %d)",
	       flipped(), enabled(), err);
}

/* Key 3's site holds a breakpoint while the batch is made. */
static void test_refused_key(void)
{
	uint8_t *code = (uint8_t *)(uintptr_t)site3, saved[16];
	int err3, err;

	if (!PATCHED) {
		tap_skip("CONFIG_JUMP_LABEL=n: no site to refuse", "a refused key");
		tap_skip("CONFIG_JUMP_LABEL=n: no site to refuse", "the others go on");
		return;
	}
	/* The site is within the function's first 16 bytes on both arches. */
	memcpy(saved, code, sizeof(saved));
	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	static_branch_enable(keys[1]);
	{
		/* Every byte of the function breaks the site's decoding. */
		uint8_t junk[16];

		memset(junk, 0xcc, sizeof(junk));
		if (poke_self(code, junk, sizeof(junk)))
			exit(2);
	}
	static_branch_enable(keys[3]);
	err3 = statickeys_last_error();
	if (poke_self(code, saved, sizeof(saved)))
		exit(2);
	static_branch_enable(keys[4]);
	err = statickeys_batch_commit();
	tap_ok(err3 == EILSEQ && !static_key_enabled(keys[3]) && !sites[3](),
	       "the key whose site holds something else is refused at once (%d) and stays disabled",
	       err3);
	tap_ok(!err && sites[0]() && sites[1]() && sites[4]() &&
	       static_key_enabled(keys[0]) && static_key_enabled(keys[4]) &&
	       flipped() == 3,
	       "the other keys of the batch, before and after it, are enabled (commit %d, %d flipped)",
	       err, flipped());
	statickeys_batch_begin();
	all(false);
	statickeys_batch_commit();
}

static void test_failed_commit(void)
{
	int err, last, c1;

	static_branch_inc(keys[1]);	/* stays enabled: count 1 -> 2 -> 1 */
	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	static_branch_inc(keys[1]);
	static_branch_enable(keys[2]);
	err = commit_failing();
	last = statickeys_last_error();
	c1 = static_key_count(&keys[1]->key);
	if (!PATCHED) {
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "a failed commit");
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "counts back");
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "the next batch");
		static_branch_dec(keys[1]);	/* both increments */
		static_branch_dec(keys[1]);
		statickeys_batch_begin();
		all(false);
		statickeys_batch_commit();
		return;
	}
	tap_ok(err == -EIO && last == EIO,
	       "a commit whose writes fail returns -EIO (%d, last error %d)", err,
	       last);
	tap_ok(!static_key_enabled(keys[0]) && !static_key_enabled(keys[2]) &&
	       !sites[0]() && !sites[2]() && c1 == 2 && sites[1](),
	       "the keys it was enabling are disabled again, sites unchanged; a count that moved without writing keeps its move (%d)",
	       c1);
	static_branch_dec(keys[1]);
	static_branch_dec(keys[1]);
	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	err = statickeys_batch_commit();
	tap_ok(!err && sites[0](), "the next batch works (%d)", err);
	static_branch_disable(keys[0]);
}

static void test_twice_and_nested(void)
{
	int err, inner, c;

	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	static_branch_disable(keys[0]);
	static_branch_enable(keys[0]);
	static_branch_inc(keys[5]);
	static_branch_inc(keys[5]);
	statickeys_batch_begin();
	static_branch_enable(keys[6]);
	inner = statickeys_batch_commit();
	c = flipped();
	err = statickeys_batch_commit();
	tap_ok(!err && !inner && sites[0]() && static_key_enabled(keys[0]),
	       "a key enabled, disabled and enabled again in one batch ends enabled (%d)",
	       err);
	tap_ok(static_key_count(&keys[5]->key) == 2 && sites[5](),
	       "two increments in one batch: count 2 (%d), site flipped",
	       static_key_count(&keys[5]->key));
	tap_ok(sites[6]() && (!PATCHED || c < 3),
	       "an inner batch joins the outer one: its key is written by the outer commit (%d flipped before it)",
	       c);
	static_branch_disable(keys[0]);
	static_branch_dec(keys[5]);
	static_branch_dec(keys[5]);
	static_branch_disable(keys[6]);
	tap_ok(statickeys_batch_commit() == -EINVAL,
	       "a commit without a batch is refused");
}

/*
 * A key changed twice in one batch is changed once, at the commit: a
 * change that brings it back takes the first one back, nothing of it is
 * written early, and a failed commit leaves every key as it was before
 * the batch.
 */
static void test_twice_failed(void)
{
	int err, c0, c5;

	if (!PATCHED) {
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "on and off, failed");
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "two increments, failed");
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "off and on, failed");
		tap_skip("CONFIG_JUMP_LABEL=n: nothing is written", "no early write");
		return;
	}
	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	static_branch_disable(keys[0]);
	static_branch_enable(keys[3]);
	err = commit_failing();
	tap_ok(err == -EIO && !sites[0]() && !static_key_enabled(keys[0]) &&
	       !sites[3]() && !static_key_enabled(keys[3]),
	       "enable, disable, and another key's enable, commit failed: both keys as before (%d, sites %d %d)",
	       err, sites[0](), sites[3]());
	static_branch_disable(keys[0]);		/* whatever the above left */
	static_branch_disable(keys[3]);

	statickeys_batch_begin();
	static_branch_inc(keys[5]);
	static_branch_inc(keys[5]);
	err = commit_failing();
	c5 = static_key_count(&keys[5]->key);
	tap_ok(err == -EIO && c5 == 0 && !sites[5](),
	       "two increments of a disabled key, commit failed: count 0 (%d), site off (%d)",
	       c5, err);
	while (static_key_count(&keys[5]->key) > 0)
		static_branch_dec(keys[5]);

	static_branch_enable(keys[4]);
	statickeys_batch_begin();
	static_branch_disable(keys[4]);
	static_branch_enable(keys[4]);
	static_branch_enable(keys[6]);
	err = commit_failing();
	tap_ok(err == -EIO && sites[4]() && static_key_count(&keys[4]->key) == 1 &&
	       !sites[6](),
	       "an enabled key disabled and enabled again, commit failed: still enabled (%d, count %d)",
	       err, static_key_count(&keys[4]->key));
	static_branch_disable(keys[4]);

	/* A write failing while the batch is made: there is none. */
	statickeys_batch_begin();
	static_branch_enable(keys[0]);
	sk_test_poke_hook = fail_writes;
	static_branch_disable(keys[0]);
	sk_test_poke_hook = NULL;
	static_branch_enable(keys[3]);
	err = statickeys_batch_commit();
	c0 = static_key_count(&keys[0]->key);
	tap_ok(!err && !sites[0]() && c0 == 0 && sites[3]() &&
	       static_key_enabled(keys[3]),
	       "nothing is written before the commit: it succeeds whole (%d, count %d)",
	       err, c0);
	static_branch_disable(keys[3]);
}

/*
 * Messages that name keys, made while the batch holds the lock, wait for
 * it to be let go to ask the loader for names; past the few it holds, a
 * message is printed at once with the key's address for its name.  None
 * may show the placeholder the name goes in (it did, past the fourth).
 */
static void test_many_messages(void)
{
	char out[4096];
	FILE *f = tmpfile();
	int saved, i, named = 0;
	size_t n;

	if (!f) {
		tap_skip("tmpfile() failed", "messages in a batch");
		return;
	}
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(f), 2);
	statickeys_batch_begin();
	for (i = 0; i < NKEYS; i++)
		static_branch_dec(keys[i]);	/* below zero: refused, said */
	statickeys_batch_commit();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	for (i = 0; i < NKEYS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "key%d ", i);
		named += strstr(out, name) != NULL;
	}
	tap_ok(!memchr(out, '\001', n) && strstr(out, "would go below zero") &&
	       named >= 1,
	       "%d refusals in one batch: every message printed whole (%d named, no placeholder)",
	       NKEYS, named);
}

/*
 * Users of a deferred key added and dropped inside one batch: while its
 * enable is queued the key reads -1, and a deferred decrement that is
 * not the last must still drop a user at once (it moves the batch's
 * count), not wait as the last one does: two of them merged into one
 * pending decrement and the key stayed on for good.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(dkey, 10);

static __attribute__((noinline)) int dsite(void)
{
	return static_branch_unlikely(&dkey.key) ? 1 : 0;
}

static void test_deferred_in_batch(void)
{
	int err, c;

	statickeys_batch_begin();
	static_branch_deferred_inc(&dkey);
	static_branch_deferred_inc(&dkey);
	static_branch_deferred_inc(&dkey);
	static_branch_slow_dec_deferred(&dkey);
	static_branch_slow_dec_deferred(&dkey);
	static_branch_slow_dec_deferred(&dkey);
	err = statickeys_batch_commit();
	static_key_deferred_flush(&dkey);
	c = static_key_count(&dkey.key.key);
	tap_ok(!err && c == 0 && !dsite(),
	       "three users of a deferred key added and dropped in one batch: count 0 (%d), site off (%d)",
	       c, dsite());
	while (static_key_count(&dkey.key.key) > 0)
		static_branch_dec(&dkey.key);
}

/*
 * A batch begun inside the caller's own jump_label_lock() section cannot
 * take the lock again: refused, its change too, the commit -EDEADLK, and
 * the caller still holds its lock.  In a child: a hang is a failed check.
 */
static int batch_in_lock(void *arg)
{
	int err, last;

	(void)arg;
	alarm(10);
	jump_label_lock();
	statickeys_batch_begin();
	static_branch_enable(keys[2]);
	err = statickeys_batch_commit();
	last = statickeys_last_error();
	jump_label_unlock();
	if (err != -EDEADLK || last != EDEADLK || static_key_enabled(keys[2]) ||
	    sites[2]())
		return 1;
	statickeys_batch_begin();
	static_branch_enable(keys[2]);
	err = statickeys_batch_commit();
	if (err || !sites[2]())
		return 2;
	/* A refused begin is forgotten when the lock section ends. */
	jump_label_lock();
	statickeys_batch_begin();
	jump_label_unlock();
	err = statickeys_batch_commit();
	jump_label_lock();
	last = statickeys_batch_commit();
	jump_label_unlock();
	return err == -EINVAL && last == -EINVAL ? 0 : 3;
}

static void test_batch_in_lock(void)
{
	int st = tap_fork(batch_in_lock, NULL);

	tap_ok(st == 0,
	       "a batch inside the caller's own jump_label_lock() is refused (-EDEADLK), the next one works, and an unmatched one is forgotten with the lock (child %d)",
	       st);
}

/*
 * Another thread's change waits for the batch: the batch's thread holds
 * the jump-label lock from begin to commit, so the other change can neither
 * write the batch's queued sites early nor touch the queue meanwhile.
 * Judged without a clock: the other thread either finishes (the lock did
 * not hold it) or is seen asleep in the kernel, waiting for the lock.
 */
static volatile int other_tid, other_done;

static void *other_change(void *arg)
{
	(void)arg;
	other_tid = (int)syscall(SYS_gettid);
	static_branch_enable(keys[2]);
	other_done = 1;
	return NULL;
}

/* The scheduler state of thread @tid ('R', 'S', ...), or 0. */
static char thread_state(int tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void test_other_thread_waits(void)
{
	pthread_t t;
	int err, done_in_batch;

	statickeys_batch_begin();
	static_branch_enable(keys[1]);
	if (pthread_create(&t, NULL, other_change, NULL)) {
		statickeys_batch_commit();
		tap_skip("pthread_create failed", "another thread's change waits for the batch");
		tap_skip("pthread_create failed", "then both keys are written");
		return;
	}
	while (!other_tid)
		sched_yield();
	while (!other_done && thread_state(other_tid) != 'S')
		sched_yield();
	done_in_batch = other_done;
	err = statickeys_batch_commit();
	pthread_join(t, NULL);
	tap_ok(!done_in_batch,
	       "another thread's change waits for the batch to commit (it %s)",
	       done_in_batch ? "finished inside the batch" : "slept on the lock");
	tap_ok(!err && sites[1]() && sites[2]() &&
	       static_key_enabled(keys[1]) && static_key_enabled(keys[2]),
	       "then both keys are enabled and both sites flipped (%d)", err);
	static_branch_disable(keys[1]);
	static_branch_disable(keys[2]);
}

int main(void)
{
	tap_plan(24);
	test_one_update();
	test_refused_key();
	test_failed_commit();
	test_twice_and_nested();
	test_twice_failed();
	test_batch_in_lock();
	test_deferred_in_batch();
	test_many_messages();
	test_other_thread_waits();
	return tap_exit();
}
