// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The arch-neutral key core: the lock, reference counts, the update of every
 * site of a key in every registered object, the refusal of changes to sealed
 * read-only keys, errors and counters, and fork().  The objects themselves
 * (their segments, sorted tables and sealing) are kernel/object.c's, reached
 * through sk_next_table() and sk_key_sealed_by() (kernel/internal.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <statickeys/statickeys.h>
#include "internal.h"
#include "queue.h"
#include "symbols.h"

/*
 * Locking.  jump_label_mutex serialises every change of a key's state with the
 * code patching that goes with it, and every change of the object list.  The
 * fast paths never take it.  Every key change takes it itself, as in the
 * kernel, the _cpuslocked forms included; @lock_owner lets a change refuse a
 * caller that holds it already (its own jump_label_lock() section), which
 * would otherwise wait for itself.
 *
 * The lock order is written once, in Documentation/static-keys.rst ("Lock
 * order"); fork_prepare() below takes every library lock in it.  Nothing is
 * ever called into the loader (dladdr, dlsym, dlopen, dl_iterate_phdr) with
 * one of the library's locks held: messages that name a key are kept per
 * thread and printed by jump_label_unlock(), after the mutex is released.
 * The library is linked with -z now, so that no lazy symbol binding happens
 * under a lock either.
 */
static pthread_mutex_t jump_label_mutex = PTHREAD_MUTEX_INITIALIZER;
/*
 * Read by every key change, of any thread (jump_label_lock_is_mine()):
 * atomic.  Only the owner's own reads can match, and it wrote both.
 */
static pthread_t lock_owner;
static bool lock_held;

static struct statickeys_stats stats;
static __thread int last_error;

SK_EXPORT bool static_key_initialized = true;

void sk_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "statickeys: %s\n", buf);
}

/*
 * Messages that name a key, held until the lock is dropped.  The text has
 * SK_KEYNAME where the name goes; a full buffer prints the address instead.
 * Only the holder of jump_label_mutex adds to them, so they are the lock's,
 * not each thread's: no thread-local storage, whose initial-exec model a
 * library loaded late (a plugin) cannot have, and whose size every thread
 * would pay.  jump_label_unlock() takes them out before it releases the lock.
 */
#define NR_HELD_WARNINGS	4

struct held_warning {
	const void *key;
	char text[448];
};

static struct held_warning held[NR_HELD_WARNINGS];
static unsigned int nr_held;

static bool jump_label_lock_is_mine(void);

/*
 * A key dladdr() cannot name (the program's own keys, static or hidden
 * ones): the symbol tables of the file mapped there, read as
 * STATICKEYS_DEBUG=keys reads them (kernel/symbols.c: bounded, .symtab
 * then .dynsym; a stripped file has no name).  Only for a message, never
 * on a key change's path: it reads /proc/self/maps and maps the file.
 */
static bool key_name_from_file(const void *key, char *buf, size_t len)
{
	struct statickeys_key_info info = { 0 };
	struct sk_elf_cache c = { 0 };
	struct sk_map *maps;
	size_t n;
	bool named;

	if (sk_maps_read(0, &maps, &n))
		return false;
	c.maps = maps;
	c.nr_maps = n;
	sk_key_describe(&c, (uintptr_t)key, sizeof(struct static_key_deferred),
			&info);
	named = info.name != NULL;
	if (named)
		snprintf(buf, len, "%s (%p)", info.name, key);
	sk_elf_cache_free(&c);
	free(maps);
	return named;
}

void sk_key_name(const void *key, char *buf, size_t len)
{
	Dl_info info;

	if (dladdr(key, &info) && info.dli_sname && info.dli_saddr == key)
		snprintf(buf, len, "%s (%s)", info.dli_sname,
			 info.dli_fname ? info.dli_fname : "?");
	else if (!key_name_from_file(key, buf, len))
		snprintf(buf, len, "%p", key);
}

