// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The boot command line of the process: where it comes from, how it is split
 * into words (as the kernel's next_arg() does) and how the words reach the
 * early_param() and __setup() handlers of every registered object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "params.h"

/* How much of a word a message echoes before "...". */
#define SK_ECHO_MAX	96

/*
 * One word of the command line.  The canonical text of every word is kept
 * in sk_cmdline.lines as "name=value" (or "name"), quotes removed: the form
 * the kernel rebuilds for __setup() handlers and prints for unknown words.
 */
struct sk_word {
	size_t off;		/* of the word in lines */
	size_t name_len;	/* the '=' (if any) is at off + name_len */
	bool has_val;
	bool claimed;		/* some registered parameter took it */
};

struct sk_cmdline {
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

struct sk_object {
	struct sk_object *next;
	const struct obs_kernel_param *start, *stop;
	struct sk_strings *strings;
	bool dead;		/* unloaded from one of its own handlers */
	char name[];
};

/*
 * sk_params_lock covers everything below and is held while handlers run,
 * so that two command lines never interleave and an object cannot go away
 * under its handlers.  Lock order: sk_params_lock, then the jump-label lock
 * (taken by static_key_enable() inside handlers); the core therefore calls
 * us without its lock.  sk_params_owner tells a thread that re-enters from
 * a handler or callback that it already holds the lock.
 */
static pthread_mutex_t sk_params_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread bool sk_params_owner;
static struct sk_cmdline sk_cmdline;
static bool sk_env_read;
static struct sk_object *sk_objects;	/* in registration order */

/* Returns false when this thread holds the lock already. */
static bool sk_lock(void)
{
	if (sk_params_owner)
		return false;
	pthread_mutex_lock(&sk_params_lock);
	sk_params_owner = true;
	return true;
}

static void sk_unlock(void)
{
	sk_params_owner = false;
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
	free(cl->text);
	free(cl->lines);
	free(cl->words);
	memset(cl, 0, sizeof(*cl));
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

static int sk_cmdline_build(struct sk_cmdline *cl, const char *text)
{
	size_t len = strlen(text);
	char *work;
	int ret = -ENOMEM;

	memset(cl, 0, sizeof(*cl));
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
	return ret;
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
 * The early pass: every early_param() whose name is the word's name gets
 * the value.  @name is the object's private copy, cut at the '='.  The
 * bounds are re-read from @obj because a handler may unload it.
 */
static void sk_early_word(struct sk_object *obj, struct sk_word *w,
			  char *name, const char *canon)
{
	char *val = w->has_val ? name + w->name_len + 1 : NULL;
	const struct obs_kernel_param *p;

	for (p = obj->start; p < obj->stop; p++) {
		if (!p->early || !p->str || !sk_parameq(name, p->str))
			continue;
		w->claimed = true;
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

	for (p = obj->start; p < obj->stop; p++) {
		if (!p->str)
			continue;
		n = strlen(p->str);
		if (!sk_parameqn(line, p->str, n))
			continue;
		if (p->early) {
			if (line[n] == '\0' || line[n] == '=')
				w->claimed = true;
			continue;
		}
		if (!p->setup_func)
			sk_report(p->str, "obsolete parameter, ignored");
		if (!p->setup_func || p->setup_func(line + n)) {
			w->claimed = true;
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
	s->next = obj->strings;
	obj->strings = s;
	return s->buf;
}

/*
 * Run the current command line through @obj's entries: the whole line
 * through the early_param()s, then the whole line through the __setup()s,
 * each pass on its own copy as in the kernel.
 */
static void sk_apply_object(struct sk_object *obj)
{
	struct sk_cmdline *cl = &sk_cmdline;
	char *early, *setup;
	size_t i;

	if (!cl->nr_words || obj->start >= obj->stop)
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
	for (i = 0; i < cl->nr_words; i++)
		sk_early_word(obj, &cl->words[i], early + cl->words[i].off,
			      cl->lines + cl->words[i].off);
	for (i = 0; i < cl->nr_words; i++)
		sk_setup_word(obj, &cl->words[i], setup + cl->words[i].off);
}

/* Apply to the objects registered now, not to those a handler adds. */
static void sk_apply_all(void)
{
	struct sk_object *obj, *last = sk_objects;

	while (last && last->next)
		last = last->next;
	for (obj = sk_objects; obj; obj = obj->next) {
		sk_apply_object(obj);
		if (obj == last)
			break;
	}
}

/*
 * The environment's command line, once.  secure_getenv(): a set-user-ID
 * program does not let its caller flip its keys.
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

/* ---- the core's interface (kernel/params.h) ---- */

static struct sk_object *sk_object_new(const struct obs_kernel_param *start,
				       const struct obs_kernel_param *stop,
				       const char *objname)
{
	size_t len = objname ? strlen(objname) : 0;
	struct sk_object *obj;

	obj = calloc(1, offsetof(struct sk_object, name) + len + 1);

	if (!obj)
		return NULL;
	obj->start = start;
	obj->stop = stop;
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

void __sk_params_register_object(const struct obs_kernel_param *start,
				 const struct obs_kernel_param *stop,
				 const char *objname)
{
	bool locked = sk_lock();	/* false: dlopen() from a handler */
	struct sk_object *obj;

	sk_read_env();
	obj = sk_object_new(start, stop, objname);
	if (obj) {
		sk_object_append(obj);
		sk_apply_object(obj);
	} else {
		sk_report(objname, "out of memory, command line not applied");
	}
	if (locked)
		sk_unlock();
}

static void sk_object_free(struct sk_object *obj)
{
	struct sk_strings *s;

	while ((s = obj->strings)) {
		obj->strings = s->next;
		free(s);
	}
	free(obj);
}

void __sk_params_unregister_object(const struct obs_kernel_param *start)
{
	bool locked = sk_lock();
	struct sk_object **pp, *obj;

	for (pp = &sk_objects; (obj = *pp); pp = &obj->next)
		if (obj->start == start && !obj->dead)
			break;
	if (obj && !locked) {
		/* dlclose() from a handler: its caller may walk @obj still. */
		obj->start = obj->stop = NULL;
		obj->dead = true;
	} else if (obj) {
		*pp = obj->next;
		sk_object_free(obj);
	}
	if (locked)
		sk_unlock();
}

/*
 * fork(): the core's handler holds the parameter lock across it, unless the
 * forking thread holds it already (a handler that forks).
 */
static bool sk_fork_took_lock;

void __sk_params_fork_prepare(void)
{
	sk_fork_took_lock = sk_lock();
}

static void sk_fork_release(void)
{
	if (sk_fork_took_lock)
		sk_unlock();
	sk_fork_took_lock = false;
}

void __sk_params_fork_parent(void)
{
	sk_fork_release();
}

void __sk_params_fork_child(void)
{
	sk_fork_release();
}

/* ---- the exported API (include/statickeys/cmdline.h) ---- */

SK_EXPORT int statickeys_parse_cmdline(const char *cmdline)
{
	struct sk_cmdline cl;
	int ret;

	if (!cmdline)
		return -EINVAL;
	ret = sk_cmdline_build(&cl, cmdline);
	if (ret)
		return ret;
	if (!sk_lock()) {
		sk_cmdline_free(&cl);
		return -EDEADLK;
	}
	sk_env_read = true;	/* the program's line replaces the env's */
	sk_cmdline_free(&sk_cmdline);
	sk_cmdline = cl;
	sk_apply_all();
	sk_unlock();
	return 0;
}

SK_EXPORT size_t statickeys_cmdline_unknown(void (*fn)(const char *, void *),
					    void *arg)
{
	struct sk_cmdline *cl = &sk_cmdline;
	size_t i, n = 0;

	if (!sk_lock())
		return 0;
	sk_read_env();
	for (i = 0; i < cl->nr_words; i++) {
		if (cl->words[i].claimed)
			continue;
		n++;
		if (fn)
			fn(cl->lines + cl->words[i].off, arg);
	}
	sk_unlock();
	return n;
}

SK_EXPORT size_t statickeys_cmdline(char *buf, size_t size)
{
	size_t len, n;

	if (!sk_lock()) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	sk_read_env();
	len = sk_cmdline.text_len;
	if (size) {
		n = len < size ? len : size - 1;
		if (n)
			memcpy(buf, sk_cmdline.text, n);
		buf[n] = '\0';
	}
	sk_unlock();
	return len;
}
