// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The boot command line of the process: where it comes from, how it is split
 * into words (as the kernel's next_arg() does) and how the words reach the
 * early_param() and __setup() handlers of every registered object.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "object_hooks.h"
#include "params.h"

/* How much of a word a message echoes before "...". */
#define SK_ECHO_MAX	96

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
 * Copies of the words handed to an object's handlers.  Handlers may keep
 * the pointers (kernel __setup() handlers do), so a copy lives as long as
 * the object that received it.
 */
struct sk_strings {
	struct sk_strings *next;
	char buf[];
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
 * Locking.  The lock order is written in Documentation/static-keys.rst
 * ("Lock order"); here is why the two locks of this file sit where they do.
 *
 * glibc holds its loader lock in dlopen()/dlclose() while it runs
 * constructors and destructors, which is where objects register and
 * unregister: so registration may take sk_params_lock, never
 * sk_apply_lock.  sk_params_lock guards the lists and counters only and
 * is never held while calling anything else (no handler, no loader call,
 * no core call; only fork()'s handler takes the innermost deferred-work
 * lock after it), so it cannot be part of a cycle.
 *
 * sk_apply_lock serialises statickeys_parse_cmdline(): two command lines
 * never interleave.  It is held while handlers run and while objects are
 * pinned with dlopen(RTLD_NOLOAD), both of which take the loader's lock,
 * hence its place before it; nothing that may hold the loader's lock
 * (constructors, destructors, registration) ever takes it.
 *
 * An object that registers applies the current line to itself, holding
 * no lock, and again if statickeys_parse_cmdline() installed a newer line
 * meanwhile (that call skips objects mid-registration): the newest line is
 * always the last one its handlers see.  statickeys_parse_cmdline() keeps
 * an object mapped while its handlers run by pinning it (the main program
 * needs no pin), then checks that the pinned object is still the one that
 * registered.  Handlers may thus dlopen() and dlclose(), even their own
 * object: its destructor runs when the pin is dropped.
 */
static pthread_mutex_t sk_apply_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t sk_params_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sk_cmdline *sk_cmdline;	/* NULL: the empty line */
static unsigned long sk_cmdline_gen;	/* bumped by each new line */
static bool sk_env_read;
static struct sk_object *sk_objects;	/* in registration order */
static unsigned long sk_last_id;
static __thread bool sk_fork_took_apply;	/* by this thread's fork() */

/*
 * Per thread: sk_handlers counts the handler runs this thread is inside
 * (statickeys_parse_cmdline() refuses there: -EDEADLK), sk_loader the
 * registrations (the loader's lock may be held), sk_apply_owner says this
 * thread holds sk_apply_lock.  &sk_self identifies the thread, also in a
 * forked child.
 */
static __thread unsigned int sk_handlers, sk_loader;
static __thread bool sk_apply_owner;
static __thread char sk_self;

static void sk_lock(void)
{
	pthread_mutex_lock(&sk_params_lock);
}

static void sk_unlock(void)
{
	pthread_mutex_unlock(&sk_params_lock);
}

/* ---- messages ---- */

/* Append @s to @out, unprintable bytes as \xNN, cut after SK_ECHO_MAX. */
static size_t sk_escape(char *out, const char *s)
{
	size_t i, n = 0;

	for (i = 0; s[i] && i < SK_ECHO_MAX; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[n++] = c;
		else
			n += sprintf(out + n, "\\x%02x", c);
	}
	if (s[i])
		n += sprintf(out + n, "...");
	out[n] = '\0';
	return n;
}

/* One line on stderr, written at once: "statickeys: <word>: <what>". */
static void sk_report(const char *word, const char *what)
{
	char msg[64 + 4 * SK_ECHO_MAX + 128];
	size_t n;

	n = sprintf(msg, "statickeys: ");
	if (word) {
		n += sk_escape(msg + n, word);
		n += sprintf(msg + n, ": ");
	}
	snprintf(msg + n, sizeof(msg) - n, "%s\n", what);
	fputs(msg, stderr);
}

/* ---- splitting the command line ---- */

/* The C locale's spaces; the kernel's table also has 0xa0 (see the doc). */
static bool sk_isspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static char *sk_skip_spaces(char *s)
{
	while (sk_isspace(*s))
		s++;
	return s;
}

/*
 * Cut the word at @s (not a space) in place, with next_arg()'s rules:
 *  - each '"' flips "inside quotes", where a space does not end the word;
 *  - the first '=' that is not the word's first character splits name
 *    from value;
 *  - a value that opens with '"' loses it, and the word's last character
 *    if that is a '"'; so does a word that opens with '"'.  Other quotes
 *    stay where they are.
 * Return: where the next word starts.
 */
static char *sk_next_word(char *s, char **name, char **val)
{
	bool quoted = *s == '"';
	bool in_quote;
	size_t len, eq = 0;
	char *next;

	s += quoted;
	in_quote = quoted;
	for (len = 0; s[len] && (in_quote || !sk_isspace(s[len])); len++) {
		if (s[len] == '=' && !eq)
			eq = len;
		if (s[len] == '"')
			in_quote = !in_quote;
	}
	next = s[len] ? s + len + 1 : s + len;
	*name = s;
	*val = NULL;
	if (eq) {
		s[eq] = '\0';
		*val = s + eq + 1;
		if (**val == '"') {
			(*val)++;
			if (s[len - 1] == '"')
				s[len - 1] = '\0';
		}
	}
	if (quoted && len && s[len - 1] == '"')
		s[len - 1] = '\0';
	s[len] = '\0';
	return sk_skip_spaces(next);
}

static void sk_cmdline_free(struct sk_cmdline *cl)
{
	if (!cl)
		return;
	free(cl->text);
	free(cl->lines);
	free(cl->words);
	free(cl);
}

static int sk_cmdline_grow_words(struct sk_cmdline *cl)
{
	size_t cap = cl->words_cap ? 2 * cl->words_cap : 16;
	struct sk_word *w;

	if (cap > SIZE_MAX / sizeof(*w))
		return -ENOMEM;
	w = realloc(cl->words, cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	cl->words = w;
	cl->words_cap = cap;
	return 0;
}

/* Record one word as "name=value".  A word never grows, so lines fits. */
static int sk_cmdline_add(struct sk_cmdline *cl, const char *name,
			  const char *val)
{
	size_t nlen = strlen(name), vlen = val ? strlen(val) : 0;
	size_t need = nlen + (val ? vlen + 1 : 0) + 1;
	char *p = cl->lines + cl->lines_len;
	struct sk_word *w;

	if (need > cl->lines_cap - cl->lines_len)
		return -EOVERFLOW;
	if (cl->nr_words == cl->words_cap && sk_cmdline_grow_words(cl))
		return -ENOMEM;
	w = &cl->words[cl->nr_words++];
	*w = (struct sk_word){ cl->lines_len, nlen, val != NULL, false };
	memcpy(p, name, nlen);
	if (val) {
		p[nlen] = '=';
		memcpy(p + nlen + 1, val, vlen);
	}
	p[need - 1] = '\0';
	cl->lines_len += need;
	return 0;
}

/* Split @text into @cl; words after a bare "--" are not for us. */
static int sk_cmdline_split(struct sk_cmdline *cl, char *work)
{
	char *s = sk_skip_spaces(work), *name, *val;
	int ret;

	while (*s) {
		s = sk_next_word(s, &name, &val);
		if (!val && !strcmp(name, "--"))
			break;
		if (!*name)	/* a lone "" names nothing */
			continue;
		ret = sk_cmdline_add(cl, name, val);
		if (ret)
			return ret;
	}
	return 0;
}

/* A new line of one reference, in *@out; 0 or -ENOMEM. */
static int sk_cmdline_build(struct sk_cmdline **out, const char *text)
{
	size_t len = strlen(text);
	struct sk_cmdline *cl;
	char *work;
	int ret = -ENOMEM;

	*out = NULL;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	cl->refs = 1;
	cl->text = strdup(text);
	cl->lines = malloc(len + 1);
	work = strdup(text);
	if (cl->text && cl->lines && work) {
		cl->text_len = len;
		cl->lines_cap = len + 1;
		ret = sk_cmdline_split(cl, work);
	}
	free(work);
	if (ret)
		sk_cmdline_free(cl);
	else
		*out = cl;
	return ret;
}

/*
 * A line stays alive while a thread applies or lists it, after a newer one
 * replaced it.  Both under sk_params_lock.  Apart from its words' claimed
 * flags (set with atomic stores), a line never changes once built.
 */
static struct sk_cmdline *sk_cmdline_get(void)
{
	if (sk_cmdline)
		sk_cmdline->refs++;
	return sk_cmdline;
}

static void sk_cmdline_put(struct sk_cmdline *cl)
{
	if (cl && !--cl->refs)
		sk_cmdline_free(cl);
}

/* ---- matching, as the kernel's parameq() and obsolete_checksetup() ---- */

static char sk_dash_to_underscore(char c)
{
	return c == '-' ? '_' : c;
}

/* The first @n characters agree, '-' matching '_'; a short @a is safe. */
static bool sk_parameqn(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (sk_dash_to_underscore(a[i]) != sk_dash_to_underscore(b[i]))
			return false;
		if (!a[i])
			break;
	}
	return true;
}

static bool sk_parameq(const char *a, const char *b)
{
	return sk_parameqn(a, b, strlen(a) + 1);
}

/*
 * An object's entries.  unregister clears the bounds (a statickeys_unregister
 * of an object whose handlers another thread runs), so they are re-read
 * for every entry and an unregistered object is never called again.
 */
static const struct obs_kernel_param *sk_first(struct sk_object *obj)
{
	return __atomic_load_n(&obj->start, __ATOMIC_ACQUIRE);
}

static const struct obs_kernel_param *sk_end(struct sk_object *obj)
{
	return __atomic_load_n(&obj->stop, __ATOMIC_ACQUIRE);
}

/* A registration and a command line may mark the same word at once. */
static void sk_claim(struct sk_word *w)
{
	__atomic_store_n(&w->claimed, true, __ATOMIC_RELAXED);
}

/*
 * The early pass: every early_param() whose name is the word's name gets
 * the value.  @name is the object's private copy, cut at the '='.
 */
static void sk_early_word(struct sk_object *obj, struct sk_word *w,
			  char *name, const char *canon)
{
	char *val = w->has_val ? name + w->name_len + 1 : NULL;
	const struct obs_kernel_param *p;

	for (p = sk_first(obj); p < sk_end(obj); p++) {
		if (!p->early || !p->str || !sk_parameq(name, p->str))
			continue;
		sk_claim(w);
		if (p->setup_func && p->setup_func(val))
			sk_report(canon, val ?
				  "invalid value, keeping the default" :
				  "missing value, keeping the default");
	}
}

/*
 * The __setup() pass: entries whose string is a prefix of "name=value"
 * get the rest, the first one that returns non-zero takes the word.  An
 * early_param() of the same name marks the word known and is skipped.
 */
static void sk_setup_word(struct sk_object *obj, struct sk_word *w,
			  char *line)
{
	const struct obs_kernel_param *p;
	size_t n;

	for (p = sk_first(obj); p < sk_end(obj); p++) {
		if (!p->str)
			continue;
		n = strlen(p->str);
		if (!sk_parameqn(line, p->str, n))
			continue;
		if (p->early) {
			if (line[n] == '\0' || line[n] == '=')
				sk_claim(w);
			continue;
		}
		if (!p->setup_func)
			sk_report(p->str, "obsolete parameter, ignored");
		if (!p->setup_func || p->setup_func(line + n)) {
			sk_claim(w);
			return;
		}
	}
}

/* A buffer that lives until @obj is unregistered. */
static char *sk_object_strings(struct sk_object *obj, size_t size)
{
	struct sk_strings *s = malloc(offsetof(struct sk_strings, buf) + size);

	if (!s)
		return NULL;
	sk_lock();
	s->next = obj->strings;
	obj->strings = s;
	sk_unlock();
	return s->buf;
}

/*
 * Run @cl through @obj's entries: the whole line through the
 * early_param()s, then the whole line through the __setup()s, each pass on
 * its own copy as in the kernel.  Called with no lock held, by the one
 * thread that may run @obj's handlers now (see struct sk_object).
 */
static void sk_apply_object(struct sk_object *obj, struct sk_cmdline *cl)
{
	char *early, *setup;
	size_t i;

	if (!cl || !cl->nr_words || sk_first(obj) >= sk_end(obj))
		return;
	early = sk_object_strings(obj, 2 * cl->lines_len);
	if (!early) {
		sk_report(obj->name, "out of memory, command line not applied");
		return;
	}
	setup = early + cl->lines_len;
	memcpy(early, cl->lines, cl->lines_len);
	memcpy(setup, cl->lines, cl->lines_len);
	for (i = 0; i < cl->nr_words; i++)
		if (cl->words[i].has_val)
			early[cl->words[i].off + cl->words[i].name_len] = '\0';
	sk_handlers++;
	for (i = 0; i < cl->nr_words; i++)
		sk_early_word(obj, &cl->words[i], early + cl->words[i].off,
			      cl->lines + cl->words[i].off);
	for (i = 0; i < cl->nr_words; i++)
		sk_setup_word(obj, &cl->words[i], setup + cl->words[i].off);
	sk_handlers--;
}

/*
 * The environment's command line, once.  secure_getenv(): a set-user-ID
 * program does not let its caller flip its keys.  Under sk_params_lock.
 */
static void sk_read_env(void)
{
	const char *env;

	if (sk_env_read)
		return;
	sk_env_read = true;
	env = secure_getenv(STATICKEYS_CMDLINE_ENV);
	if (env && sk_cmdline_build(&sk_cmdline, env))
		sk_report(STATICKEYS_CMDLINE_ENV,
			  "out of memory, command line ignored");
}

/* ---- objects ---- */

static void sk_object_free(struct sk_object *obj)
{
	struct sk_strings *s;

	while ((s = obj->strings)) {
		obj->strings = s->next;
		free(s);
	}
	free(obj->pin);
	free(obj);
}

/* Under sk_params_lock: the caller no longer touches @obj. */
static void sk_object_put(struct sk_object *obj)
{
	if (!--obj->users && obj->dead)
		sk_object_free(obj);
}

/*
 * The loader's base address and name of the object holding @addr; false if
 * the loader does not know it (a static program).  Plain dladdr(), which
 * glibc and musl both have (glibc's dladdr1(RTLD_DL_LINKMAP) is not in
 * musl); it takes the loader's lock.
 */
static bool sk_loaded_object(const void *addr, Dl_info *info)
{
	return dladdr(addr, info) && info->dli_fname;
}

/* Whether @info and the object holding @addr are one object. */
static bool sk_same_object(const Dl_info *info, const void *addr)
{
	Dl_info other;

	return sk_loaded_object(addr, &other) &&
	       other.dli_fbase == info->dli_fbase;
}

/*
 * What keeps @start's object mapped: NULL for the main program (the object
 * holding the entry point, AT_ENTRY), which is never unloaded, and for
 * this library, whose code is running anyway; else its path as the loader
 * knows it, which dlopen(RTLD_NOLOAD) finds without opening a file.  Called
 * before any lock of ours is taken: dladdr() takes the loader's lock.  An
 * address the loader does not know (a static program) counts as the main
 * program.
 */
static int sk_pin_name(const void *start, char **pin)
{
	Dl_info obj;

	*pin = NULL;
	if (!sk_loaded_object(start, &obj) || !obj.dli_fname[0] ||
	    sk_same_object(&obj, (const void *)getauxval(AT_ENTRY)) ||
	    sk_same_object(&obj, (const void *)sk_pin_name))
		return 0;
	*pin = strdup(obj.dli_fname);
	return *pin ? 0 : -ENOMEM;
}

static struct sk_object *sk_object_new(const struct obs_kernel_param *start,
				       const struct obs_kernel_param *stop,
				       const char *objname)
{
	size_t len = objname ? strlen(objname) : 0;
	struct sk_object *obj;
	char *pin;

	if (sk_pin_name(start, &pin))
		return NULL;
	obj = calloc(1, offsetof(struct sk_object, name) + len + 1);
	if (!obj) {
		free(pin);
		return NULL;
	}
	obj->start = start;
	obj->stop = stop;
	obj->pin = pin;
	if (len)
		memcpy(obj->name, objname, len);
	return obj;
}

static void sk_object_append(struct sk_object *obj)
{
	struct sk_object **pp = &sk_objects;

	while (*pp)
		pp = &(*pp)->next;
	*pp = obj;
}

/* ---- the core's interface (kernel/params.h) ---- */

/*
 * Called from the object's constructor: the loader's lock may be held, so
 * sk_apply_lock is out of reach.  The object applies the current line to
 * itself, and the newer one if a statickeys_parse_cmdline() (which skips
 * it meanwhile) installed one, until the line it applied is the newest.
 */
void __sk_params_register_object(const struct obs_kernel_param *start,
				 const struct obs_kernel_param *stop,
				 const char *objname)
{
	struct sk_object *obj;
	struct sk_cmdline *cl;
	unsigned long gen;

	sk_loader++;
	obj = sk_object_new(start, stop, objname);
	sk_lock();
	sk_read_env();
	if (!obj) {
		sk_unlock();
		sk_report(objname, "out of memory, command line not applied");
		sk_loader--;
		return;
	}
	obj->id = ++sk_last_id;
	obj->registering = true;
	obj->owner = &sk_self;
	obj->users = 1;
	sk_object_append(obj);
	do {
		cl = sk_cmdline_get();
		gen = obj->applied = sk_cmdline_gen;
		sk_unlock();
		sk_apply_object(obj, cl);
		sk_lock();
		sk_cmdline_put(cl);
	} while (gen != sk_cmdline_gen && !obj->dead);
	obj->registering = false;
	sk_object_put(obj);
	sk_unlock();
	sk_loader--;
}

/*
 * From the object's destructor (the loader's lock may be held).  An object
 * whose handlers a thread still runs (a handler that unregisters by hand,
 * or an exit() while a line is applied) is unlinked and emptied at once
 * and freed by that thread.
 */
void __sk_params_unregister_object(const struct obs_kernel_param *start)
{
	struct sk_object **pp, *obj;

	sk_loader++;
	sk_lock();
	for (pp = &sk_objects; (obj = *pp); pp = &obj->next)
		if (obj->start == start)
			break;
	if (obj) {
		*pp = obj->next;
		obj->dead = true;
		__atomic_store_n(&obj->start, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&obj->stop, NULL, __ATOMIC_RELEASE);
		if (!obj->users)
			sk_object_free(obj);
	}
	sk_unlock();
	sk_loader--;
}

/* The object's parameters, told by kernel/object.c with no lock held. */
static void params_object_registered(const struct statickeys_object *d,
				     const char *name)
{
	if (d->param_start != d->param_stop)
		__sk_params_register_object(d->param_start, d->param_stop,
					    name);
}

static void params_object_unregistered(const struct statickeys_object *d)
{
	if (d->param_start != d->param_stop)
		__sk_params_unregister_object(d->param_start);
}

SK_OBJECT_HOOK(params_object_hook) = {
	.order = SK_HOOK_FIRST,
	.registered = params_object_registered,
	.unregistered = params_object_unregistered,
};

/* ---- applying a command line ---- */

/*
 * The next object statickeys_parse_cmdline() must apply generation @gen to:
 * registered before it started (id <= @max_id), after @last_id, not
 * registering, not served yet.  Returned with a user reference, under
 * sk_params_lock.
 */
static struct sk_object *sk_next_object(unsigned long last_id,
					unsigned long max_id, unsigned long gen)
{
	struct sk_object *obj;

	for (obj = sk_objects; obj && obj->id <= max_id; obj = obj->next) {
		if (obj->id <= last_id || obj->registering ||
		    obj->applied == gen)
			continue;
		obj->users++;
		return obj;
	}
	return NULL;
}

/*
 * Apply @cl to @obj, keeping it mapped meanwhile: a dlopen(RTLD_NOLOAD) of
 * its path, with no lock of ours held (the loader's lock comes first), then
 * a check that it did not unregister before the pin took hold (then the
 * pin, if any, is on an unrelated object of the same path, or on the
 * same object while its destructor is pending).
 *
 * Drops the caller's reference on @obj, under sk_params_lock and before
 * the pin: whoever unloads the object next takes that lock in its
 * destructor, so the handlers' stores come before the unloading (and
 * before the constructor of an object mapped at the same address later)
 * in the order of our own lock, not only in the loader's, which
 * ThreadSanitizer does not see.
 */
static void sk_apply_pinned(struct sk_object *obj, struct sk_cmdline *cl,
			    unsigned long gen)
{
	void *pin = NULL;
	bool gone = false;

	if (obj->pin) {
		pin = dlopen(obj->pin, RTLD_NOLOAD | RTLD_LAZY);
		gone = !pin;
	}
	sk_lock();
	gone = gone || obj->dead || obj->registering;
	if (!gone)
		obj->applied = gen;
	sk_unlock();
	if (!gone)
		sk_apply_object(obj, cl);
	sk_lock();
	sk_object_put(obj);
	sk_unlock();
	if (pin)
		dlclose(pin);
}

/* The new line, installed: apply it to every object registered now. */
static void sk_apply_all(struct sk_cmdline *cl, unsigned long gen,
			 unsigned long max_id)
{
	unsigned long last_id = 0;
	struct sk_object *obj;

	for (;;) {
		sk_lock();
		obj = sk_next_object(last_id, max_id, gen);
		sk_unlock();
		if (!obj)
			break;
		last_id = obj->id;
		sk_apply_pinned(obj, cl, gen);
	}
}

/* ---- fork() (the core's atfork handler calls these) ---- */

/*
 * The two locks sit on either side of the core's in the lock order, so the
 * core's handler takes them in two calls: sk_apply_lock before
 * jump_label_mutex, sk_params_lock after it.  The child thus inherits a
 * consistent state and no lock held by a thread that does not exist in it.
 *
 * sk_apply_lock is skipped when this thread holds it (fork() from a
 * handler) or may hold the loader's lock (fork() from a handler run at
 * registration): waiting for it there would invert the order.  A thread
 * that forks holding jump_label_mutex (inside a key change, or its own
 * jump_label_lock() section), @core_locked, only tries it; held by another
 * thread, it starts afresh in the child as when skipped.
 */
void __sk_params_fork_prepare_apply(bool core_locked)
{
	if (sk_apply_owner || sk_loader)
		return;
	if (!core_locked)
		pthread_mutex_lock(&sk_apply_lock);
	else if (pthread_mutex_trylock(&sk_apply_lock))
		return;
	sk_fork_took_apply = true;
}

/*
 * sk_params_lock is innermost but for the deferred-work lock: never held
 * while another lock is awaited, so whoever holds it lets go soon, even
 * when this thread holds jump_label_mutex.
 */
void __sk_params_fork_prepare_objects(void)
{
	sk_lock();
}

void __sk_params_fork_parent(void)
{
	sk_unlock();
	if (sk_fork_took_apply) {
		sk_fork_took_apply = false;
		pthread_mutex_unlock(&sk_apply_lock);
	}
}

/*
 * Only the forking thread lives on in the child, and it holds what
 * prepare took.  sk_apply_lock stays held if that thread was applying a
 * line (it goes on with it); if another thread held it (prepare skipped
 * it), it starts afresh.  Registrations that other threads were doing are
 * over: their objects take the next line like any other.  References those
 * threads held are leaked, never freed twice.
 */
void __sk_params_fork_child(void)
{
	struct sk_object *obj;

	for (obj = sk_objects; obj; obj = obj->next) {
		if (obj->registering && obj->owner != &sk_self) {
			obj->registering = false;
			obj->applied = 0;
		}
	}
	sk_unlock();
	if (sk_fork_took_apply)
		pthread_mutex_unlock(&sk_apply_lock);
	else if (!sk_apply_owner)
		pthread_mutex_init(&sk_apply_lock, NULL);
	sk_fork_took_apply = false;
}

/* ---- the exported API (include/statickeys/cmdline.h) ---- */

SK_EXPORT int statickeys_parse_cmdline(const char *cmdline)
{
	struct sk_cmdline *cl;
	unsigned long gen, max_id;
	int ret;

	if (!cmdline)
		return -EINVAL;
	if (sk_handlers)
		return -EDEADLK;
	ret = sk_cmdline_build(&cl, cmdline);
	if (ret)
		return ret;
	pthread_mutex_lock(&sk_apply_lock);
	sk_apply_owner = true;
	sk_lock();
	sk_env_read = true;	/* the program's line replaces the env's */
	sk_cmdline_put(sk_cmdline);
	sk_cmdline = cl;
	cl->refs++;		/* ours, while we apply it */
	gen = ++sk_cmdline_gen;
	max_id = sk_last_id;
	sk_unlock();
	sk_apply_all(cl, gen, max_id);
	sk_lock();
	sk_cmdline_put(cl);
	sk_unlock();
	sk_apply_owner = false;
	pthread_mutex_unlock(&sk_apply_lock);
	return 0;
}

/* The current line, with a reference, or NULL for an empty one. */
static struct sk_cmdline *sk_current(void)
{
	struct sk_cmdline *cl;

	sk_lock();
	sk_read_env();
	cl = sk_cmdline_get();
	sk_unlock();
	return cl;
}

static void sk_release(struct sk_cmdline *cl)
{
	sk_lock();
	sk_cmdline_put(cl);
	sk_unlock();
}

SK_EXPORT size_t statickeys_cmdline_unknown(void (*fn)(const char *, void *),
					    void *arg)
{
	struct sk_cmdline *cl = sk_current();
	size_t i, n = 0;

	for (i = 0; cl && i < cl->nr_words; i++) {
		if (__atomic_load_n(&cl->words[i].claimed, __ATOMIC_RELAXED))
			continue;
		n++;
		if (fn)
			fn(cl->lines + cl->words[i].off, arg);
	}
	sk_release(cl);
	return n;
}

SK_EXPORT size_t statickeys_cmdline(char *buf, size_t size)
{
	struct sk_cmdline *cl = sk_current();
	size_t len = cl ? cl->text_len : 0, n;

	if (size) {
		n = len < size ? len : size - 1;
		if (n)
			memcpy(buf, cl->text, n);
		buf[n] = '\0';
	}
	sk_release(cl);
	return len;
}
