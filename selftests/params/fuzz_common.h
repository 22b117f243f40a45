/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * One fuzz input through the real parser, shared by the libFuzzer target
 * fuzz_cmdline.c and the plain replay test test_corpus_replay.c.
 */
#ifndef _SELFTESTS_PARAMS_FUZZ_COMMON_H
#define _SELFTESTS_PARAMS_FUZZ_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "../../kernel/params.h"

extern struct obs_kernel_param __start___sk_setup[], __stop___sk_setup[];

/* A hash of every handler call, to compare two ways of applying a line. */
static uint64_t fz_trace;

static void fz_mix(const char *tag, const char *s)
{
	const char *p;

	for (p = tag; *p; p++)
		fz_trace = (fz_trace ^ (unsigned char)*p) * 0x100000001b3ULL;
	fz_trace = (fz_trace ^ 0x1ff) * 0x100000001b3ULL;
	for (p = s ? s : ""; *p; p++)	/* reads every byte handed over */
		fz_trace = (fz_trace ^ (unsigned char)*p) * 0x100000001b3ULL;
}

static bool fz_bool_val;

/* The key-less boolean: what early_param_key() does, minus the key. */
static int fz_bool(char *val)
{
	bool v;

	fz_mix("bool", val);
	if (kstrtobool(val, &v))
		return -EINVAL;
	fz_bool_val = v;
	return 0;
}
early_param("fz_bool", fz_bool);

static int fz_str(char *val)
{
	fz_mix("str", val);
	if (val && *val)
		val[0] ^= 1;	/* handlers may write their copy */
	return 0;
}
early_param("fz-str", fz_str);
early_param("fz_bool", fz_str);	/* two early entries, one name */

static int fz_setup(char *rest)
{
	fz_mix("setup", rest);
	return rest[0] != 'x';
}
__setup("fz_setup=", fz_setup);

static int fz_prefix(char *rest)
{
	fz_mix("prefix", rest);
	return 0;			/* never takes the word */
}
__setup("fz", fz_prefix);

static size_t fz_len;
static int fz_bad_words;

static void fz_check_word(const char *word, void *arg)
{
	(void)arg;
	if (!*word || strlen(word) > fz_len)
		fz_bad_words++;
}

/*
 * Feed @data as a command line (up to its first NUL, as a C string is).
 * The register path and the statickeys_parse_cmdline() path must make the
 * same handler calls.  Returns 0, or the number of the failed check.
 */
static int fz_one(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), *back;
	uint64_t by_register;
	int ret = 0;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	fz_len = strlen(line);
	fz_bad_words = 0;
	if (statickeys_parse_cmdline(line))
		ret = 1;
	fz_trace = 0;
	__sk_params_register_object(__start___sk_setup, __stop___sk_setup,
				    "fuzz");
	by_register = fz_trace;
	fz_trace = 0;
	if (!ret && statickeys_parse_cmdline(line))
		ret = 2;
	if (!ret && fz_trace != by_register)
		ret = 3;
	if (!ret && statickeys_cmdline_unknown(fz_check_word, NULL) > fz_len)
		ret = 4;
	if (!ret && fz_bad_words)
		ret = 5;
	back = malloc(fz_len + 1);
	if (!ret && back && (statickeys_cmdline(back, fz_len + 1) != fz_len ||
			     strcmp(back, line)))
		ret = 6;
	__sk_params_unregister_object(__start___sk_setup);
	free(back);
	free(line);
	return ret;
}

#endif /* _SELFTESTS_PARAMS_FUZZ_COMMON_H */
