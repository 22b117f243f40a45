# SPDX-License-Identifier: GPL-2.0-only
#
# Complete the patches that spatch writes for coccinelle/static_key_maybe.cocci
# and merge them into one patch that `git apply` (or `patch -p1`) takes.
#
# spatch 1.1.1 cannot delete preprocessor lines, so after it has turned
#
#	#ifdef CONFIG_X
#	DEFINE_STATIC_KEY_TRUE(k);
#	#else
#	DEFINE_STATIC_KEY_FALSE(k);
#	#endif
#
# into an #ifdef/#else/#endif with the same DEFINE_STATIC_KEY_MAYBE line in
# both branches (which builds, but is redundant), this script removes the
# three directive lines and the second copy.  It does so only when the
# innermost conditional around a line that spatch *added* is exactly
# #if/#else/#endif and holds nothing but copies of that line, blank lines
# and comments; anything else is left alone and named on stderr.  It also
# wraps added static_branch_maybe() lines longer than 80 columns the way
# the kernel does (break after the CONFIG argument, align with the open
# parenthesis; inside a macro body with the continuation backslashes).
#
# usage: cocci-finish.py [-C DIR] PATCH...
#   DIR    the tree the paths in PATCH are relative to (default: .)
#   PATCH  unified diffs written by spatch ("-" for stdin), applied in order
# Output: one unified diff with a/ and b/ prefixes on stdout.
# Exit status: 0 on success, 2 when a file cannot be read or a patch does
# not apply (the message names the file; nothing is printed on stdout).
#
# Files are handled as bytes split at "\n" only: CRLF line ends, form
# feeds and bytes that are not UTF-8 go through unchanged, and the lines
# added to a CRLF file get CRLF too.
import argparse
import difflib
import os
import re
import sys
import textwrap

DIRECTIVE = re.compile(r'^\s*#\s*(\w+)\b')
MAYBE_DECL = re.compile(r'^\s*(?:static\s+)?(?:DEFINE|DECLARE)_STATIC_KEY_MAYBE'
			r'(?:_RO)?\(\s*CONFIG_\w+\s*,\s*\w+\s*\);')
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


class FinishError(Exception):
	"""A file that cannot be completed; str() names the file."""


def decode(data):
	"""Text of bytes that keeps every byte (undone by encode())."""
	return data.decode('utf-8', 'surrogateescape')


def encode(text):
	return text.encode('utf-8', 'surrogateescape')


def split_lines(text):
	"""Lines ending in "\n" (str.splitlines also splits at \f, \r...)."""
	lines = text.split('\n')
	out = [l + '\n' for l in lines[:-1]]
	if lines[-1]:
		out.append(lines[-1])
	return out


def read_lines(path):
	try:
		with open(path, 'rb') as f:
			return split_lines(decode(f.read()))
	except OSError as e:
		raise FinishError('%s: %s' % (path, e.strerror))


def parse_patch(text):
	"""Yield (path, hunks); a hunk is a list of (tag, line) pairs."""
	files, cur, hunk = [], None, None
	lines = split_lines(text)
	i = 0
	while i < len(lines):
		line = lines[i]
		if line.startswith('--- ') and i + 1 < len(lines) and \
		   lines[i + 1].startswith('+++ '):
			path = line[4:].rstrip('\n').split('\t')[0]
			if path.startswith('./'):
				path = path[2:]
			elif path.startswith('a/'):
				path = path[2:]
			cur = (path, [])
			files.append(cur)
			i += 2
			continue
		m = HUNK.match(line)
		if m and cur is not None:
			hunk = (int(m.group(1)), [])
			cur[1].append(hunk)
		elif hunk is not None and line[:1] in (' ', '-', '+'):
			hunk[1].append((line[0], line[1:]))
		elif line.startswith('\\') and hunk is not None and hunk[1]:
			tag, body = hunk[1][-1]
			hunk[1][-1] = (tag, body.rstrip('\n'))
		i += 1
	return files


