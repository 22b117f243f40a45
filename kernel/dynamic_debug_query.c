// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The dynamic-debug query language, as the kernel reads it:
 *
 *	[keyword value]... flags	with several queries separated by ';'
 *
 * keywords: file (a glob, optionally "file:func" or "file:lines"), func,
 * module (globs), format (a substring, "^" anchors it), line (N, N-M, -M,
 * N-); flags: one of + - = and letters of "pflmt", or "_" for none.
 * Every query of a call is parsed before any is run; a wrong word fails
 * the whole call with a message naming it.
 */
#ifdef CONFIG_DYNAMIC_DEBUG

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library has no sites of its own: no table to register. */
#define __SK_DYNDBG_NO_TABLE
#include <linux/dynamic_debug.h>
#include "ddebug.h"

/* As the kernel: a keyword for each of the five, and the flags. */
#define DDEBUG_MAXWORDS	11

static const struct {
	char c;
	unsigned int flag;
} ddebug_flag_chars[] = {
	{ 'p', _DPRINTK_FLAGS_PRINT },
	{ 'm', _DPRINTK_FLAGS_INCL_MODNAME },
	{ 'f', _DPRINTK_FLAGS_INCL_FUNCNAME },
	{ 'l', _DPRINTK_FLAGS_INCL_LINENO },
	{ 't', _DPRINTK_FLAGS_INCL_TID },
	{ '_', _DPRINTK_FLAGS_NONE },
};

/* The calling thread's last complaint, for ddebug_last_bad(). */
static __thread char ddebug_why[160];

static void ddebug_bad(const char *what, const char *word)
{
	fprintf(stderr, "dyndbg: %s \"%s\"\n", what, word);
	snprintf(ddebug_why, sizeof(ddebug_why), "%s \"%.64s\"", what, word);
}

const char *ddebug_last_bad(void)
{
	return ddebug_why;
}

