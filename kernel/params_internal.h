/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * What the two halves of the boot parameters share: kernel/params.c (the
 * registered objects, the locks, fork(), the exported API) and
 * kernel/params_cmdline.c (a command line split into words, the words
 * matched and run through one object's entries).  params_cmdline.c calls
 * nothing of params.c, and takes no lock.
 */
#ifndef _KERNEL_PARAMS_INTERNAL_H
#define _KERNEL_PARAMS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/init.h>

/*
 * One word of the command line.  The canonical text of every word is kept
 * in the line's lines as "name=value" (or "name"), quotes removed: the form
 * the kernel rebuilds for __setup() handlers and prints for unknown words.
 */
struct sk_word {
	size_t off;		/* of the word in lines */
	size_t name_len;	/* the '=' (if any) is at off + name_len */
	bool has_val;
	bool claimed;		/* some registered parameter took it */
};

struct sk_cmdline {
	unsigned long refs;	/* under sk_params_lock; see sk_cmdline_put() */
	char *text;		/* as given, for statickeys_cmdline() */
	size_t text_len;
	char *lines;
	size_t lines_len, lines_cap;
	struct sk_word *words;
	size_t nr_words, words_cap;
};

/*
 * One registered object.  Its handlers run with no lock of ours held, so
 * the fields that say who may run them are read and written under
 * sk_params_lock:
 *
 *   registering  its own registration is applying lines to it; nobody
 *                else runs its handlers until that ends
 *   users        threads that may still touch this struct (a registration
 *                or a statickeys_parse_cmdline() running its handlers)
 *   dead         unregistered while users != 0: unlinked, entries gone,
 *                the last user frees it
 *   applied      generation of the last command line handed to it
 */
struct sk_strings;

struct sk_object {
	struct sk_object *next;
	const struct obs_kernel_param *start, *stop;	/* atomic: see dead */
	struct sk_strings *strings;
	unsigned long id;	/* registration number, never reused */
	unsigned long applied;
	unsigned int users;
	bool registering;
	bool dead;
	const void *owner;	/* &sk_self of the registering thread */
	char *pin;		/* path for dlopen(RTLD_NOLOAD); NULL: main */
	char name[];
};

/*
 * An object's entries.  unregister clears the bounds (a statickeys_unregister
 * of an object whose handlers another thread runs), so they are re-read
 * for every entry and an unregistered object is never called again.
 */
static inline const struct obs_kernel_param *sk_first(struct sk_object *obj)
{
	return __atomic_load_n(&obj->start, __ATOMIC_ACQUIRE);
}

static inline const struct obs_kernel_param *sk_end(struct sk_object *obj)
{
	return __atomic_load_n(&obj->stop, __ATOMIC_ACQUIRE);
}

/*
 * kernel/params_cmdline.c.  sk_report() prints "statickeys: <word>: <what>"
 * (@word NULL: no word).  sk_cmdline_build() makes a line of one
 * reference in *@out from @text: 0 or -ENOMEM.  sk_cmdline_free() frees
 * it.  sk_cmdline_run() hands the words of @cl to @obj's early_param()s,
 * then to its __setup()s, on two copies of the words it makes in @copies
 * (2 * @cl->lines_len bytes, kept while @obj lives); no lock held.
 */
__attribute__((visibility("hidden"))) void sk_report(const char *word, const char *what);
__attribute__((visibility("hidden"))) int sk_cmdline_build(struct sk_cmdline **out, const char *text);
__attribute__((visibility("hidden"))) void sk_cmdline_free(struct sk_cmdline *cl);
__attribute__((visibility("hidden"))) void sk_cmdline_run(struct sk_object *obj, const struct sk_cmdline *cl,
			 char *copies);

/*
 * sk_word_reads_back() - whether @text, read as a command line, is the one
 * word @word (its canonical "name=value" or "name"): how the report of
 * unknown words (kernel/params_unknown.c) chooses a spelling that reads
 * back as the same word.
 */
__attribute__((visibility("hidden"))) bool sk_word_reads_back(const char *text, const char *word);

#endif /* _KERNEL_PARAMS_INTERNAL_H */
