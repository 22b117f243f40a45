// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * kstrtobool() against the Linux 6.1 table: every accepted first character,
 * "on"/"off" in every case, the rejected inputs, and @res left alone on error.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <linux/kstrtox.h>

#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct row {
	const char *s;
	int ret;
	bool val;
};

#define BAD(s)	{ s, -EINVAL, false }

static const struct row rows[] = {
	/* accepted first characters, alone and followed by anything */
	{ "y", 0, true }, { "Y", 0, true }, { "t", 0, true },
	{ "T", 0, true }, { "1", 0, true },
	{ "n", 0, false }, { "N", 0, false }, { "f", 0, false },
	{ "F", 0, false }, { "0", 0, false },
	{ "yes", 0, true }, { "true", 0, true }, { "10", 0, true },
	{ "Yx", 0, true }, { "no", 0, false }, { "false", 0, false },
	{ "0x1", 0, false }, { "nonsense", 0, false },
	/* "on" and "off" in all cases; only the second character counts */
	{ "on", 0, true }, { "oN", 0, true }, { "On", 0, true },
	{ "ON", 0, true }, { "off", 0, false }, { "oFF", 0, false },
	{ "Off", 0, false }, { "OFF", 0, false }, { "of", 0, false },
	{ "OF", 0, false }, { "onion", 0, true }, { "oFx", 0, false },
	/* rejected */
	BAD(NULL), BAD(""), BAD("o"), BAD("O"), BAD("ox"), BAD("oo"),
	BAD("o1"), BAD("2"), BAD("-1"), BAD("+1"), BAD(" y"), BAD("\ty"),
	BAD("\n1"), BAD("maybe"), BAD("enable"), BAD("disable"), BAD("x"),
	BAD("\"y\""), BAD("\xff"),
};

static const char *show(const char *s)
{
	static char buf[64];
	size_t i, n = 0;

	if (!s)
		return "NULL";
	buf[n++] = '"';
	for (i = 0; s[i] && n < sizeof(buf) - 8; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f)
			buf[n++] = c;
		else
			n += sprintf(buf + n, "\\x%02x", c);
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

/* Run one row twice, with @res preset to each value. */
static void check_row(const struct row *r)
{
	bool a = true, b = false;
	int ra = kstrtobool(r->s, &a);
	int rb = kstrtobool(r->s, &b);
	bool ok;

	if (r->ret)
		ok = ra == r->ret && rb == r->ret && a && !b;
	else
		ok = ra == 0 && rb == 0 && a == r->val && b == r->val;
	tap_ok(ok, "kstrtobool(%s) = %d%s", show(r->s), r->ret,
	       r->ret ? " and res untouched" : r->val ? ", true" : ", false");
}

/* Every first byte: accepted exactly for the ten letters and digits. */
static void check_all_first_bytes(void)
{
	const char *yes = "yYtT1", *no = "nNfF0";
	int c, bad = 0;

	for (c = 1; c < 256; c++) {
		char s[2] = { (char)c, 0 };
		bool v = false;
		int ret = kstrtobool(s, &v);
		bool want_true = strchr(yes, c) != NULL;
		bool want_false = strchr(no, c) != NULL;

		if (want_true || want_false)
			bad += ret != 0 || v != want_true;
		else
			bad += ret != -EINVAL;
	}
	tap_ok(!bad, "all 255 one-byte strings (%d wrong)", bad);
}

/* Every byte after 'o'/'O': only n/N and f/F are accepted. */
static void check_all_second_bytes(void)
{
	int c, o, bad = 0;

	for (o = 0; o < 2; o++) {
		for (c = 0; c < 256; c++) {
			char s[3] = { o ? 'O' : 'o', (char)c, 0 };
			bool v = !(c == 'n' || c == 'N');
			int ret = kstrtobool(s, &v);

			if (c == 'n' || c == 'N')
				bad += ret != 0 || !v;
			else if (c == 'f' || c == 'F')
				bad += ret != 0 || v;
			else
				bad += ret != -EINVAL;
		}
	}
	tap_ok(!bad, "all 512 'o?' strings (%d wrong)", bad);
}

/* The kernel name is an asm label for the prefixed symbol. */
int sk_exported(const char *s, bool *res) __asm__("statickeys_kstrtobool");

int main(void)
{
	size_t i;

	tap_plan((int)ARRAY_SIZE(rows) + 3);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		check_row(&rows[i]);
	check_all_first_bytes();
	check_all_second_bytes();
	tap_ok(sk_exported == kstrtobool,
	       "kstrtobool is the symbol statickeys_kstrtobool");
	return tap_exit();
}