static void print_with_name(const void *key, const char *text)
{
	const char *mark = strstr(text, SK_KEYNAME);
	char name[320];

	if (!mark) {
		sk_warn("%s", text);
		return;
	}
	sk_key_name(key, name, sizeof(name));
	sk_warn("%.*s%s%s", (int)(mark - text), text, name,
		mark + strlen(SK_KEYNAME));
}

void sk_warn_key(const void *key, const char *fmt, ...)
{
	struct held_warning *h;
	char text[sizeof(held[0].text)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!jump_label_lock_is_mine()) {
		/* Callers without the mutex hold no other library lock. */
		print_with_name(key, text);
		return;
	}
	if (nr_held == NR_HELD_WARNINGS) {
		sk_warn("%s (key %p)", text, key);
		return;
	}
	h = &held[nr_held++];
	h->key = key;
	memcpy(h->text, text, sizeof(text));
}

static void release_mutex(void)
{
	__atomic_store_n(&lock_held, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&jump_label_mutex);
}

/* A copy of the held messages leaves with the lock, and is printed after. */
static __attribute__((noinline)) void release_mutex_and_print(void)
{
	struct held_warning out[NR_HELD_WARNINGS];
	unsigned int i, n = nr_held;

	memcpy(out, held, n * sizeof(out[0]));
	nr_held = 0;
	release_mutex();
	for (i = 0; i < n; i++)
		print_with_name(out[i].key, out[i].text);
}

/*
 * A thread cancelled inside an update would leave the mutex locked and the
 * sites half-written (pwrite() and open() are cancellation points): the
 * holder of the lock cannot be cancelled, and a pending cancellation acts
 * when jump_label_unlock() returns.  The holder's own state, kept under the
 * lock.
 */
static int lock_cancel_state;

/**
 * jump_label_lock() - take the lock that serialises all key updates.
 */
SK_EXPORT void jump_label_lock(void)
{
	int old;

	if (sk_batch_nest())	/* this thread's batch holds it */
		return;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&jump_label_mutex);
	lock_cancel_state = old;
	__atomic_store_n(&lock_owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&lock_held, true, __ATOMIC_RELAXED);
	/* a child made without the fork handlers: the parent's descriptors */
	sk_text_poke_fork_check();
}

/**
 * jump_label_unlock() - release the lock taken by jump_label_lock(), then
 * print the messages held while it was taken.
 */
void __jump_label_unlock(void)
{
	int old = lock_cancel_state;

	if (sk_batch_unnest())
		return;
	if (nr_held)
		release_mutex_and_print();
	else
		release_mutex();
	pthread_setcancelstate(old, NULL);
}

/*
 * The end of a whole operation (a key change, or the caller's own
 * jump_label_lock() section) is a cancellation point: a cancellation that
 * arrived meanwhile acts here, with everything consistent.  The library's
 * own multi-step paths (registration, deferred work) use
 * __jump_label_unlock(), which is not.
 */
SK_EXPORT void jump_label_unlock(void)
{
	__jump_label_unlock();
	pthread_testcancel();
}

static bool jump_label_lock_is_mine(void)
{
	return __atomic_load_n(&lock_held, __ATOMIC_RELAXED) &&
	       pthread_equal(__atomic_load_n(&lock_owner, __ATOMIC_RELAXED),
			     pthread_self());
}

/*
 * The readers work inside the caller's jump_label_lock() section as well as
 * outside it: the kernel's kprobes call jump_label_text_reserved() there.
 * Returns whether the lock was taken (and must be released).
 */
static bool lock_unless_mine(void)
{
	if (jump_label_lock_is_mine())
		return false;
	jump_label_lock();
	return true;
}

