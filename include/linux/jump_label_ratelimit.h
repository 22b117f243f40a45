/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Deferred (rate-limited) keys: the decrement that would disable the key is
 * delayed by a timeout, so a key that flaps is patched at most once a
 * timeout.  Timeouts are in jiffies, and a jiffy here is one millisecond
 * (HZ = 1000).  The delayed decrements run on one library thread.
 */
#ifndef _LINUX_JUMP_LABEL_RATELIMIT_H
#define _LINUX_JUMP_LABEL_RATELIMIT_H

#include <linux/jump_label.h>

SK_BEGIN_DECLS

#ifndef HZ
#define HZ	1000
#endif

/* A pending delayed decrement; owned by the library once initialised. */
struct delayed_work {
	struct delayed_work *next;
	struct static_key *key;
	unsigned long long due_ns;
	int pending;
};

struct work_struct;

struct static_key_deferred {
	struct static_key key;
	unsigned long timeout;
	struct delayed_work work;
};

struct static_key_true_deferred {
	struct static_key_true key;
	unsigned long timeout;
	struct delayed_work work;
};

struct static_key_false_deferred {
	struct static_key_false key;
	unsigned long timeout;
	struct delayed_work work;
};

#define static_key_slow_dec_deferred(x)					\
	__static_key_slow_dec_deferred(&(x)->key, &(x)->work, (x)->timeout)
#define static_branch_slow_dec_deferred(x)				\
	__static_key_slow_dec_deferred(&(x)->key.key, &(x)->work, (x)->timeout)

#define static_key_deferred_flush(x)					\
	__static_key_deferred_flush((x), &(x)->work)

#define static_branch_deferred_inc(x)	static_branch_inc(&(x)->key)

void __static_key_slow_dec_deferred(struct static_key *key,
				    struct delayed_work *work,
				    unsigned long timeout)
	SK_SYM(__static_key_slow_dec_deferred);
void __static_key_deferred_flush(void *key, struct delayed_work *work)
	SK_SYM(__static_key_deferred_flush);
void jump_label_rate_limit(struct static_key_deferred *key, unsigned long rl)
	SK_SYM(jump_label_rate_limit);

#define DEFINE_STATIC_KEY_DEFERRED_TRUE(name, rl)			\
	struct static_key_true_deferred name = {			\
		{ STATIC_KEY_INIT_TRUE }, (rl), { 0, 0, 0, 0 } }

#define DEFINE_STATIC_KEY_DEFERRED_FALSE(name, rl)			\
	struct static_key_false_deferred name = {			\
		{ STATIC_KEY_INIT_FALSE }, (rl), { 0, 0, 0, 0 } }

SK_END_DECLS

#endif /* _LINUX_JUMP_LABEL_RATELIMIT_H */
