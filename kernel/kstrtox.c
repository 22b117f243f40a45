// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * kstrtobool() with the semantics of Linux 6.1 lib/kstrtox.c: one or two
 * leading characters decide, the rest of the string is never looked at.
 */
#include <errno.h>
#include <stddef.h>

#include <linux/kstrtox.h>

/*
 * Values: 1 true, 0 false, -1 "look at the next character" (only 'o'),
 * -2 not a boolean.
 */
static int first_char_value(char c)
{
	switch (c) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		return -1;
	default:
		return -2;
	}
}

/* After an 'o': "on" and "off" (only the 'f' is looked at). */
static int second_char_value(char c)
{
	if (c == 'n' || c == 'N')
		return 1;
	if (c == 'f' || c == 'F')
		return 0;
	return -2;
}

SK_EXPORT int kstrtobool(const char *s, bool *res)
{
	int v;

	if (!s)
		return -EINVAL;
	v = first_char_value(s[0]);
	if (v == -1)
		v = second_char_value(s[1]);
	if (v < 0)
		return -EINVAL;
	*res = v;
	return 0;
}