/*
 * fork() while another thread is patching would give the child a lock
 * nobody will release and half-written sites: every library lock is held
 * across fork(), taken in the lock order by this one handler (separate
 * pthread_atfork() registrations would run in an order set by constructor
 * order, not by the lock order).  glibc runs the prepare handlers of
 * concurrent fork()s concurrently, so the order matters here as anywhere.
 * A thread that forks while holding jump_label_mutex itself keeps it: its
 * state is consistent.
 */
static __thread bool fork_took_lock;

static void fork_prepare(void)
{
	bool mine = jump_label_lock_is_mine();

	__sk_params_fork_prepare_apply(mine);
	if (!mine) {
		jump_label_lock();
		fork_took_lock = true;
	}
	__sk_params_fork_prepare_objects();
	sk_deferred_fork_prepare();
}

static void fork_release(bool child)
{
	if (child) {
		sk_text_poke_fork_child();
		sk_deferred_fork_child();
		arch_jump_label_fork_child();
	} else {
		sk_deferred_fork_parent();
	}
	if (fork_took_lock) {
		fork_took_lock = false;
		__jump_label_unlock();
	}
	if (child)
		__sk_params_fork_child();
	else
		__sk_params_fork_parent();
}

static void fork_parent(void)
{
	fork_release(false);
}

static void fork_child(void)
{
	fork_release(true);
}

