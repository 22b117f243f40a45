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
 * (outside the object's text, or holding neither instruction): it is never
 * written.  Keys are at least 8-byte aligned, so bits 0-2 are free.
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

/*
 * Arch hooks, defined once per architecture in arch/<arch>/kernel/.  An update
 * queues every site first (each queue call checks the bytes present against
 * the bytes expected), then applies the whole batch with a constant number of
 * serializing steps, or discards it having written nothing.
 *
 * arch_jump_label_transform_queue() - 0 when queued or already in @type;
 *	-EILSEQ when the site holds neither expected instruction.
 * arch_jump_label_transform_apply() - write the queue; 0, or -errno with
 *	nothing written.  The queue is empty afterwards either way.
 * arch_jump_label_transform_discard() - drop the queue unwritten.
 * arch_jump_label_decode() - the state a site is in now, or -EILSEQ.
 * arch_jump_label_describe() - print a site's bytes for a diagnostic.
 */
__hidden int arch_jump_label_transform_queue(struct jump_entry *entry,
					     enum jump_label_type type);
__hidden int arch_jump_label_transform_apply(void);
__hidden void arch_jump_label_transform_discard(void);
__hidden int arch_jump_label_decode(const struct jump_entry *entry,
				    enum jump_label_type *type);
__hidden void arch_jump_label_describe(const struct jump_entry *entry,
				       char *buf, size_t len);

/*
 * Text poking (kernel/text_poke.c): how bytes reach executable memory.
 * sk_text_poke_begin() prepares every page a batch touches (nothing is
 * written if it fails); the batch is @n records @stride bytes apart, each
 * starting with the uintptr_t address of a site of @len bytes; sk_text_poke() writes, sk_text_poke_end() restores
 * every mapping exactly as it was.  sk_sync_core() makes every thread of the
 * process execute a core-serializing instruction before it returns.
 */
__hidden int sk_text_poke_begin(const void *sites, size_t n, size_t stride,
			       size_t len);
__hidden int sk_text_poke(uintptr_t addr, const void *bytes, size_t len);
__hidden void sk_text_poke_end(void);
__hidden void sk_sync_core(void);
__hidden const char *sk_text_poke_method(void);

/*
 * sk_reserve() - make room for one more element in a growable array: 0, or
 * -ENOMEM with the array unchanged.  Used by the arch patch queues.
 */
static inline int sk_reserve(void **arr, size_t *cap, size_t used,
			     size_t elem)
{
	size_t n = *cap ? 2 * *cap : 64;
	void *p;

	if (used < *cap)
		return 0;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/* Core services for the arch and text-poke code. */
__hidden int sk_jump_label_update(struct static_key *key, int count);
__hidden int sk_text_poke_ready(void);
/* The executable segment holding @addr: its PROT_* bits, or -1. */
__hidden int sk_text_segment(uintptr_t addr, uintptr_t *start, uintptr_t *end);
__hidden void sk_count_sites_written(size_t n);
__hidden void sk_count_sync(void);

/* Boot parameters (kernel/params.c), called unlocked at registration. */
struct obs_kernel_param;
__hidden void __sk_params_register_object(const struct obs_kernel_param *start,
					  const struct obs_kernel_param *stop,
					  const char *objname);
__hidden void __sk_params_unregister_object(const struct obs_kernel_param *start);
/*
 * fork() and the parameter locks (kernel/params.c).  The core's one atfork
 * handler calls __sk_params_fork_prepare() first, before taking its own
 * locks (the lock order of Documentation/boot-params.rst), and the parent
 * or child half after releasing them.
 */
__hidden void __sk_params_fork_prepare(void);
__hidden void __sk_params_fork_parent(void);
__hidden void __sk_params_fork_child(void);

/*
 * sk_warn() prints one "statickeys: ..." line to stderr; SK_WARN_ONCE()
 * prints it the first time a call site is reached only.
 */
__hidden void sk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define SK_WARN_ONCE(cond, ...) ({					\
	static bool __sk_warned;					\
	bool __sk_c = !!(cond);						\
	if (__sk_c && !__atomic_exchange_n(&__sk_warned, true,		\
					   __ATOMIC_RELAXED))		\
		sk_warn(__VA_ARGS__);					\
	__sk_c;								\
})

#endif /* _STATICKEYS_KERNEL_INTERNAL_H */