def apply_hunks(path, lines, added, hunks):
	"""Apply hunks to lines (a list), keeping `added` (set of ids) current."""
	offset = 0
	crlf = bool(lines) and lines[0][1].endswith('\r\n')
	for start, body in hunks:
		old = [b for t, b in body if t != '+']
		pos = start - 1 + offset if start > 0 else 0
		found = None
		for delta in range(0, len(lines) + 1):
			for p in (pos - delta, pos + delta):
				if 0 <= p <= len(lines) - len(old) and \
				   [l for _, l in lines[p:p + len(old)]] == old:
					found = p
					break
			if found is not None:
				break
		if found is None:
			raise FinishError('%s: hunk at line %d does not apply' %
					  (path, start))
		new, j = [], found
		for tag, text in body:
			if tag == ' ':
				new.append(lines[j])
				j += 1
			elif tag == '-':
				j += 1
			else:
				ident = object()
				added.add(id(ident))
				if crlf and text.endswith('\n') and \
				   not text.endswith('\r\n'):
					text = text[:-1] + '\r\n'
				new.append((ident, text))
		lines[found:found + len(old)] = new
		offset = found + len(new) - (start - 1) - len(old)
	return lines


def is_comment_or_blank(text, state):
	"""Track /* */ across lines; True when the line holds no code."""
	s = text.strip()
	if state[0]:
		if '*/' not in s:
			return True
		state[0] = False
		s = s[s.index('*/') + 2:].strip()
	s = re.sub(r'/\*.*?\*/', '', s)
	if '/*' in s:
		state[0] = True
		s = s[:s.index('/*')]
	s = re.sub(r'//.*', '', s).strip()
	return not s


def extent(texts, i):
	"""Last line of the directive on line i: a comment opened on it may
	close lines later ("#endif /* A ||" then "B */"), and a backslash
	continues it.  Removing the directive removes those lines too, or
	the comment's tail would be left as code."""
	j, text = i, texts[i].rstrip('\r\n')
	while j + 1 < len(texts):
		s = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
		m = re.search(r'/\*|//', s)
		if not (m and m.group(0) != '//') and not text.endswith('\\'):
			break
		j += 1
		text += '\n' + texts[j].rstrip('\r\n')
	return j


def innermost_block(texts, idx):
	stack, best = [], None
	for i, t in enumerate(texts):
		m = DIRECTIVE.match(t)
		if not m:
			continue
		d = m.group(1)
		if d in ('if', 'ifdef', 'ifndef'):
			stack.append([i])
		elif d in ('elif', 'else') and stack:
			stack[-1].append(i)
		elif d == 'endif' and stack:
			b = stack.pop() + [i]
			if b[0] < idx < b[-1] and (best is None or b[0] > best[0]):
				best = b
	return best


TRAILING_COMMENT = re.compile(r'^(.*?;)\s*(/\*.*\*/|//.*)\s*$')
COMMENT = re.compile(r'/\*(.*?)\*/|//([^\n]*)', re.S)
# Words that only restate what DEFINE_STATIC_KEY_MAYBE(CONFIG_X, k) says:
# the option, its state, the key's default.  A comment made of nothing
# else ("#endif /* CONFIG_X */", "/* on by default */") goes with the
# directives, named on stderr; any other word keeps the comment.
RESTATE = re.compile(r'\b(?:CONFIG_\w+|IS_ENABLED|defined|if|ifdef|ifndef|'
		     r'else|endif|not|is|on|off|by|default|enabled?|'
		     r'disabled?|true|false|set|unset|y|n|key|the)\b|'
		     r'[^\w]+', re.I)


def split_comment(text):
	"""(code, trailing comment or None) of a declaration line."""
	body = text.rstrip('\r\n')
	m = TRAILING_COMMENT.match(body)
	return (m.group(1), m.group(2)) if m else (body, None)


def comment_words(text):
	"""The words of every comment in text, each comment on one line
	(leading '*' of block comment lines dropped)."""
	out = []
	for m in COMMENT.finditer(text):
		body = m.group(1) if m.group(1) is not None else m.group(2)
		words = ' '.join(re.sub(r'^\s*\*+(?!/)', '', l).strip()
				 for l in body.split('\n')).split()
		if words:
			out.append(' '.join(words))
	return out


def comment_lines(words, indent, eol):
	"""Kernel-style comment lines holding every text of words."""
	if len(words) == 1 and width(indent + '/* %s */' % words[0]) <= 80:
		return [indent + '/* %s */' % words[0] + eol]
	out = [indent + '/*' + eol]
	for w in words:
		room = max(80 - width(indent + ' * '), 20)
		for l in textwrap.wrap(w, room, break_long_words=False,
				       break_on_hyphens=False):
			out.append(indent + ' * ' + l + eol)
	return out + [indent + ' */' + eol]