static void __attribute__((constructor(101))) jump_label_setup(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/**
 * jump_label_init() - initialise the library.  Kept for kernel code: the
 * library initialises itself before any constructor of a user of it runs.
 */
SK_EXPORT void jump_label_init(void)
{
}

/*
 * The reasons statickeys_last_error() may give, and nothing else: an error
 * from below that is not one of them is a bug, said once, and reported as
 * EIO.
 */
static int public_error(int err)
{
	switch (err) {
	case 0: case EPERM: case EILSEQ: case ERANGE: case EACCES:
	case ENOMEM: case EMFILE: case ENFILE: case EIO: case EDEADLK:
	case EBUSY:
		return err;
	}
	SK_WARN_ONCE(1, "internal error %d (%s) reported as EIO", err,
		     strerror(err));
	return EIO;
}

static void set_error(int err)
{
	last_error = public_error(err);
	if (err)
		__atomic_fetch_add(&stats.refused, 1, __ATOMIC_RELAXED);
}

SK_EXPORT int statickeys_last_error(void)
{
	return last_error;
}

void sk_count_sites_written(size_t n)
{
	__atomic_fetch_add(&stats.sites_written, n, __ATOMIC_RELAXED);
}

void sk_set_error(int err)
{
	set_error(err);
}

void sk_count_updates(size_t n)
{
	__atomic_fetch_add(&stats.updates, n, __ATOMIC_RELAXED);
}

void sk_count_sync(void)
{
	__atomic_fetch_add(&stats.sync_steps, 1, __ATOMIC_RELAXED);
}

SK_EXPORT void statickeys_get_stats(struct statickeys_stats *s)
{
	struct jump_entry *start, *stop;
	struct sk_object *o = NULL;
	bool locked = lock_unless_mine();

	*s = stats;
	s->objects = 0;
	s->sites = 0;
	while (sk_next_table(&o, &start, &stop)) {
		s->objects++;
		s->sites += stop - start;
	}
	if (locked)
		jump_label_unlock();
}

enum jump_label_type jump_label_init_type(struct jump_entry *entry)
{
	struct static_key *key = jump_entry_key(entry);
	bool type = key->type & JUMP_TYPE_TRUE;

	return (type ^ jump_entry_is_branch(entry)) ? JUMP_LABEL_JMP
						    : JUMP_LABEL_NOP;
}

/* The instruction a site must hold for a key with reference count @count. */
enum jump_label_type sk_entry_type(const struct jump_entry *entry, int count)
{
	bool enabled = count != 0;	/* -1, "being enabled", counts as on */

	return (enabled ^ jump_entry_is_branch(entry)) ? JUMP_LABEL_JMP
						       : JUMP_LABEL_NOP;
}

/* Find the first entry of @key in a sorted table, or NULL. */
static struct jump_entry *first_entry(struct jump_entry *start,
				      struct jump_entry *stop,
				      const struct static_key *key)
{
	struct jump_entry *lo = start, *hi = stop;

	while (lo < hi) {
		struct jump_entry *mid = lo + (hi - lo) / 2;

		if ((uintptr_t)jump_entry_key(mid) < (uintptr_t)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < stop && jump_entry_key(lo) == key ? lo : NULL;
}

void sk_report_site(const struct jump_entry *e, int err)
{
	char bytes[64];

	arch_jump_label_describe(e, bytes, sizeof(bytes));
	if (jump_entry_is_dead(e))
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " was refused when its object was registered (said then): the key cannot change",
			    (void *)jump_entry_code(e));
	else if (err == -ENOMEM)
		sk_warn_key(jump_entry_key(e), "no memory to queue site %p of key " SK_KEYNAME ": nothing written, key unchanged",
			    (void *)jump_entry_code(e));
	else if (err == -EBUSY)
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " holds a breakpoint over its instruction (%s): nothing written, key unchanged; retried at the next change",
			    (void *)jump_entry_code(e), bytes);
	else
		sk_warn_key(jump_entry_key(e), "site %p of key " SK_KEYNAME " holds %s, not the expected instruction: nothing written, key unchanged",
			    (void *)jump_entry_code(e), bytes);
}

#define SK_PREFETCH_AHEAD	8	/* sites: make bench's spread layout */

/*
 * Queue every site of @key in every object for @count and write them in one
 * batch.  Returns the number of sites, or -errno with nothing changed: every
 * site of the key is checked before anything is written, and a site that
 * cannot be brought to the new state (dead, or holding something else, a
 * debugger's breakpoint included) refuses the whole change.  Called locked.
 */
int sk_jump_label_update(struct static_key *key, int count)
{
	struct jump_entry *e, *start, *stop;
	struct sk_object *o = NULL;
	int queued = 0, err;
	bool batch = sk_batch_open() && !sk_text_poke_probing();
	size_t mark = batch ? sk_queue_mark() : 0;

	/* A failed change's; not while a batch's sites are queued. */
	if (!mark)
		arch_jump_label_repair(0, 0, SK_STUCK_REPAIR);
	while (sk_next_table(&o, &start, &stop)) {
		for (e = first_entry(start, stop, key); e && e < stop &&
		     jump_entry_key(e) == key; e++) {
			/*
			 * Queueing reads every site: a key's sites are spread
			 * over its object's text, mostly out of the cache.
			 * Ask for a later one now, so that the misses overlap.
			 */
			if (e + SK_PREFETCH_AHEAD < stop)
				__builtin_prefetch((const void *)
					jump_entry_code(e + SK_PREFETCH_AHEAD));
			/* The write method is chosen when first needed. */
			if (!queued && (err = sk_queue_ready()))
				return err;
			err = sk_queue_site(e, sk_entry_type(e, count));
			if (err) {
				sk_report_site(e, err);
				sk_queue_drop_from(mark);
				return err == -EBUSY ? -EILSEQ : err;
			}
			queued++;
		}
	}
	if (!queued)
		return 0;
	if (batch) {		/* written by the batch's commit */
		err = sk_batch_defer(key, count);
		if (err)
			sk_queue_drop_from(mark);
		return err ? err : queued;
	}
	err = sk_queue_apply();
	if (err)
		return err;
	__atomic_fetch_add(&stats.updates, 1, __ATOMIC_RELAXED);
	return queued;
}

static bool refuse_sealed(struct static_key *key)
{
	const char *objname = sk_key_sealed_by(key);

	if (!objname)
		return false;
	sk_warn_key(key, "key " SK_KEYNAME " of %s is read-only after init: change refused",
		    objname);
	set_error(EPERM);
	return true;
}

/*
 * How a count changes.  Every move by one, on every path, is count_add():
 * one compare-and-swap loop that retries with the value it found and
 * stops, changing nothing, when that value is outside the range the
 * caller allows.  The lock-free callers move a count only between
 * non-zero values (static_key_fast_inc_not_disabled() from >= 1 up, the
 * deferred decrement from >= 2 down), so only a holder of
 * jump_label_mutex moves a count to or from 0, and the code follows:
 *
 *   from  to   how (under the mutex)
 *   0     1    key_switch(): store -1 ("being enabled": the lock-free
 *              paths refuse it), write the sites, store 1 with release;
 *              on failure store 0
 *   1     0    count_add() found 1 and stored 0 (a fast increment that
 *              raced with it made it retry as an ordinary decrement),
 *              then key_switch() writes the sites; on failure it stores
 *              1 back (nobody else moves a count from 0)
 *   n     n+-1 count_add()
 */
static bool count_add(struct static_key *key, int delta, int lo, int hi,
		      int *v)
{
	*v = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
	do {
		if (*v < lo || *v > hi)
			return false;
	} while (!__atomic_compare_exchange_n(&key->enabled, v, *v + delta,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}

static bool key_switch(struct static_key *key, bool on)
{
	int err;

	if (on)
		__atomic_store_n(&key->enabled, -1, __ATOMIC_RELAXED);
	err = sk_jump_label_update(key, on);
	if (err < 0) {
		__atomic_store_n(&key->enabled, on ? 0 : 1, __ATOMIC_RELEASE);
		set_error(-err);
		return false;
	}
	/* In a batch, enabled once the commit has written the sites. */
	if (on && !(err > 0 && sk_batch_open()))
		__atomic_store_n(&key->enabled, 1, __ATOMIC_RELEASE);
	set_error(0);
	return true;
}

/*
 * A key used wrongly (a count below zero or overflowing, enable or
 * disable of a key with several users, a change from inside the caller's
 * own jump_label_lock() section, a _cpuslocked call without
 * cpus_read_lock()) is said once per key and kind of mistake; what the
 * call does about it (refuse, or go on) is the same every time.  The
 * kernel says it once per call site, with a backtrace that names the
 * caller; here the message names the key instead, so once per key is what
 * names every wrong key.  Locked: the list is jump_label_mutex's.
 */
enum key_misuse {
	MISUSE_BELOW_ZERO, MISUSE_OVERFLOW, MISUSE_ENABLE, MISUSE_DISABLE,
	MISUSE_LOCK_HELD, MISUSE_CPUS,
};

static struct misused_key {
	const struct static_key *key;
	unsigned int kinds;
} *misused;
static size_t nr_misused, misused_cap;

static bool first_misuse(const struct static_key *key, enum key_misuse kind)
{
	size_t i;

	for (i = 0; i < nr_misused && misused[i].key != key; i++)
		;
	if (i == nr_misused) {
		/* No memory: say it again rather than never. */
		if (sk_reserve((void **)&misused, &misused_cap, nr_misused,
			       sizeof(*misused)))
			return true;
		misused[nr_misused++] = (struct misused_key){ key, 0 };
	}
	if (misused[i].kinds & 1U << kind)
		return false;
	misused[i].kinds |= 1U << kind;
	return true;
}

static void __attribute__((format(printf, 4, 5)))
refuse_misuse(struct static_key *key, enum key_misuse kind, int err,
	      const char *fmt, ...)
{
	char text[sizeof(held[0].text)];
	va_list ap;

	set_error(err);
	if (!first_misuse(key, kind))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sk_warn_key(key, "%s", text);
}

/**
 * static_key_fast_inc_not_disabled() - add a user to an already enabled key.
 * @key: the key
 *
 * Returns false, changing nothing, when the key is disabled (or being
 * enabled) or the count would overflow.  Never patches code.
 */
SK_EXPORT bool static_key_fast_inc_not_disabled(struct static_key *key)
{
	int v;

	return count_add(key, 1, 1, __INT_MAX__ - 1, &v);
}

/* Drop a user unless it is the last one (the deferred decrement). */
bool sk_static_key_dec_not_one(struct static_key *key)
{
	int v;

	return count_add(key, -1, 2, __INT_MAX__, &v);
}

static bool __static_key_slow_inc(struct static_key *key)
{
	int v;

	sk_batch_settle(key);
	if (refuse_sealed(key))
		return false;
	if (count_add(key, 1, 1, __INT_MAX__ - 1, &v)) {
		set_error(0);
		return true;
	}
	if (v == 0)
		return key_switch(key, true);
	/* -1 is only ever seen by the holder of the mutex that stored it. */
	if (SK_WARN_ONCE(v < 0, "static_key_slow_inc(): count of key %p is %d",
			 (void *)key, v))
		set_error(ERANGE);
	else
		refuse_misuse(key, MISUSE_OVERFLOW, ERANGE,
			      "static_key_slow_inc(): count of key " SK_KEYNAME " would overflow: unchanged");
	return false;
}

void __static_key_slow_dec(struct static_key *key)
{
	int v;

	sk_batch_settle(key);
	if (refuse_sealed(key))
		return;
	if (!count_add(key, -1, 1, __INT_MAX__, &v)) {
		refuse_misuse(key, MISUSE_BELOW_ZERO, ERANGE,
			      "static_key_slow_dec(): key " SK_KEYNAME " would go below zero (count %d): unchanged",
			      v);
		return;
	}
	if (v == 1)
		key_switch(key, false);
	else
		set_error(0);
}

static void __static_key_enable(struct static_key *key)
{
	int v;

	sk_batch_settle(key);
	v = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);

	if (v == 0) {
		if (!refuse_sealed(key))
			key_switch(key, true);
		return;
	}
	set_error(0);		/* it is enabled */
	if (v != 1)
		refuse_misuse(key, MISUSE_ENABLE, 0,
			      "static_key_enable() on key " SK_KEYNAME " with count %d: a key used with inc/dec",
			      v);
}

/*
 * As in the kernel, disabling acts on a count of 1 only: a key with more
 * users is left alone, a fast increment racing with it included.
 */
static void __static_key_disable(struct static_key *key)
{
	int v;

	sk_batch_settle(key);
	v = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);

	if (v == 1 && refuse_sealed(key))
		return;
	if (count_add(key, -1, 1, 1, &v)) {
		key_switch(key, false);
		return;
	}
	if (v == 0)
		set_error(0);
	else
		refuse_misuse(key, MISUSE_DISABLE, ERANGE,
			      "static_key_disable() on key " SK_KEYNAME " with count %d: unchanged",
			      v);
}

/*
 * The way into every key change.  As in the kernel, each takes
 * jump_label_mutex itself, the _cpuslocked forms included: their caller
 * holds cpus_read_lock() (kernel/cpu.c), which excludes nothing in a
 * process and is only checked.  Inside the caller's own jump_label_lock()
 * section the change would wait for itself, as the kernel's would: it is
 * refused instead, with EDEADLK, nothing changed.
 */
bool sk_change_lock(struct static_key *key, const char *fn, bool cpuslocked)
{
	/* This thread's batch holds the lock for its changes (kernel/batch.c). */
	if (jump_label_lock_is_mine() && !sk_batch_open()) {
		refuse_misuse(key, MISUSE_LOCK_HELD, EDEADLK,
			      "%s() on key " SK_KEYNAME " with jump_label_lock() held: it takes that lock itself, as in the kernel; refused, nothing changed",
			      fn);
		return false;
	}
	jump_label_lock();
	if (cpuslocked && !sk_cpus_read_held() && first_misuse(key, MISUSE_CPUS))
		sk_warn_key(key, "%s() on key " SK_KEYNAME " without cpus_read_lock() held (the kernel's lockdep would say so): done under jump_label_lock() all the same",
			    fn);
	return true;
}

enum key_op { KEY_INC, KEY_DEC, KEY_ENABLE, KEY_DISABLE };

static bool key_change(struct static_key *key, enum key_op op, const char *fn,
		       bool cpuslocked)
{
	bool ret = true;

	if (!sk_change_lock(key, fn, cpuslocked))
		return false;
	switch (op) {
	case KEY_INC:
		/*
		 * No lock-free fast path: a sealed key must be refused before
		 * its count is touched, and that needs the object list.
		 */
		ret = __static_key_slow_inc(key);
		break;
	case KEY_DEC:
		__static_key_slow_dec(key);
		break;
	case KEY_ENABLE:
		__static_key_enable(key);
		break;
	case KEY_DISABLE:
		__static_key_disable(key);
		break;
	}
	jump_label_unlock();
	return ret;
}

/**
 * static_key_slow_inc() - add a user; the first one enables the key.
 * @key: the key
 *
 * Returns true if the count was incremented.
 */
SK_EXPORT bool static_key_slow_inc(struct static_key *key)
{
	return key_change(key, KEY_INC, __func__, false);
}

/**
 * static_key_slow_dec() - drop a user; the last one disables the key.
 * @key: the key
 *
 * A decrement below zero warns and leaves the key unchanged.
 */
SK_EXPORT void static_key_slow_dec(struct static_key *key)
{
	key_change(key, KEY_DEC, __func__, false);
}

/**
 * static_key_enable() - set the key's count to 1 if it is 0.
 * @key: the key; a boolean key, not one used with inc/dec
 */
SK_EXPORT void static_key_enable(struct static_key *key)
{
	key_change(key, KEY_ENABLE, __func__, false);
}

/**
 * static_key_disable() - set the key's count to 0.
 * @key: the key; a boolean key, not one used with inc/dec
 */
SK_EXPORT void static_key_disable(struct static_key *key)
{
	key_change(key, KEY_DISABLE, __func__, false);
}

/**
 * static_key_slow_inc_cpuslocked() - static_key_slow_inc() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT bool static_key_slow_inc_cpuslocked(struct static_key *key)
{
	return key_change(key, KEY_INC, __func__, true);
}

/**
 * static_key_slow_dec_cpuslocked() - static_key_slow_dec() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_slow_dec_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_DEC, __func__, true);
}

/**
 * static_key_enable_cpuslocked() - static_key_enable() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_enable_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_ENABLE, __func__, true);
}

/**
 * static_key_disable_cpuslocked() - static_key_disable() for a caller that
 * holds cpus_read_lock(); takes jump_label_lock() itself.
 * @key: the key
 */
SK_EXPORT void static_key_disable_cpuslocked(struct static_key *key)
{
	key_change(key, KEY_DISABLE, __func__, true);
}

/**
 * jump_label_text_reserved() - does [@start, @end] overlap any site?
 * @start: first byte
 * @end: last byte
 *
 * Callable with or without jump_label_lock() held, as in the kernel.
 */
SK_EXPORT int jump_label_text_reserved(void *start, void *end)
{
	uintptr_t s = (uintptr_t)start, e = (uintptr_t)end;
	struct jump_entry *it, *first, *stop;
	struct sk_object *o = NULL;
	bool locked = lock_unless_mine();
	int ret = 0;

	while (!ret && sk_next_table(&o, &first, &stop))
		for (it = first; it < stop; it++) {
			uintptr_t c = jump_entry_code(it);

			if (c <= e && c + JUMP_LABEL_SITE_SIZE > s) {
				ret = 1;
				break;
			}
		}
	if (locked)
		jump_label_unlock();
	return ret;
}

bool sk_lock_is_mine(void)
{
	return jump_label_lock_is_mine();
}

SK_EXPORT const char *statickeys_text_poke_method(void)
{
	return sk_text_poke_method();
}
