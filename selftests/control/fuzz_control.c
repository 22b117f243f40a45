// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libFuzzer target of the control channel's request parser
 * (kernel/control_parse.c), linked alone: any bytes a peer may send, as
 * the server hands them over (up to the first newline).  Beyond the
 * sanitizers, it checks the parser's promises: a refusal says why in one
 * terminated line; an accepted "set" names a key of the allowed characters
 * and nothing is accepted that holds a byte outside printable ASCII.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernel/control.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sk_control_req req;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size, i;
	char why[512];
	int ret;

	memset(why, 'x', sizeof(why));
	ret = sk_control_parse((const char *)data, len, &req, why, sizeof(why));
	if (ret) {
		check(ret < 0 && why[0] && memchr(why, '\0', sizeof(why)) &&
		      !strchr(why, '\n'));
		return 0;
	}
	check(len < SK_CONTROL_LINE_MAX);
	for (i = 0; i < len; i++)
		check(data[i] == '\t' || (data[i] >= 0x20 && data[i] < 0x7f));
	check(strlen(req.arg) < SK_CONTROL_LINE_MAX);
	if (req.op == SK_CONTROL_SET) {
		check(req.arg[0] && strlen(req.arg) < SK_CONTROL_NAME_MAX);
		check(strspn(req.arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$") ==
		      strlen(req.arg));
	}
	if (req.op == SK_CONTROL_DYNDBG)
		check(req.arg[0] && req.arg[0] != ' ' && req.arg[0] != '\t');
	return 0;
}
