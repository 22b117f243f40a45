/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the arch-neutral core and the arch patchers share.  Nothing here is
 * installed or exported: every symbol is hidden.
 */
#ifndef _STATICKEYS_KERNEL_INTERNAL_H
#define _STATICKEYS_KERNEL_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/jump_label.h>
#include <statickeys/sections.h>
#include "../lib/section.h"
#include "../lib/warn.h"

#define __hidden	__attribute__((visibility("hidden")))

/*
 * The library always carries its architecture's patcher, whatever
 * CONFIG_JUMP_LABEL says: that option chooses how *sites* are compiled, and
 * objects built either way may share keys.
 */
#if defined(__has_include)
# if __has_include(<asm/jump_label.h>)
#  include <asm/jump_label.h>
# endif
#endif
#ifndef JUMP_LABEL_NOP_SIZE
#define JUMP_LABEL_NOP_SIZE	1	/* no patcher: no sites */
#endif
#define JUMP_LABEL_SITE_SIZE	JUMP_LABEL_NOP_SIZE

#ifdef __CHECKER__
/* sparse does not know this GCC builtin, which the writers of code call. */
void __builtin___clear_cache(char *begin, char *end);
#endif

/* Entry accessors: code and target are relative to their own field. */
static inline uintptr_t jump_entry_code(const struct jump_entry *e)
{
	return (uintptr_t)&e->code + e->code;
}

static inline uintptr_t jump_entry_target(const struct jump_entry *e)
{
	return (uintptr_t)&e->target + e->target;
}

/*
 * Bit 1 of an entry's key marks a site the library refused at registration
 * because it lies outside the object's code: it is never written, and its
 * key refuses every change.  Keys are at least 8-byte aligned, so bits 0-2
 * are free.
 */
#define JUMP_ENTRY_DEAD		2UL
#define JUMP_ENTRY_FLAGS	(JUMP_ENTRY_BRANCH | JUMP_ENTRY_DEAD)

static inline struct static_key *jump_entry_key(const struct jump_entry *e)
{
	return (struct static_key *)(e->key & ~JUMP_ENTRY_FLAGS);
}

static inline bool jump_entry_is_dead(const struct jump_entry *e)
{
	return e->key & JUMP_ENTRY_DEAD;
}

static inline bool jump_entry_is_branch(const struct jump_entry *e)
{
	return e->key & JUMP_ENTRY_BRANCH;
}

/* The architecture interface. */
#include "arch.h"

/*
 * Text poking, the writer (kernel/text_poke*.c and kernel/sync_core.c, whose
 * files kernel/text_poke.h lists): how bytes reach executable memory.
 * sk_text_poke_begin() prepares every page a batch touches (nothing is
 * written if it fails); the batch is @n records @stride bytes apart, each
 * starting with the uintptr_t address of a site of @len bytes; sk_text_poke() writes, sk_text_poke_end() restores
 * every mapping exactly as it was.  sk_text_poke() writes nothing where the
 * bytes are there already, and reads every write back.  sk_sync_core() makes every thread of the
 * process execute a core-serializing instruction before it returns: 0, or
 * -EACCES when no way to do so works here (nothing is counted then).
 */
__hidden int sk_text_poke_begin(const void *sites, size_t n, size_t stride,
			       size_t len);
__hidden int sk_text_poke(uintptr_t addr, const void *bytes, size_t len);
__hidden void sk_text_poke_end(void);
/*
 * Bridged writes (sk_text_poke_fill()): with a method
 * whose every write is a system call, sites of one segment are written
 * together with the code between them, as read just before the write, in
 * writes of at most sk_text_poke_bridge_max() bytes (0: not worth it with
 * this method); only the sites are read back (f->landed()).  SK_BRIDGE_GAP
 * is the longest stretch of code between two sites that is bridged: a
 * write costs about as much as copying a few kilobytes, and a page more in
 * a write less than a write of its own (Documentation/benchmarks.rst: a
 * function's pr_debug() sites lie together, a function's length apart).
 * SK_BRIDGE_SPAN keeps the buffer and the kernel's copy in the core's
 * cache: larger writes measured slower on the spread layout of make bench.
 */