def first_is_set(directive, option):
	"""Does the first branch of the #if on this line hold when the option
	is set?  (#ifndef and a ! before the option say no.)"""
	m = DIRECTIVE.match(directive)
	if m.group(1) == 'ifndef':
		return False
	return not re.search(r'!\s*(?:defined\s*\(?\s*|IS_ENABLED\s*\(\s*)?' +
			     option + r'\b', directive)


def drop_directives(path, lines, added):
	"""Remove #if/#else/#endif around added MAYBE declarations.

	The semantic patch rewrites both lines of a pair, so the block holds
	the same MAYBE line in each branch (or, from older patches, in one):
	the directives and every copy but the first go.  The authors' words
	stay: a comment on a directive line, or on its own line inside the
	block, moves above the MAYBE line, prefixed "CONFIG_X=y:" or
	"CONFIG_X=n:" when it was said of one branch only; a trailing
	comment of the key lines stays on the line when both said it, else
	moves the same way.  A comment that only restates the option and the
	default (RESTATE) is dropped, and named on stderr."""
	texts = [t for _, t in lines]
	drop, done, above = set(), set(), {}
	for i, (ident, text) in enumerate(lines):
		if id(ident) not in added or not MAYBE_DECL.match(text):
			continue
		b = innermost_block(texts, i)
		if b is not None and tuple(b) in done:
			continue
		ok = b is not None and len(b) == 3 and \
		     DIRECTIVE.match(texts[b[1]]).group(1) == 'else'
		copies, inner = [], []
		if ok:
			state = [False]
			own = set(range(b[0], extent(texts, b[0]) + 1)) | \
			      set(range(b[1], extent(texts, b[1]) + 1))
			for j in range(b[0] + 1, b[2]):
				if j in own:
					continue
				if id(lines[j][0]) in added and \
				   split_comment(texts[j])[0].strip() == \
				   split_comment(text)[0].strip():
					copies.append(j)
				elif not is_comment_or_blank(texts[j], state):
					ok = False
				else:
					inner.append(j)
		if not ok:
			print('cocci-finish: %s:%d: #if block around the MAYBE line '
			      'holds more code; directives left in place' % (path, i + 1),
			      file=sys.stderr)
			continue
		done.add(tuple(b))
		option = re.search(r'CONFIG_\w+', text).group(0)
		first = first_is_set(texts[b[0]], option)
		said = lambda j: '%s=%s: ' % (option, 'yn'[(j < b[1]) != first])
		keep = []		# (line, prefix, words)
		for d in b:
			e = extent(texts, d)
			body = ''.join(texts[d:e + 1])
			body = body[DIRECTIVE.match(body).end():]
			keep += [(d, '', w) for w in comment_words(body)]
			drop.update(range(d, e + 1))
		for part in ([j for j in inner if j < b[1]],
			     [j for j in inner if j > b[1]]):
			if part:
				body = ''.join(texts[j] for j in part)
				keep += [(part[0], said(part[0]), w) for w in
					 comment_words(body)]
		drop.update(inner)
		trailing = [split_comment(texts[j])[1] for j in copies]
		both = len(copies) == 2 and trailing[0] is not None and \
		       trailing[0] == trailing[1]
		for j, c in zip(copies, trailing):
			if c is not None and not both:
				keep += [(j, said(j), w) for w in comment_words(c)]
		drop.update(copies[1:])
		if not copies:
			continue
		first_copy = copies[0]
		eol = texts[first_copy][len(texts[first_copy].rstrip('\r\n')):] or '\n'
		if not both:
			lines[first_copy] = (lines[first_copy][0],
					     split_comment(texts[first_copy])[0] + eol)
		words = []
		for j, prefix, w in sorted(keep, key=lambda k: k[0]):
			if not RESTATE.sub('', w):
				print('cocci-finish: %s:%d: comment "%s" dropped: it only '
				      'restates the option and the default that the '
				      'MAYBE line states' % (path, j + 1, w),
				      file=sys.stderr)
			else:
				words.append(prefix + w)
		if words:
			indent = re.match(r'[ \t]*', texts[first_copy]).group(0)
			above[first_copy] = comment_lines(words, indent, eol)
	out = []
	for i, l in enumerate(lines):
		out += [(object(), c) for c in above.get(i, [])]
		if i not in drop:
			out.append(l)
	return out


def width(s):
	return len(s.expandtabs(8))