/* '*' any run, '?' one character; nothing else is special. */
static bool ddebug_glob(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

/*
 * A file matches by its whole name as compiled (__FILE__), or by any tail
 * that starts after a '/': "asn1_decoder.c" and "lib/asn1_decoder.c" both
 * name /usr/src/linux/lib/asn1_decoder.c.
 */
static bool ddebug_file_matches(const char *pat, const char *file)
{
	const char *p;

	if (ddebug_glob(pat, file))
		return true;
	for (p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (ddebug_glob(pat, p + 1))
			return true;
	return false;
}

/* @pat against @s, or what it gave last time for the same pointer @s. */
static bool ddebug_cached(bool (*match)(const char *, const char *),
			  const char *pat, const char *s,
			  const char **last, bool *ok)
{
	if (*last != s) {
		*ok = match(pat, s);
		*last = s;
	}
	return *ok;
}

/* @cache starts zeroed for each query and table (see ddebug.h). */
bool ddebug_query_matches(const struct ddebug_query *q,
			  const struct _ddebug *dp,
			  struct ddebug_match_cache *c)
{
	if (q->filename && !ddebug_cached(ddebug_file_matches, q->filename,
					  dp->filename, &c->filename,
					  &c->filename_ok))
		return false;
	if (q->module && !ddebug_cached(ddebug_glob, q->module,
					dp->modname ? dp->modname : "",
					&c->module, &c->module_ok))
		return false;
	if (q->function && !ddebug_cached(ddebug_glob, q->function,
					  dp->function, &c->function,
					  &c->function_ok))
		return false;
	if (q->format) {
		if (q->format_anchored ?
		    strncmp(dp->format, q->format, strlen(q->format)) :
		    !strstr(dp->format, q->format))
			return false;
	}
	if (q->first_lineno && dp->lineno < q->first_lineno)
		return false;
	if (q->last_lineno && dp->lineno > q->last_lineno)
		return false;
	return true;
}

/*
 * Cut @s into words at white space, in place; "..." and '...' keep white
 * space.  Return: the number of words, or -E2BIG, or -EINVAL.
 */
static int ddebug_tokenize(char *s, char *words[], int max)
{
	int n = 0;

	for (;;) {
		char *end;

		s += strspn(s, " \t\r\f\v");
		if (!*s || *s == '#')
			return n;
		if (n == max) {
			ddebug_bad("too many words, from", s);
			return -E2BIG;
		}
		if (*s == '"' || *s == '\'') {
			end = strchr(s + 1, *s);
			if (!end) {
				ddebug_bad("unclosed quote in", s);
				return -EINVAL;
			}
			words[n++] = ++s;
		} else {
			end = s + strcspn(s, " \t\r\f\v");
			words[n++] = s;
			if (!*end)
				return n;
		}
		*end = '\0';
		s = end + 1;
	}
}

/* The kernel's escapes in a format: \n \t \\ and octal \ooo, in place. */
static void ddebug_unescape(char *s)
{
	char *out = s;

	while (*s) {
		int i, v;

		if (*s != '\\' || !s[1]) {
			*out++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			*out++ = '\n';
			s++;
			break;
		case 't':
			*out++ = '\t';
			s++;
			break;
		default:
			if (*s < '0' || *s > '7') {
				*out++ = *s++;
				break;
			}
			for (i = 0, v = 0; i < 3 && *s >= '0' && *s <= '7'; i++)
				v = v * 8 + *s++ - '0';
			*out++ = (char)v;
		}
	}
	*out = '\0';
}

static int ddebug_lineno(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!*s) {
		*out = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > UINT_MAX)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* "N", "N-M", "-M" (from the start), "N-" (to the end). */
static int ddebug_linerange(struct ddebug_query *q, char *range)
{
	char *last = strchr(range, '-');
	char *word = range;

	if (q->first_lineno || q->last_lineno) {
		ddebug_bad("keyword given twice:", "line");
		return -EINVAL;
	}
	if (last)
		*last++ = '\0';
	if (ddebug_lineno(range, &q->first_lineno) ||
	    (last && ddebug_lineno(last, &q->last_lineno)))
		goto bad;
	if (!last)
		q->last_lineno = q->first_lineno;
	else if (!q->last_lineno)
		q->last_lineno = UINT_MAX;
	if (!q->last_lineno || q->last_lineno < q->first_lineno)
		goto bad;
	return 0;
bad:
	if (last)
		last[-1] = '-';
	ddebug_bad("bad line range", word);
	return -EINVAL;
}

static int ddebug_set(const char **field, char *val, const char *keyword)
{
	if (*field) {
		ddebug_bad("keyword given twice:", keyword);
		return -EINVAL;
	}
	*field = val;
	return 0;
}

static int ddebug_flags(struct ddebug_query *q, const char *word)
{
	unsigned int set = 0;
	const char *p;
	size_t i;

	if (!strchr("+-=", word[0]) || !word[0]) {
		ddebug_bad("expected flags (+, - or = then letters of pflmt_), not",
			   word);
		return -EINVAL;
	}
	for (p = word + 1; *p; p++) {
		for (i = 0; i < sizeof(ddebug_flag_chars) / sizeof(ddebug_flag_chars[0]); i++)
			if (ddebug_flag_chars[i].c == *p)
				break;
		if (i == sizeof(ddebug_flag_chars) / sizeof(ddebug_flag_chars[0])) {
			char bad[2] = { *p, '\0' };

			fprintf(stderr, "dyndbg: unknown flag '%s' in \"%s\"\n",
				bad, word);
			return -EINVAL;
		}
		set |= ddebug_flag_chars[i].flag;
	}
	switch (word[0]) {
	case '+':
		q->flags = set;
		q->mask = ~0U;
		break;
	case '-':
		q->flags = 0;
		q->mask = ~set;
		break;
	default:
		q->flags = set;
		q->mask = 0;
	}
	return 0;
}

/* "file" takes an optional ":func" or ":lines" after the name. */
static int ddebug_file(struct ddebug_query *q, char *val)
{
	char *tail = strchr(val, ':');
	int ret = ddebug_set(&q->filename, val, "file");

	if (ret || !tail)
		return ret;
	*tail++ = '\0';
	if ((*tail >= '0' && *tail <= '9') || *tail == '-')
		return ddebug_linerange(q, tail);
	return ddebug_set(&q->function, tail, "func");
}

static int ddebug_parse_one(struct ddebug_query *q, char *text,
			    const char *modname)
{
	char *words[DDEBUG_MAXWORDS];
	int n, i, ret;

	memset(q, 0, sizeof(*q));
	n = ddebug_tokenize(text, words, DDEBUG_MAXWORDS);
	if (n <= 0)
		return n;
	if (!(n & 1)) {
		ddebug_bad(n == 1 ? "expected flags, got" :
			   "expected keyword value pairs then flags, odd word",
			   words[n - 1]);
		return -EINVAL;
	}
	for (i = 0; i < n - 1; i += 2) {
		char *key = words[i], *val = words[i + 1];

		if (!strcmp(key, "func")) {
			ret = ddebug_set(&q->function, val, key);
		} else if (!strcmp(key, "file")) {
			ret = ddebug_file(q, val);
		} else if (!strcmp(key, "module")) {
			ret = ddebug_set(&q->module, val, key);
		} else if (!strcmp(key, "format")) {
			if (*val == '^') {
				q->format_anchored = true;
				val++;
			}
			ddebug_unescape(val);
			ret = ddebug_set(&q->format, val, key);
		} else if (!strcmp(key, "line")) {
			ret = ddebug_linerange(q, val);
		} else {
			ddebug_bad("unknown keyword", key);
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	ret = ddebug_flags(q, words[n - 1]);
	if (ret)
		return ret;
	/* $module.dyndbg=: every query is about that object. */
	if (modname)
		q->module = modname;
	return 1;
}

void ddebug_free_queries(struct ddebug_queries *qs)
{
	free(qs->q);
	free(qs->text);
	memset(qs, 0, sizeof(*qs));
}

int ddebug_parse_queries(const char *text, const char *modname,
			 struct ddebug_queries *out)
{
	size_t max = 1, len = strlen(text) + 1;
	char *s, *next;
	const char *p;
	int ret;

	memset(out, 0, sizeof(*out));
	ddebug_why[0] = '\0';
	for (p = text; *p; p++)
		max += *p == ';' || *p == '\n';
	/* The copy keeps @modname too: the queries point into it. */
	out->text = malloc(len + (modname ? strlen(modname) + 1 : 0));
	out->q = calloc(max, sizeof(*out->q));
	if (!out->text || !out->q) {
		ddebug_free_queries(out);
		return -ENOMEM;
	}
	memcpy(out->text, text, len);
	if (modname)
		modname = strcpy(out->text + len, modname);
	for (s = out->text; s; s = next) {
		next = strpbrk(s, ";\n");
		if (next)
			*next++ = '\0';
		ret = ddebug_parse_one(&out->q[out->nr], s, modname);
		if (ret < 0) {
			ddebug_free_queries(out);
			return ret;
		}
		out->nr += ret;
	}
	return 0;
}

#endif /* CONFIG_DYNAMIC_DEBUG */