#define SK_BRIDGE_GAP	4096
#define SK_BRIDGE_SPAN	65536
struct sk_fill {
	bool (*fill)(uint8_t *buf, void *arg);
	bool (*landed)(const uint8_t *buf, void *arg);
	void *arg;
};
__hidden int sk_text_poke_fill(uintptr_t addr, uint8_t *buf, size_t len,
			       const struct sk_fill *f);
__hidden size_t sk_text_poke_bridge_max(void);
__hidden int sk_sync_core(void);
__hidden const char *sk_text_poke_method(void);
__hidden void sk_text_poke_fork_child(void);
__hidden void sk_text_poke_fork_check(void);
/*
 * When a batch fails: sk_text_poke_status() is the error the batch reports
 * for the error a write or a step returned (-ENOMEM, -EMFILE and -ENFILE as
 * themselves, a refused write or step -EACCES, anything else -EIO);
 * sk_text_poke_why() says what failed first, for the message;
 * sk_text_poke_landed() counts the writes of the batch that landed (none:
 * nothing was changed).  While sk_text_poke_probing(), the batch is the
 * write-method probe's, whose failures the prober reports.
 */
__hidden int sk_text_poke_status(int err);
__hidden const char *sk_text_poke_why(void);
__hidden size_t sk_text_poke_landed(void);
__hidden bool sk_text_poke_probing(void);
/*
 * sk_text_poke_alone(): the batch under way began with no thread in the
 * process but the caller (counted by sk_text_poke_begin() from
 * /proc/self/task, threads made behind the C library's back included).
 * Then only the caller's signal handlers can run between two steps, and
 * the checks against other threads are made once per batch, not per step.
 */
__hidden bool sk_text_poke_alone(void);
/*
 * sk_text_poke_segment(): sk_text_segment() for the layers below the object
 * registry, through the registry's writer hook (below): the PROT_* bits of
 * the executable segment holding @addr, or -1.
 */
__hidden int sk_text_poke_segment(uintptr_t addr, uintptr_t *start,
				  uintptr_t *end);

/*
 * sk_reserve_n() - room for @n elements in a growable array (the capacity
 * doubles from 64): 0, or -ENOMEM with the array unchanged.
 */
