// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The control channel's request parser: one line of printable ASCII,
 *
 *	keys | sites | set NAME on|off | dyndbg QUERY
 *
 * words separated by spaces or tabs.  Everything a peer sends is checked
 * here before anything runs; the query is handed on as text and parsed
 * again by the query language's own parser (kernel/dynamic_debug_query.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "control.h"

static int bad(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c == '.' || c == '$')
		return true;
	return !first && c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* A symbol name, or 0x and 1 to 16 hexadecimal digits. */
static bool valid_name(const char *s, size_t n)
{
	size_t i;

	if (n >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (n > 2 + 16)
			return false;
		for (i = 2; i < n; i++)
			if (!is_hex(s[i]))
				return false;
		return true;
	}
	if (!n || n >= SK_CONTROL_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!is_name_char(s[i], i == 0))
			return false;
	return true;
}

/* The next word of @s[*pos..@len): its start and length; 0 at the end. */
static size_t next_word(const char *s, size_t len, size_t *pos,
			const char **word)
{
	size_t start;

	while (*pos < len && is_blank(s[*pos]))
		(*pos)++;
	start = *pos;
	while (*pos < len && !is_blank(s[*pos]))
		(*pos)++;
	*word = s + start;
	return *pos - start;
}

static bool word_is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

static int parse_set(const char *line, size_t len, size_t pos,
		     struct sk_control_req *req, char *why, size_t size)
{
	const char *name, *state, *extra;
	size_t n, ns;

	n = next_word(line, len, &pos, &name);
	if (!n)
		return bad(why, size, "set: no key name (set NAME on|off)");
	if (!valid_name(name, n))
		return bad(why, size, "set: \"%.*s\" is not a key name (a symbol, or 0x and its address)",
			   (int)(n > 64 ? 64 : n), name);
	ns = next_word(line, len, &pos, &state);
	if (word_is(state, ns, "on"))
		req->on = true;
	else if (word_is(state, ns, "off"))
		req->on = false;
	else if (!ns)
		return bad(why, size, "set %.*s: no state (on or off)", (int)n, name);
	else
		return bad(why, size, "set %.*s: \"%.*s\" is not on or off",
			   (int)n, name, (int)(ns > 16 ? 16 : ns), state);
	if (next_word(line, len, &pos, &extra))
		return bad(why, size, "set: one key and one state, then the end of the line");
	memcpy(req->arg, name, n);
	req->arg[n] = '\0';
	req->op = SK_CONTROL_SET;
	return 0;
}

static int parse_dyndbg(const char *line, size_t len, size_t pos,
			struct sk_control_req *req, char *why, size_t size)
{
	while (pos < len && is_blank(line[pos]))
		pos++;
	while (len > pos && is_blank(line[len - 1]))
		len--;
	if (pos == len)
		return bad(why, size, "dyndbg: no query (dyndbg QUERY, as in Documentation/dynamic-debug.rst)");
	memcpy(req->arg, line + pos, len - pos);
	req->arg[len - pos] = '\0';
	req->op = SK_CONTROL_DYNDBG;
	return 0;
}

int sk_control_parse(const char *line, size_t len, struct sk_control_req *req,
		     char *why, size_t size)
{
	const char *cmd, *extra;
	size_t i, pos = 0, n;

	if (size)
		why[0] = '\0';
	if (len >= SK_CONTROL_LINE_MAX)
		return bad(why, size, "request longer than %d bytes",
			   SK_CONTROL_LINE_MAX - 1);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t') || c > 0x7e)
			return bad(why, size, "byte 0x%02x at offset %zu: a request is printable ASCII",
				   c, i);
	}
	req->arg[0] = '\0';
	req->on = false;
	n = next_word(line, len, &pos, &cmd);
	if (!n)
		return bad(why, size, "empty request (keys, sites, set NAME on|off, dyndbg QUERY)");
	if (word_is(cmd, n, "set"))
		return parse_set(line, len, pos, req, why, size);
	if (word_is(cmd, n, "dyndbg"))
		return parse_dyndbg(line, len, pos, req, why, size);
	if (word_is(cmd, n, "keys"))
		req->op = SK_CONTROL_KEYS;
	else if (word_is(cmd, n, "sites"))
		req->op = SK_CONTROL_SITES;
	else
		return bad(why, size, "unknown request \"%.*s\" (keys, sites, set NAME on|off, dyndbg QUERY)",
			   (int)(n > 32 ? 32 : n), cmd);
	if (next_word(line, len, &pos, &extra))
		return bad(why, size, "%.*s takes no argument", (int)n, cmd);
	return 0;
}
