// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The start-up report of boot parameters nobody took, the user-space
 * counterpart of the kernel's "Unknown kernel command line parameters"
 * line.  The moment and the rule are in Documentation/boot-params.rst.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statickeys/cmdline.h>
#include "internal.h"
#include "object_hooks.h"
#include "params_internal.h"

#define UNKNOWN_ENV	"STATICKEYS_UNKNOWN_PARAMS"
#define UNKNOWN_ECHO	96	/* bytes of one word echoed before "..." */

struct unknown_line {
	FILE *f;
	size_t words;
};

/* @s as one line: unprintable bytes and '\' as \xNN, cut after @max. */
static void put_escaped(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	if (s[i])
		fputs("...", f);
}

/*
 * A dotted name ("plugin.level") is the kernel's form of a module's
 * parameter: left to an object that a dlopen() may bring later.
 */
static bool left_to_later(const char *word)
{
	size_t name = strcspn(word, "=");

	return memchr(word, '.', name) != NULL;
}

/*
 * One word, spelled so that the line reads back as the same words: as it
 * is, or in double quotes when it holds a space, whichever the parser
 * (sk_word_reads_back()) reads as this word.  A word with quotes of its
 * own inside (a"b c"d) reads back only as it is: the added quotes would
 * end at its first one.
 */
static void add_word(const char *word, void *arg)
{
	struct unknown_line *l = arg;
	bool quote = strchr(word, ' ') != NULL;
	char *quoted;

	if (left_to_later(word))
		return;
	if (quote && strchr(word, '"') && asprintf(&quoted, "\"%s\"", word) >= 0) {
		quote = sk_word_reads_back(quoted, word) ||
			!sk_word_reads_back(word, word);
		free(quoted);
	}
	fputs(quote ? " \"" : " ", l->f);
	put_escaped(l->f, word, UNKNOWN_ECHO);
	if (quote)
		fputc('"', l->f);
	l->words++;
}

/* The switch in the environment; a value it does not know is named. */
static bool quiet_by_env(void)
{
	const char *v = secure_getenv(UNKNOWN_ENV);
	char *shown;
	size_t len;
	FILE *f;

	if (!v || !*v || !strcmp(v, "report"))
		return false;
	if (!strcmp(v, "quiet"))
		return true;
	f = open_memstream(&shown, &len);
	if (!f) {
		sk_warn(UNKNOWN_ENV ": unknown value, reporting");
		return false;
	}
	put_escaped(f, v, UNKNOWN_ECHO);
	if (fclose(f))
		return false;
	sk_warn(UNKNOWN_ENV "=%s: expected \"report\" or \"quiet\", reporting",
		shown);
	free(shown);
	return false;
}

/*
 * Reported when the main program registered: its constructors run after
 * those of every object loaded with it, so every parameter known at
 * start-up has had its word.  Once per process (a fork() child does not
 * register again).  The line is built first and written with one call.
 */
static void report_unknown(bool quiet)
{
	static bool done;
	struct unknown_line l = { NULL, 0 };
	char *text;
	size_t len;

	if (__atomic_exchange_n(&done, true, __ATOMIC_RELAXED))
		return;
	if (quiet_by_env() || quiet || !statickeys_cmdline_unknown(NULL, NULL))
		return;
	l.f = open_memstream(&text, &len);
	if (!l.f)
		return;
	fputs("statickeys: unknown command line parameters:", l.f);
	statickeys_cmdline_unknown(add_word, &l);
	fputc('\n', l.f);
	if (fclose(l.f))
		return;
	if (l.words)
		fputs(text, stderr);
	free(text);
}

/* Before the other start-up reports (introspection's table). */
static void unknown_object_ready(const struct statickeys_object *d,
				 bool main_program)
{
	if (main_program)
		report_unknown(d->flags & STATICKEYS_OBJ_UNKNOWN_QUIET);
}

SK_OBJECT_HOOK(unknown_object_hook) = {
	.order = SK_HOOK_FIRST,
	.ready = unknown_object_ready,
};