static inline int sk_reserve_n(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t want = *cap ? *cap : 64;
	void *p;

	if (n <= *cap)
		return 0;
	while (want < n)
		want *= 2;
	p = realloc(*arr, want * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
}

/* sk_reserve() - room for one more than @used elements, as above. */
static inline int sk_reserve(void **arr, size_t *cap, size_t used,
			     size_t elem)
{
	return sk_reserve_n(arr, cap, used + 1, elem);
}

/*
 * sk_sort_queue() - order a patch queue by address: @n records of @size
 * bytes, each starting with its uintptr_t address.  The core queues a key's
 * sites object by object, each object's already in address order, so the
 * queue is a few sorted runs: they are merged (O(n log runs)), and a
 * sorted queue costs one pass.  0, or -ENOMEM with the queue unchanged.
 */
__hidden int sk_sort_queue(void **queue, size_t n, size_t size);

/* jump_label_unlock() without its cancellation point, for multi-step paths. */
__hidden void __jump_label_unlock(void);

/*
 * sk_static_key_dec_not_one() - drop a user of @key unless it is the last
 * (or the count is not positive): true if dropped.  Lock-free, but for
 * the batch's own thread, which drops it from the batch's count of a key
 * whose enable is queued; the deferred decrement's first try
 * (kernel/jump_label_count.c says how counts change).
 */
__hidden bool sk_static_key_dec_not_one(struct static_key *key);

/*
 * sk_change_lock() - take jump_label_mutex for a change of @key by @fn, the
 * way every key change does: false, with EDEADLK and nothing taken, when
 * the calling thread holds it already.  @cpuslocked: @fn is a _cpuslocked
 * form, whose caller should hold cpus_read_lock() (sk_cpus_read_held(),
 * kernel/cpu.c).  __static_key_slow_dec() is static_key_slow_dec() for a
 * holder of the mutex (the deferred work).
 */
__hidden bool sk_change_lock(struct static_key *key, const char *fn,
			     bool cpuslocked);
__hidden bool sk_cpus_read_held(void);
__hidden void __static_key_slow_dec(struct static_key *key);

/* Core services for the arch and text-poke code. */
__hidden int sk_jump_label_update(struct static_key *key, int count);
__hidden int sk_text_poke_ready(void);
/*
 * The executable segment holding @addr: its PROT_* bits, or -1
 * (kernel/object.c).
 */
__hidden int sk_text_segment(uintptr_t addr, uintptr_t *start, uintptr_t *end);

/*
 * Writer hooks: a service of an upper layer that the writer (layer 1,
 * kernel/text_poke*.c) needs, handed down without the writer naming it
 * (scripts/layers).  The file that defines the service puts one pointer to
 * it in the hook's section with SK_WRITER_HOOK(); the writer finds it
 * through the section's __start_ symbol (kernel/text_poke.h), NULL if
 * absent.  A section rather than a registration call: no constructor order
 * matters (a program's constructor may change a key before the library's
 * own constructors ran), and the pointer sits in the object file of the
 * function it names, so a static link that pulls the function in gets the
 * hook with it (selftests/hardening/test_write_method, linked with
 * libstatickeys.a).  Retained against --gc-sections like the tables.
 *
 *   text_segment   sk_text_segment(), kernel/registry.c: the segment the
 *                  mprotect method makes writable
 *   key_update     sk_jump_label_update(), kernel/jump_label_update.c: flips the
 *                  write-method probe's key through the whole update path
 */
typedef int sk_hook_text_segment_fn(uintptr_t addr, uintptr_t *start,
				    uintptr_t *end);
typedef int sk_hook_key_update_fn(struct static_key *key, int count);
#define SK_WRITER_HOOK(name, fn)					\
	SK_SECTION_ENTRY(sk_hook_##name##_fn *, __sk_hook_##name,	\
			 __sk_hook_##name##_ptr) = (fn)

/*
 * The object registry (kernel/object.c) as the key core sees it; every call
 * is made with jump_label_mutex held.  sk_next_table() moves *@o to the next
 * registered object (NULL: the first, the newest) and gives its table, sorted
 * by key, then address; false past the last.  sk_next_table_for() does the
 * same, skipping the tables whose keys' range leaves @key out (they cannot
 * hold an entry of it).  sk_key_sealed_by(): the name of
 * the object whose sealed read-only keys hold @key (or the copy of one), or
 * NULL.
 */
struct sk_object;
__hidden bool sk_next_table(struct sk_object **o, struct jump_entry **start,
			    struct jump_entry **stop);
__hidden bool sk_next_table_for(const struct static_key *key,
				struct sk_object **o, struct jump_entry **start,
				struct jump_entry **stop);
__hidden const char *sk_key_sealed_by(const struct static_key *key);

/*
 * The key core's (kernel/jump_label_update.c), for registration.
 * sk_entry_type(): the instruction a site must hold for a key with reference
 * count @count.  sk_report_site() says why site @e could not be brought to
 * its key's state (held until jump_label_unlock()).  sk_key_name()
 * (kernel/warn_key.c) names a key by its symbol
 * (asks dladdr, else reads the mapped file's symbol tables: no library lock
 * held, only for a message).
 */
__hidden enum jump_label_type sk_entry_type(const struct jump_entry *entry,
					    int count);
__hidden void sk_report_site(const struct jump_entry *e, int err);
__hidden void sk_key_name(const void *key, char *buf, size_t len);

/*
 * The object registry as the introspection walk (kernel/introspect.c) sees
 * it; every call is made with jump_label_mutex held.  sk_object_view()
 * describes registered object number @i (0 is the newest): false past the
 * last.  Its table is sorted by key, then address.  sk_key_read_only():
 * @key is a read-only key of a registered object, or the copy of one.
 * sk_lock_is_mine(): the calling thread holds jump_label_mutex.
 */
struct sk_object_view {
	const char *name;
	struct jump_entry *start, *stop;
};
__hidden bool sk_object_view(unsigned int i, struct sk_object_view *v);
__hidden bool sk_key_read_only(const struct static_key *key);
__hidden bool sk_lock_is_mine(void);

/*
 * sk_warn_key() (kernel/warn_key.c) - a message naming @key where SK_KEYNAME
 * stands in @fmt.  The
 * name comes from the loader (dladdr), which must not be called with a
 * library lock held: under jump_label_mutex the message is kept and printed
 * by jump_label_unlock().
 */
#define SK_KEYNAME	"\001"
__hidden void sk_warn_key(const void *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Test hooks, NULL in programs: only tests linked with the static library
 * can reach these hidden symbols.  sk_test_step_hook(step) runs after each
 * serializing step of a batch (1..3 on x86, 1 on arm64), with the lock
 * held.  sk_test_poke_hook() runs before each write; a non-zero return
 * fails that write with that -errno, writing nothing.
 */
extern __hidden void (*sk_test_step_hook)(int step);
extern __hidden int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes,
					 size_t len);
/*
 * x86: write every site on its own, for tests that fail the write of one
 * site (the default bridges neighbouring sites into one write).
 */
extern __hidden bool sk_test_write_by_site;
/* Traps of half-written sites that the x86 handler emulated. */
extern __hidden unsigned long sk_trap_emulations;
extern __hidden unsigned long sk_stuck_sites;	/* sites kept emulated now */

/*
 * Batches of key changes (kernel/batch.c).  While the calling thread's
 * batch is open, sk_jump_label_update() queues a key's sites and records
 * the key (sk_batch_defer()) instead of writing; jump_label_lock() and
 * _unlock() only count for that thread (sk_batch_nest(), _unnest());
 * sk_batch_settle() writes what is queued before an object registers or
 * unregisters.  A key whose change is queued and not written is changed
 * again as one change with the first (kernel/jump_label_count.c):
 * sk_batch_pending() gives the count the commit will store for it (0
 * for a key going off), or NULL when no change of it is queued (asked by
 * the lock's holder); sk_batch_take_back(), given that count, drops its
 * change, sites and all, when the second change brings it back.
 * sk_batch_open(): the calling thread's batch is open, asked by any
 * thread; sk_batch_open_locked(): the same, asked by the lock's holder
 * (a batch can only be its own).  sk_batch_key_switch() (kernel/
 * jump_label.c): static_key_enable()/_disable() inside the caller's open
 * batch, without taking the lock again (@mine: the caller's
 * sk_batch_open(), asked once for all its keys; false: the ordinary
 * change); returns the change's error (what statickeys_last_error()
 * would say after it: 0 when the key takes the state, or is in it
 * already).
 */
__hidden bool sk_batch_open(void);
__hidden bool sk_batch_open_locked(void);
__hidden int sk_batch_key_switch(struct static_key *key, bool on, bool mine);
__hidden bool sk_batch_nest(void);
__hidden bool sk_batch_unnest(void);
__hidden int sk_batch_defer(struct static_key *key, bool on, size_t from);
__hidden void sk_batch_settle(void);
__hidden int *sk_batch_pending(const struct static_key *key);
__hidden void sk_batch_take_back(int *pending);
/*
 * sk_batch_on_commit(): call @fn(err) at the end of the calling thread's
 * open batch (its outermost commit), after the writes, the lock still
 * held, with the batch's error (0 or -errno); once however often it is
 * asked.  0, or -EINVAL (no batch of the caller's), -ENOSPC.
 */
__hidden int sk_batch_on_commit(void (*fn)(int err));
__hidden void sk_set_error(int err);

/*
 * The counters of statickeys_get_stats() (kernel/stats.c, the bottom layer:
 * any file may count).  sk_stats_read() fills in the counters of @s and
 * zeroes what it does not keep (objects, sites).
 */
struct statickeys_stats;
__hidden void sk_count_sites_written(size_t n);
__hidden void sk_count_updates(size_t n);
__hidden void sk_count_sync(void);
__hidden void sk_count_refused(void);
__hidden void sk_stats_read(struct statickeys_stats *s);

#endif /* _STATICKEYS_KERNEL_INTERNAL_H */