CONT = re.compile(r'^(.*?)[ \t]*\\$')
DEFINE = re.compile(r'^\s*#\s*define\b')


def continued(text):
	"""The line without its end; (code, True) when it ends in a backslash."""
	body = text.rstrip('\r\n')
	m = CONT.match(body)
	return (m.group(1), True) if m else (body, False)


def backslash_column(texts, idx):
	"""Column of the continuation backslashes of the macro around idx.

	The most common column among the macro's lines whose backslash is
	padded with a tab (aligned by hand); failing that, among the file's;
	None when the file does not align them (a single space is used)."""
	lo = idx
	while lo > 0 and continued(texts[lo - 1])[1]:
		lo -= 1
	hi = idx
	while hi + 1 < len(texts) and continued(texts[hi])[1]:
		hi += 1
	for rng in (range(lo, hi + 1), range(len(texts))):
		cols = {}
		for j in rng:
			body = texts[j].rstrip('\r\n')
			if body.endswith('\t\\'):
				c = width(body[:-1])
				cols[c] = cols.get(c, 0) + 1
		if cols:
			return max(sorted(cols), key=lambda c: cols[c])
	return None


def with_backslash(code, col):
	"""code padded with tabs to col (kernel style), then a backslash."""
	code = code.rstrip()
	w = width(code)
	if col is None or w >= col:
		return code + ' \\'
	pad = ''
	while (w // 8 + 1) * 8 <= col:
		pad += '\t'
		w = (w // 8 + 1) * 8
	return code + pad + ' ' * (col - w) + '\\'


def in_macro(texts, idx):
	"""Is line idx part of a #define (its first line or a continuation)?"""
	if DEFINE.match(texts[idx]):
		return True
	j = idx - 1
	while j >= 0 and continued(texts[j])[1]:
		if DEFINE.match(texts[j]):
			return True
		j -= 1
	return False


# checkpatch's line length: a line the wrap leaves wider than 80 columns
# must not pass it when the unwrapped one does not.
LONG_LINE = 100
ONE_LINE_MACRO = re.compile(r'^(\s*#\s*define\s+\w+(?:\([^)]*\))?)\s+(\S.*)$')


NOT_CALL = ('if', 'while', 'for', 'switch', 'return', 'sizeof')


def operator_break(code, start):
	"""(head, column, rest) of code broken after the last && or || before
	offset start, the rest aligned one past the open parenthesis that
	holds them; never inside a call's parentheses (a maintainer breaks
	a condition at its operators, not a call between its arguments):
	the deepest level with such an operator that no call encloses.
	None when there is none."""
	stack, quote = [[None, None, False]], None
	j = 0
	while j < start:
		ch = code[j]
		if quote:
			if ch == '\\':
				j += 1
			elif ch == quote:
				quote = None
		elif ch in '"\'':
			quote = ch
		elif ch == '(':
			name = re.search(r'(\w+)\s*$', code[:j])
			stack.append([j, None, bool(name) and
				      name.group(1) not in NOT_CALL])
		elif ch == ')' and len(stack) > 1:
			stack.pop()
		elif code.startswith(('&&', '||'), j):
			stack[-1][1] = j + 2
			j += 1
		j += 1
	best = None
	for paren, op, call in stack:
		if call:
			break
		if paren is not None and op is not None:
			best = (paren, op)
	if best is None:
		return None
	paren, op = best
	return code[:op].rstrip(), width(code[:paren + 1]), code[op:].lstrip()


def wrap(texts, idx):
	"""Kernel-style wrap of a line holding static_branch_maybe(CFG, &k).

	Long lines break after the CONFIG argument, aligned with the open
	parenthesis, or else before the test at the && or , in front of
	it, aligned with the parenthesis that holds them.  Inside a macro body every line of the result ends with
	a backslash at the column the file uses, so the macro stays one
	logical line.  A one-line macro breaks after its name instead, its
	body kept whole: checkpatch reads a body split inside an if () as
	statements trailing the if (an error the original did not have).
	A wrap that does not bring every line within 80 columns is used only
	when the line is wider than checkpatch's 100, and then the narrowest
	form wins."""
	text = texts[idx]
	nl = '\r\n' if text.endswith('\r\n') else '\n' if text.endswith('\n') else ''
	macro = in_macro(texts, idx)
	code, cont = continued(text) if macro else (text.rstrip('\r\n'), False)
	col = backslash_column(texts, idx) if macro else None
	tail = lambda c: with_backslash(c, col) if cont else c
	whole = [tail(code)]
	if width(whole[0]) <= 80:
		return whole[0] + nl
	forms = []
	one = ONE_LINE_MACRO.match(code) if macro and not cont and \
	      DEFINE.match(code) else None
	m = re.search(r'static_branch_maybe\((CONFIG_\w+),\s*', code)
	inside = None
	if one:
		forms.append([with_backslash(one.group(1), col),
			      '\t' + one.group(2)])
	elif m:
		head = code[:m.start(1) + len(m.group(1)) + 1]
		rest = code[m.end():]
		c = width(code[:m.start(1)])
		indent = '\t' * (c // 8) + ' ' * (c % 8)
		if macro:
			head = with_backslash(head, col)
		# The backslash column counts from the start of the line: pad
		# the indented continuation, not the bare rest (that put the
		# backslash one indent too far right, past 100 columns).
		inside = [head, tail(indent + rest)]
		# Before the test, at the && or || in front of it, aligned
		# with the parenthesis that holds both.
		ob = operator_break(code, m.start())
		if ob:
			head, c, rest = ob
			indent = '\t' * (c // 8) + ' ' * (c % 8)
			forms.append([with_backslash(head, col) if macro else head,
				      tail(indent + rest)])
	widest = lambda f: max(width(l) for l in f)
	fits = [f for f in forms if widest(f) <= 80]
	# The line before the conversion: static_branch_unlikely(& where
	# static_branch_maybe(CONFIG_X, & is now.
	was = width(whole[0]) - (len(m.group(0)) - len('static_branch_unlikely(')
				 if m else 0)
	if fits:
		best = fits[0]
	elif inside and was <= 80 and widest(inside) <= 80:
		# The original fitted in 80 columns and no && or || lets the
		# new line fit: break after the CONFIG argument, as Linux's own
		# want_init_on_alloc() does.
		best = inside
	elif width(whole[0]) <= LONG_LINE:
		# No operator to break at: the line stays whole (checkpatch
		# takes up to 100 columns) rather than break inside the call.
		best = whole
	else:
		best = min(forms + [f for f in [inside] if f] + [whole], key=widest)
	return ''.join(l + (nl or '\n') for l in best[:-1]) + best[-1] + nl


def unified(path, old, new):
	out = []
	for line in difflib.unified_diff(old, new, 'a/' + path, 'b/' + path, n=3):
		if line.startswith(('---', '+++')):
			out.append(line.rstrip('\n') + '\n')
		elif not line.endswith('\n'):
			out.append(line + '\n\\ No newline at end of file\n')
		else:
			out.append(line)
	if out:
		out.insert(0, 'diff --git a/%s b/%s\n' % (path, path))
	return ''.join(out)


def finish(tree, patches):
	"""Return the merged, completed patch for the spatch diffs in patches."""
	state, order, added = {}, [], set()
	for text in patches:
		for path, hunks in parse_patch(text):
			if path not in state:
				orig = read_lines(os.path.join(tree, path))
				state[path] = (orig, [(object(), l) for l in orig])
				order.append(path)
			orig, cur = state[path]
			state[path] = (orig, apply_hunks(path, cur, added, hunks))
	out = []
	for path in sorted(order):
		orig, cur = state[path]
		cur = drop_directives(path, cur, added)
		new = []
		texts = [t for _, t in cur]
		for i, (ident, text) in enumerate(cur):
			if id(ident) in added and 'static_branch_maybe(' in text:
				text = wrap(texts, i)
			new.extend(split_lines(text))
		out.append(unified(path, orig, new))
	return ''.join(out)


def main():
	ap = argparse.ArgumentParser(prog='cocci-finish.py', description='complete spatch patches')
	ap.add_argument('-C', dest='tree', default='.')
	ap.add_argument('patches', nargs='+')
	args = ap.parse_args()
	texts = []
	try:
		for p in args.patches:
			if p == '-':
				texts.append(decode(sys.stdin.buffer.read()))
			else:
				with open(p, 'rb') as f:
					texts.append(decode(f.read()))
		out = finish(args.tree, texts)
	except (OSError, FinishError) as e:
		print('cocci-finish: %s' % e, file=sys.stderr)
		sys.exit(2)
	sys.stdout.buffer.write(encode(out))


if __name__ == '__main__':
	main()
