# SPDX-License-Identifier: GPL-2.0-only
#
# Independent cross-check of coccinelle/static_key_maybe.cocci: a plain
# text scan (no spatch) for #if/#ifdef/#ifndef blocks that hold a
# *_STATIC_KEY_*TRUE* declaration in one branch and the matching FALSE one
# in another.  Prints "file:line key" for the TRUE line of each, sorted.
#
# usage: cocci-crosscheck.py DIR
import os
import re
import sys

DIRECTIVE = re.compile(r'^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b')
DECL = re.compile(r'\b(DEFINE|DECLARE)_STATIC_KEY_(ARRAY_)?(TRUE|FALSE)(_RO)?'
		  r'\(\s*(\w+)')


def scan(path, rel, out):
	with open(path, errors='replace') as f:
		scan_lines(f.read().split('\n'), rel, out)


def scan_lines(lines, rel, out):
	"""Add (rel, line of the TRUE declaration, key) of every pair."""
	stack = []
	for i, line in enumerate(lines):
		m = DIRECTIVE.match(line)
		if m:
			d = m.group(1)
			if d in ('if', 'ifdef', 'ifndef'):
				stack.append([[]])
			elif d in ('elif', 'else') and stack:
				stack[-1].append([])
			elif d == 'endif' and stack:
				branches = stack.pop()
				trues = {k: l for b in branches for (v, k, l) in b if v == 'TRUE'}
				for bi, b in enumerate(branches):
					for v, k, l in b:
						if v != 'FALSE' or k not in trues:
							continue
						if any(k == k2 and v2 == 'TRUE' for j, b2 in
						       enumerate(branches) if j != bi
						       for v2, k2, _ in b2):
							out.add((rel, trues[k], k))
			continue
		d = DECL.search(line)
		if d and stack:
			stack[-1][-1].append((d.group(3), d.group(5), i + 1))


def main():
	top = sys.argv[1]
	out = set()
	for root, dirs, files in os.walk(top):
		dirs[:] = [d for d in dirs if not d.startswith('.')]
		for f in files:
			if f.endswith(('.c', '.h')):
				p = os.path.join(root, f)
				scan(p, os.path.relpath(p, top), out)
	for rel, line, key in sorted(out):
		print('%s:%d %s' % (rel, line, key))


if __name__ == '__main__':
	main()
