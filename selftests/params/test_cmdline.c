// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The command-line parser of kernel/params*.c on its own, without the
 * static-key core: the test registers its own __sk_setup section by hand.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/init.h>
#include <statickeys/cmdline.h>

#include "../../kernel/params.h"
#include "tap.h"

extern struct obs_kernel_param __start___sk_setup[], __stop___sk_setup[];

/* Every handler call, in order, as "tag:value;" ("tag:-;" for NULL). */
static char calls[4096];

static void log_call(const char *tag, const char *val)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "%s:%s;", tag,
		 val ? val : "-");
}

static bool flag;		/* default false */
static int __init flag_setup(char *val)
{
	bool v;

	log_call("flag", val);
	if (kstrtobool(val, &v))
		return -EINVAL;
	flag = v;
	return 0;
}
early_param("flag", flag_setup);

static const char *str_val;	/* keeps the pointer, as kernel code does */
static int __init str_setup(char *val)
{
	str_val = val;
	return 0;
}
early_param("str", str_setup);

static int __init log_early(char *val)
{
	log_call("early", val);
	return 0;
}
early_param("dash-name", log_early);
early_param("under_score", log_early);
early_param("both", log_early);

/* __setup(): the prefix includes the '=', the handler gets the rest. */
static int __init setup_eq(char *rest)
{
	log_call("setup", rest);
	return strcmp(rest, "reject") != 0;	/* 0: not handled */
}
__setup("mode=", setup_eq);
__setup("both=", setup_eq);

static int __init setup_prefix(char *rest)
{
	log_call("prefix", rest);
	return 1;
}
__setup("pre", setup_prefix);

static int reenter_ret = 1;
static int __init reenter_setup(char *val)
{
	(void)val;
	reenter_ret = statickeys_parse_cmdline("flag=1");
	return 0;
}
early_param("reenter", reenter_setup);

static unsigned long counter;	/* not atomic: the lock must serialise */
static int __init count_setup(char *val)
{
	(void)val;
	counter++;
	return 0;
}
early_param("count", count_setup);

/* A second object, registered and unregistered by hand. */
static int other_calls;
static int other_setup(char *val)
{
	(void)val;
	other_calls++;
	return 0;
}
static struct obs_kernel_param other_table[] = {
	{ "other", other_setup, 1 },
};

/* ---- helpers ---- */

static int capture_fd[2], saved_stderr;

static void capture_begin(void)
{
	fflush(stderr);
	if (pipe(capture_fd))
		abort();
	saved_stderr = dup(2);
	dup2(capture_fd[1], 2);
	close(capture_fd[1]);
}

