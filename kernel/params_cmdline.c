// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A boot command line as words: how it is split (as the kernel's
 * next_arg() does), how a word matches a parameter (parameq(),
 * obsolete_checksetup()) and how the words run through the early_param()
 * and __setup() entries of one object.  The objects, their locks and
 * when a line is applied are kernel/params.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/init.h>

#include "params_internal.h"

/* How much of a word a message echoes before "...". */
#define SK_ECHO_MAX	96

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
void sk_report(const char *word, const char *what)
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

bool sk_word_reads_back(const char *text, const char *word)
{
	char *copy = strdup(text), *name, *val, *rest;
	size_t nlen;
	bool same;

	if (!copy)
		return false;
	rest = sk_next_word(copy, &name, &val);
	nlen = strlen(name);
	same = !*rest && !strncmp(word, name, nlen) &&
	       (val ? word[nlen] == '=' && !strcmp(word + nlen + 1, val)
		    : !word[nlen]);
	free(copy);
	return same;
}

void sk_cmdline_free(struct sk_cmdline *cl)
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
int sk_cmdline_build(struct sk_cmdline **out, const char *text)
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

/*
 * The words of @cl through @obj's entries: the whole line through the
 * early_param()s, then the whole line through the __setup()s, each pass on
 * its own copy as in the kernel.
 */
void sk_cmdline_run(struct sk_object *obj, const struct sk_cmdline *cl,
		    char *copies)
{
	char *early = copies, *setup = copies + cl->lines_len;
	size_t i;

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
