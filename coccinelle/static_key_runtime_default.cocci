// SPDX-License-Identifier: GPL-2.0-only
/// Find static keys whose initial state is set at run time, in __init
/// code, from nothing but a CONFIG option:
///
///	if (IS_ENABLED(CONFIG_X))
///		static_branch_enable(&key);
///
/// or the same call between #ifdef CONFIG_X and #endif.  Such a key costs
/// a code patch at every boot and tests the wrong way round in the common
/// build; DEFINE_STATIC_KEY_MAYBE(CONFIG_X, key) states the default at
/// build time instead.  The rewrite needs a human (the init code may do
/// more than set the default), so this script only reports; patch mode
/// changes nothing.
///
// Confidence: Moderate
// Copyright: (C) 2026 The statickeys authors
// Comments: only calls directly under the CONFIG test are reported; a
//  test that also depends on a boot parameter is left alone.
// Options: --no-includes --include-headers
// Keywords: static_key, static_branch_enable, DEFINE_STATIC_KEY_MAYBE
// Requires: 1.0.8

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

_DIRECTIVE = re.compile(r'^\s*#\s*(\w+)\b\s*(.*?)\s*$')
_COND = re.compile(r'(?:ifdef\s+|ifndef\s+|if\s+!?\s*(?:defined|IS_ENABLED)\s*\(?\s*)'
		   r'(CONFIG_\w+)\s*\)?')
_text = {}
_org = False

def _read(path):
	if path not in _text:
		with open(path, errors='replace') as f:
			_text[path] = f.read().split('\n')
	return _text[path]

def in_init(path, line):
	"""Is 1-based line inside a function whose header says __init?"""
	lines = _read(path)
	for i in range(line - 2, -1, -1):
		s = lines[i]
		if s.startswith('{'):
			head = ' '.join(lines[max(0, i - 4):i])
			head = head[head.rfind(';') + 1:]
			head = head[head.rfind('}') + 1:]
			return '__init' in head
		if s.startswith('}'):
			return False
	return False

def ifdef_config(path, line):
	"""CONFIG_X when the line sits directly in an #ifdef CONFIG_X block."""
	lines = _read(path)
	depth = 0
	for i in range(line - 2, -1, -1):
		m = _DIRECTIVE.match(lines[i])
		if not m:
			code = re.sub(r'/\*.*?\*/|//.*', '', lines[i])
			if re.search(r'[{}]|\b(if|else|for|while|switch|case|do)\b', code):
				return None
			continue
		d = m.group(1)
		if d == 'endif':
			depth += 1
		elif d in ('if', 'ifdef', 'ifndef'):
			if depth == 0:
				c = re.sub(r'/\*.*?\*/', '', d + ' ' + m.group(2)).strip()
				mm = _COND.fullmatch(c)
				return mm.group(1) if mm else None
			depth -= 1
		elif depth == 0:
			return None
	return None

def emit(p, msg, org):
	if org:
		coccilib.org.print_todo(p, msg)
	else:
		print('%s:%s:%d: %s' % (p.file, p.line, int(p.column) + 1, msg))

MSG = '%s: initial state set at run time from %s in __init %s(); not converted, consider DEFINE_STATIC_KEY_MAYBE(%s, %s)'

@script:python depends on org@
@@
_org = True

@cfgif@
identifier k;
expression C;
position p;
statement S;
@@
(
if (\(IS_ENABLED(C)\|!IS_ENABLED(C)\))
\(static_branch_enable@p(&k);\|static_branch_disable@p(&k);\|static_key_enable@p(&k.key);\|static_key_disable@p(&k.key);\)
|
if (\(IS_ENABLED(C)\|!IS_ENABLED(C)\)) {
	... when != S
\(static_branch_enable@p(&k);\|static_branch_disable@p(&k);\|static_key_enable@p(&k.key);\|static_key_disable@p(&k.key);\)
	...
}
|
if (\(IS_ENABLED(C)\|!IS_ENABLED(C)\)) S else
\(static_branch_enable@p(&k);\|static_branch_disable@p(&k);\|static_key_enable@p(&k.key);\|static_key_disable@p(&k.key);\)
)

@script:python cfgif_ok@
k << cfgif.k;
C << cfgif.C;
p << cfgif.p;
@@
if not in_init(p[0].file, int(p[0].line)) or not C.startswith('CONFIG_'):
	cocci.include_match(False)

@cfgdef@
identifier k;
position p;
@@
\(static_branch_enable@p(&k);\|static_branch_disable@p(&k);\|static_key_enable@p(&k.key);\|static_key_disable@p(&k.key);\)

@script:python cfgdef_ok@
k << cfgdef.k;
p << cfgdef.p;
C;
key;
@@
c = ifdef_config(p[0].file, int(p[0].line))
if c is None or not in_init(p[0].file, int(p[0].line)):
	cocci.include_match(False)
else:
	coccinelle.C = cocci.make_ident(c)
	coccinelle.key = cocci.make_ident(k)

@depends on context@
identifier cfgif.k;
position cfgif.p;
@@
(
* static_branch_enable@p(&k);
|
* static_branch_disable@p(&k);
|
* static_key_enable@p(&k.key);
|
* static_key_disable@p(&k.key);
)

@depends on context@
identifier cfgdef_ok.key;
position cfgdef.p;
@@
(
* static_branch_enable@p(&key);
|
* static_branch_disable@p(&key);
|
* static_key_enable@p(&key.key);
|
* static_key_disable@p(&key.key);
)

@script:python depends on org || report@
k << cfgif.k;
C << cfgif.C;
p << cfgif.p;
@@
emit(p[0], MSG % (k, C, p[0].current_element, C, k), _org)

@script:python depends on org || report@
k << cfgdef.k;
C << cfgdef_ok.C;
p << cfgdef.p;
@@
emit(p[0], MSG % (k, C, p[0].current_element, C, k), _org)