/* Everything written to stderr since capture_begin(). */
static const char *capture_end(void)
{
	static char buf[8192];
	ssize_t r;
	size_t n = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	while (n < sizeof(buf) - 1 &&
	       (r = read(capture_fd[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += r;
	close(capture_fd[0]);
	buf[n] = '\0';
	return buf;
}

static void reset(void)
{
	calls[0] = '\0';
	flag = false;
	str_val = NULL;
}

/* Parse @line from the defaults, with stderr captured into @err. */
static int parse(const char *line, const char **err)
{
	int ret;

	reset();
	capture_begin();
	ret = statickeys_parse_cmdline(line);
	*err = capture_end();
	return ret;
}

static char unknown[4096];

static void add_unknown(const char *word, void *arg)
{
	size_t n = strlen(unknown);

	(*(int *)arg)++;
	snprintf(unknown + n, sizeof(unknown) - n, "[%s]", word);
}

/* The unknown words as "[w1][w2]", and their number from the API. */
static size_t list_unknown(void)
{
	int seen = 0;
	size_t n;

	unknown[0] = '\0';
	n = statickeys_cmdline_unknown(add_unknown, &seen);
	return (size_t)seen == n ? n : (size_t)-1;
}

/* ---- the checks ---- */

static const char env_line[] = "flag=on \"str=a b\"  env_unknown ";

static void test_environment(void)
{
	char buf[8];
	size_t n;

	tap_ok(flag, "STATICKEYS_CMDLINE applied at registration");
	tap_ok(str_val && !strcmp(str_val, "a b"),
	       "quoted whole word from the environment");
	tap_ok(!strcmp(getenv("STATICKEYS_CMDLINE"), env_line),
	       "environment string left unmodified");
	tap_ok(list_unknown() == 1 && !strcmp(unknown, "[env_unknown]"),
	       "unknown word from the environment listed");
	n = statickeys_cmdline(buf, sizeof(buf));
	tap_ok(n == strlen(env_line) && !strncmp(buf, env_line, 7) &&
	       buf[7] == '\0', "statickeys_cmdline() truncates, returns %zu",
	       n);
}

static void test_quotes(void)
{
	const char *err;

	parse("str=\"hello  world\"", &err);
	tap_ok(str_val && !strcmp(str_val, "hello  world"),
	       "name=\"quoted value\" loses its quotes");
	parse("str=\"x\"y", &err);
	tap_ok(str_val && !strcmp(str_val, "x\"y"),
	       "value quote kept when the word does not end in one");
	parse("str=a\"b c\" flag=1", &err);
	tap_ok(str_val && !strcmp(str_val, "a\"b c\"") && flag,
	       "quotes inside a value protect the space and stay");
	parse("str=\"unterminated flag=1", &err);
	tap_ok(str_val && !strcmp(str_val, "unterminated flag=1") && !flag,
	       "an unterminated quote runs to the end");
	parse("\"\" str=", &err);
	tap_ok(str_val && !strcmp(str_val, "") && list_unknown() == 0,
	       "empty quoted word ignored, empty value passed");
}

static void test_separators(void)
{
	const char *err;

	parse("flag=1 -- flag=0 other", &err);
	tap_ok(flag && !strcmp(calls, "flag:1;") && list_unknown() == 0,
	       "nothing after -- is parsed or listed");
	parse("flag=1 --=x flag=0", &err);
	tap_ok(!flag && list_unknown() == 1 && !strcmp(unknown, "[--=x]"),
	       "--=x is a word, not the separator");
	parse("flag=0\tflag=1\n\v\f\rflag=y", &err);
	tap_ok(flag && !strcmp(calls, "flag:0;flag:1;flag:y;"),
	       "all ASCII white space separates words");
	parse("flag=1 flag=0 flag=n flag=T", &err);
	tap_ok(flag && !strcmp(calls, "flag:1;flag:0;flag:n;flag:T;"),
	       "handlers run in order, the last occurrence wins");
}

static void test_names(void)
{
	const char *err;

	parse("dash_name=1 under-score=2 dash-name=3", &err);
	tap_ok(!strcmp(calls, "early:1;early:2;early:3;") &&
	       list_unknown() == 0, "'-' and '_' are the same in names");
	parse("flagx=1 fla=1 FLAG=1", &err);
	tap_ok(!flag && !calls[0] && list_unknown() == 3,
	       "early_param names match whole and case-sensitively");
	parse("flag", &err);
	tap_ok(!strcmp(calls, "flag:-;"), "a bare word gets a NULL value");
}

static void test_setup(void)
{
	const char *err;

	parse("mode=fast prefix=3 prefix", &err);
	tap_ok(!strcmp(calls, "setup:fast;prefix:fix=3;prefix:fix;") &&
	       list_unknown() == 0, "__setup() gets the rest after a prefix");
	parse("mode=reject", &err);
	tap_ok(!strcmp(calls, "setup:reject;") && list_unknown() == 1 &&
	       !strcmp(unknown, "[mode=reject]"),
	       "__setup() returning 0 leaves the word unknown");
	parse("mode=a both=2 mode=b", &err);
	tap_ok(!strcmp(calls, "early:2;setup:a;setup:2;setup:b;"),
	       "all early_param()s run before any __setup()");
	parse("mode=\"x y\"", &err);
	tap_ok(!strcmp(calls, "setup:x y;"),
	       "__setup() gets the value without its quotes");
}

static void test_malformed(void)
{
	const char *err;

	parse("flag=maybe", &err);
	tap_ok(!flag && !strcmp(err, "statickeys: flag=maybe: invalid value, "
				"keeping the default\n"),
	       "malformed value: one line, default kept");
	parse("flag=1 flag=2", &err);
	tap_ok(flag && !strcmp(err, "statickeys: flag=2: invalid value, "
			       "keeping the default\n"),
	       "malformed value after a good one keeps the good one");
	parse("flag", &err);
	tap_ok(!flag && !strcmp(err, "statickeys: flag: missing value, "
				"keeping the default\n"),
	       "bare boolean parameter: one line");
	parse("flag=\"\x01\\\n\"", &err);
	tap_ok(!strcmp(err, "statickeys: flag=\\x01\\x5c\\x0a: invalid "
			    "value, keeping the default\n"),
	       "unprintable bytes are escaped, the message stays one line");
	parse("flag=1 unknown=1 str=x", &err);
	tap_ok(!err[0], "good and unknown words print nothing");
}

static void test_unknown(void)
{
	const char *err;

	parse("zz=1 flag=1 aa yy=\"q r\" mode=reject", &err);
	tap_ok(list_unknown() == 4 &&
	       !strcmp(unknown, "[zz=1][aa][yy=q r][mode=reject]"),
	       "unknown words listed in order, as name=value");
	tap_ok(statickeys_cmdline_unknown(NULL, NULL) == 4,
	       "a NULL callback only counts");
}

static void test_objects(void)
{
	const char *err;

	parse("other=1 flag=1", &err);
	tap_ok(list_unknown() == 1, "a word of an unloaded object is unknown");
	__sk_params_register_object(other_table, other_table + 1, "other");
	tap_ok(other_calls == 1 && list_unknown() == 0,
	       "a new object gets the current command line");
	parse("other=2", &err);
	tap_ok(other_calls == 2, "statickeys_parse_cmdline() reaches it");
	__sk_params_unregister_object(other_table);
	parse("other=3", &err);
	tap_ok(other_calls == 2 && list_unknown() == 1,
	       "an unregistered object is never called again");
}

static void test_errors(void)
{
	const char *err;

	tap_ok(statickeys_parse_cmdline(NULL) == -EINVAL, "NULL: -EINVAL");
	parse("reenter", &err);
	tap_ok(reenter_ret == -EDEADLK && !flag,
	       "a handler calling statickeys_parse_cmdline() gets -EDEADLK");
}

static char *repeat(const char *word, size_t times, const char *tail)
{
	size_t wl = strlen(word), tl = strlen(tail), i;
	char *s = malloc(wl * times + tl + 1);

	for (i = 0; i < times; i++)
		memcpy(s + i * wl, word, wl);
	memcpy(s + wl * times, tail, tl + 1);
	return s;
}

static void test_overlong(void)
{
	const char *err;
	char *s;
	int ret;

	s = repeat("zz=1 ", 1 << 18, "flag=1");	/* 1.25 MiB */
	ret = parse(s, &err);
	tap_ok(!ret && flag && list_unknown() == 1 << 18,
	       "262144 unknown words then a good one");
	free(s);
	s = repeat("A", 1 << 20, "");
	memcpy(s, "str=", 4);
	ret = parse(s, &err);
	tap_ok(!ret && str_val && strlen(str_val) == (1 << 20) - 4,
	       "a 1 MiB value arrives whole");
	free(s);
	s = repeat("\"", 1 << 20, "");
	ret = parse(s, &err);
	tap_ok(!ret && list_unknown() == 1, "1 MiB of quotes is one word");
	free(s);
}

/* Every byte value but NUL, in a child so that a crash is a failure. */
static int binary_child(void *arg)
{
	unsigned int seed = 1, i, round;
	char s[4097];

	(void)arg;
	for (round = 0; round < 2000; round++) {
		for (i = 0; i < sizeof(s) - 1; i++)
			s[i] = 1 + rand_r(&seed) % 255;
		s[sizeof(s) - 1] = '\0';
		if (statickeys_parse_cmdline(s))
			return 1;
		statickeys_cmdline_unknown(NULL, NULL);
	}
	return 0;
}

static void test_binary(void)
{
	const char *err;
	int devnull = open("/dev/null", O_WRONLY), saved = dup(2), st;

	dup2(devnull, 2);
	st = tap_fork(binary_child, NULL);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	tap_ok(st == 0, "2000 random binary lines parsed (status %d)", st);
	parse("flag=\xff\xfe" "1 str=\x80\x7f", &err);
	tap_ok(!flag && str_val && !strcmp(str_val, "\x80\x7f") &&
	       strstr(err, "flag=\\xff\\xfe1:"),
	       "high bytes stay in the word and are escaped in messages");
}

static void *count_thread(void *arg)
{
	int i;

	for (i = 0; i < 2000; i++)
		statickeys_parse_cmdline("count count count");
	return arg;
}

static void test_threads(void)
{
	pthread_t t[4];
	int i;

	counter = 0;
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, count_thread, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	tap_ok(counter == 4 * 2000 * 3,
	       "4 threads x 2000 lines: %lu handler calls", counter);
}

int main(void)
{
	tap_plan(40);
	setenv("STATICKEYS_CMDLINE", env_line, 1);
	__sk_params_register_object(__start___sk_setup, __stop___sk_setup,
				    "test_cmdline");
	test_environment();
	test_quotes();
	test_separators();
	test_names();
	test_setup();
	test_malformed();
	test_unknown();
	test_objects();
	test_errors();
	test_overlong();
	test_binary();
	test_threads();
	__sk_params_unregister_object(__start___sk_setup);
	return tap_exit();
}
