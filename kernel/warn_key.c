// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Messages that name a key (sk_warn_key()): the name comes from the loader
 * or from the mapped file's symbol tables, never asked for with a library
 * lock held, so a message made under jump_label_mutex waits here until its
 * holder lets go.  To know that holder, this file keeps the record of which
 * thread holds the mutex (kernel/jump_label.c sets and drops it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include "internal.h"
#include "key_core.h"
#include "symbols.h"

/*
 * Read by every key change, of any thread (sk_lock_is_mine()): atomic.
 * Only the owner's own reads can match, and it wrote both.
 */
static pthread_t lock_owner;
static bool lock_held;

bool sk_lock_is_mine(void)
{
	return __atomic_load_n(&lock_held, __ATOMIC_RELAXED) &&
	       pthread_equal(__atomic_load_n(&lock_owner, __ATOMIC_RELAXED),
			     pthread_self());
}

/* Called by jump_label_lock() once the mutex is taken. */
void sk_lock_owner_set(void)
{
	__atomic_store_n(&lock_owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&lock_held, true, __ATOMIC_RELAXED);
}

/*
 * Messages that name a key, held until the lock is dropped.  The text has
 * SK_KEYNAME where the name goes; a full buffer prints the address instead.
 * Only the holder of jump_label_mutex adds to them, so they are the lock's,
 * not each thread's: no thread-local storage, whose initial-exec model a
 * library loaded late (a plugin) cannot have, and whose size every thread
 * would pay.  jump_label_unlock() takes them out before it releases the lock.
 */
static struct sk_held_warning held[SK_NR_HELD_WARNINGS];
static unsigned int nr_held;

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

	if (sk_maps_read(&maps, &n))
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

/* @text with @key's name where SK_KEYNAME is; @ask: false, its address. */
static void print_with_name(const void *key, const char *text, bool ask)
{
	const char *mark = strstr(text, SK_KEYNAME);
	char name[320];

	if (!mark) {
		sk_warn("%s", text);
		return;
	}
	if (ask)
		sk_key_name(key, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%p", key);
	sk_warn("%.*s%s%s", (int)(mark - text), text, name,
		mark + strlen(SK_KEYNAME));
}

void sk_warn_key(const void *key, const char *fmt, ...)
{
	struct sk_held_warning *h;
	char text[SK_WARN_KEY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!sk_lock_is_mine()) {
		/* Callers without the mutex hold no other library lock. */
		print_with_name(key, text, true);
		return;
	}
	if (nr_held == SK_NR_HELD_WARNINGS) {	/* no room: now, unnamed */
		print_with_name(key, text, false);
		return;
	}
	h = &held[nr_held++];
	h->key = key;
	memcpy(h->text, text, sizeof(text));
}

/*
 * Called by the holder just before it releases the mutex: the held
 * messages leave with the lock, copied to @out (room for
 * SK_NR_HELD_WARNINGS; NULL when sk_held_pending() said none), and are
 * printed after it by sk_held_print().  Returns how many.
 */
unsigned int sk_lock_owner_drop(struct sk_held_warning *out)
{
	unsigned int n = nr_held;

	if (n && out)
		memcpy(out, held, n * sizeof(out[0]));
	nr_held = 0;
	__atomic_store_n(&lock_held, false, __ATOMIC_RELAXED);
	return n;
}

bool sk_held_pending(void)
{
	return nr_held != 0;
}

void sk_held_print(const struct sk_held_warning *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		print_with_name(w[i].key, w[i].text, true);
}
