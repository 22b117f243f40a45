/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the files of the key core (layer 5 of scripts/layers) share, and
 * nothing else includes.  Calls go one way: kernel/jump_label.c, the entry
 * points, calls kernel/jump_label_count.c, which calls
 * kernel/jump_label_update.c, which calls kernel/batch.c; every one of
 * them may call kernel/warn_key.c.
 */
#ifndef _STATICKEYS_KERNEL_KEY_CORE_H
#define _STATICKEYS_KERNEL_KEY_CORE_H

#include <stdbool.h>
#include <linux/jump_label.h>

#define __kc_hidden	__attribute__((visibility("hidden")))

/*
 * kernel/warn_key.c: the record of which thread holds jump_label_mutex
 * (set once it is taken, dropped just before it is released) and the
 * messages that wait for its release.  The text of one is at most
 * SK_WARN_KEY_MAX bytes; a fifth message under one lock is printed at
 * once, with the key's address for its name.
 */
#define SK_WARN_KEY_MAX		448
#define SK_NR_HELD_WARNINGS	4

struct sk_held_warning {
	const void *key;
	char text[SK_WARN_KEY_MAX];
};

__kc_hidden void sk_lock_owner_set(void);
__kc_hidden unsigned int sk_lock_owner_drop(struct sk_held_warning *out);
__kc_hidden bool sk_held_pending(void);
__kc_hidden void sk_held_print(const struct sk_held_warning *w, unsigned int n);

/*
 * kernel/jump_label_count.c.  A key used wrongly is said once per key and
 * kind of mistake (sk_first_misuse()); sk_refuse_misuse() sets the error
 * @err and says it the first time.  The __static_key_*() are the changes
 * with jump_label_mutex held.
 */
enum key_misuse {
	MISUSE_BELOW_ZERO, MISUSE_OVERFLOW, MISUSE_ENABLE, MISUSE_DISABLE,
	MISUSE_LOCK_HELD, MISUSE_CPUS,
};

__kc_hidden bool sk_first_misuse(const struct static_key *key,
				 enum key_misuse kind);
__kc_hidden void sk_refuse_misuse(struct static_key *key, enum key_misuse kind,
				  int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
__kc_hidden bool __static_key_slow_inc(struct static_key *key);
__kc_hidden void __static_key_enable(struct static_key *key);
__kc_hidden void __static_key_disable(struct static_key *key);

/*
 * kernel/jump_label_update.c: the error sk_set_error() left while the
 * mutex was held becomes the thread's statickeys_last_error() (called just
 * before the mutex is released).
 */
__kc_hidden void sk_error_publish(void);
/* The error the last change under this hold of the mutex set (0 if none). */
__kc_hidden int sk_error_locked(void);

/* kernel/batch.c: the begin and commit halves (see there). */
__kc_hidden bool sk_batch_enter(void);
__kc_hidden void sk_batch_start(void);
__kc_hidden int sk_batch_end(int *err);
__kc_hidden bool sk_batch_refuse(void);
__kc_hidden void sk_batch_unlocking(void);

#undef __kc_hidden

#endif /* _STATICKEYS_KERNEL_KEY_CORE_H */
