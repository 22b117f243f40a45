// SPDX-License-Identifier: GPL-2.0-only
/// Convert static keys whose initial state is chosen by a CONFIG option
/// with an #if/#else pair of DEFINE_STATIC_KEY_TRUE/FALSE (or the _RO and
/// DECLARE_ forms) to DEFINE_STATIC_KEY_MAYBE(CONFIG_X, key), and their
/// static_branch_likely()/static_branch_unlikely() tests to
/// static_branch_maybe(CONFIG_X, &key), so that the code layout follows
/// the build-time default.
///
/// Coccinelle cannot remove preprocessor lines, so in patch mode both
/// lines of a pair become the same MAYBE line: the #if/#else/#endif left
/// around them is redundant and the result builds as it is, with the
/// option on or off.  scripts/cocci-finish.py then removes the directives
/// and the second copy (make coccicheck MODE=patch in the statickeys tree
/// does that for you).  Keys that must not be converted
/// are named in report and org modes: inverted sense (TRUE when the CONFIG
/// is off), an #if block holding more than the pair, a condition that is
/// not a single CONFIG test or has #elif, and arrays of keys.
///
/// Uses in other files than the pair are converted when the key list is
/// given in the environment: STATIC_KEY_MAYBE_KEYS="key:CONFIG_X ...".
/// Without it, only uses in the file holding the pair are converted;
/// STATIC_KEY_MAYBE_NO_USES=1 converts the declarations alone.
///
// Confidence: High
// Copyright: (C) 2026 The statickeys authors
// Comments: #ifdef CONFIG_X is true only for =y while IS_ENABLED() is
//  also true for =m; the conversion assumes a bool option.
//  The rules name their macros and tests (no declarer set, no script
//  rule that runs on every file), so that spatch has a token query and
//  parses only the files that spell one of them.
// Options: --no-includes --include-headers
// Keywords: static_key, DEFINE_STATIC_KEY_MAYBE, static_branch_maybe
// Requires: 1.0.8

virtual patch
virtual context
virtual org
virtual report
virtual collect

@initialize:python@
@@
import difflib
import os
import re
import sys

_DIRECTIVE = re.compile(r'^\s*#\s*(\w+)\b\s*(.*?)\s*$')
_COND = [
	(re.compile(r'ifdef\s+(CONFIG_\w+)'), True),
	(re.compile(r'ifndef\s+(CONFIG_\w+)'), False),
	(re.compile(r'if\s+defined\s*\(\s*(CONFIG_\w+)\s*\)'), True),
	(re.compile(r'if\s+defined\s+(CONFIG_\w+)'), True),
	(re.compile(r'if\s+!\s*defined\s*\(\s*(CONFIG_\w+)\s*\)'), False),
	(re.compile(r'if\s+!\s*defined\s+(CONFIG_\w+)'), False),
	(re.compile(r'if\s+IS_ENABLED\s*\(\s*(CONFIG_\w+)\s*\)'), True),
	(re.compile(r'if\s+!\s*IS_ENABLED\s*\(\s*(CONFIG_\w+)\s*\)'), False),
]
_text = {}
_conv = {}
_mode = None

def _read(path):
	if path not in _text:
		with open(path, errors='replace') as f:
			_text[path] = f.read().split('\n')
	return _text[path]

def _strip_comments(s):
	s = re.sub(r'/\*.*?\*/', ' ', s, flags=re.S)
	return ' '.join(re.sub(r'//.*$', '', s, flags=re.M).split())

def _extent(lines, i):
	"""Last 0-based line of the directive on line i: a comment opened on
	it may close lines later (an #endif comment going on over two
	lines), and a backslash continues it: those lines belong to it."""
	j, text = i, lines[i]
	while j + 1 < len(lines):
		s = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
		m = re.search(r'/\*|//', s)
		if not (m and m.group(0) != '//') and not text.endswith(chr(92)):
			break
		j += 1
		text += '\n' + lines[j]
	return j, text

def _block(lines, idx):
	"""Innermost #if block around 0-based line idx: [if, elses..., endif]."""
	stack, best = [], None
	for i, line in enumerate(lines):
		m = _DIRECTIVE.match(line)
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

def _only_comments(lines, lo, hi, skip):
	incomment = False
	for i in range(lo, hi):
		if i in skip:
			continue
		s = lines[i].strip()
		if incomment:
			if '*/' in s:
				incomment = False
				s = s[s.index('*/') + 2:].strip()
			else:
				continue
		if s.startswith('/*') and '*/' not in s:
			incomment = True
			continue
		if _strip_comments(s):
			return False
	return True

def classify(path, lt, lf):
	"""Verdict for a TRUE declaration at line lt and a FALSE one at lf."""
	lines = _read(path)
	t, f = lt - 1, lf - 1
	b = _block(lines, t)
	if b is None or not b[0] < f < b[-1]:
		return None, None
	if _block(lines, f) != b:
		return None, None
	branch = lambda i: max(j for j in range(len(b) - 1) if b[j] < i)
	if branch(t) == branch(f):
		return None, None
	end, text = _extent(lines, b[0])
	m = _DIRECTIVE.match(text.split('\n')[0])
	cond = _strip_comments(m.group(1) + ' ' + text[m.start(2):])
	if len(b) != 3 or _DIRECTIVE.match(lines[b[1]]).group(1) != 'else':
		return 'elif', cond
	for rx, positive in _COND:
		mm = rx.fullmatch(cond)
		if mm:
			break
	else:
		return 'complex', cond
	cfg = mm.group(1)
	if (branch(t) == 0) != positive:
		return 'inverted', cfg
	skip = {t, f}.union(range(b[0], end + 1),
			    range(b[1], _extent(lines, b[1])[0] + 1))
	if not _only_comments(lines, b[0] + 1, b[-1], skip):
		return 'mixed', cfg
	return 'convert', cfg

_done = set()
_now = {}
_shifts = {}

def _comment_only_names(text, cfg):
	"""The comments of a directive say nothing but its CONFIG option."""
	for c in re.findall(r'/\*(.*?)\*/|//(.*)$', text, flags=re.S | re.M):
		words = re.sub(r'[^\w]+', ' ', c[0] or c[1]).split()
		if words and words != [cfg]:
			return False
	return True

def _patch_path(path):
	"""The name spatch's own diff gives the file: a relative path is
	the one spatch was handed (--dir ., as the kernel's make coccicheck
	runs it with srctree=.), whatever $srctree a caller's environment
	holds; an absolute one is taken relative to $srctree, or to the
	current directory when the file is outside it."""
	if not os.path.isabs(path):
		return os.path.normpath(path)
	rel = os.path.relpath(path, os.environ.get('srctree') or '.')
	return os.path.relpath(path) if rel.startswith('..') else rel

def block_patch(path, lt, lf, d, k, cfg):
	"""make coccicheck MODE=patch of the kernel runs spatch alone,
	and SmPL cannot match an #if line: print, as a diff of its own, the
	whole #if/#else/#endif block of a pair replaced by the one MAYBE
	line (paths as spatch's own diff names the file: _patch_path()).
	Each diff of a file is taken against the file as the diffs printed
	before it left it; spatch prints its own (the uses) against the
	original, which git apply and patch place by their context.
	False when the block holds comments or blank lines to keep, which
	the finisher (scripts/cocci-finish.py) places; then spatch rewrites
	both lines and the directives stay."""
	lines = _read(path)
	if lines[-1] != '':
		return False
	b = _block(lines, lt - 1)
	ends = [_extent(lines, i)[0] for i in b]
	for i, e in zip(b, ends):
		if not _comment_only_names('\n'.join(lines[i:e + 1]), cfg):
			return False
	body = set(range(b[0], ends[-1] + 1)) - set(
		j for i, e in zip(b, ends) for j in range(i, e + 1))
	if body != {lt - 1, lf - 1}:
		return False
	rx = re.compile(r'\b%s\s*\(\s*%s\s*\)' % (d, re.escape(k)))
	new = rx.sub('%s(%s, %s)' % (d.replace('TRUE', 'MAYBE'), cfg, k),
		     lines[lt - 1], count=1)
	if (path, b[0]) in _done:
		return True
	_done.add((path, b[0]))
	# Each diff of a file applies after the ones printed before it.
	shift = sum(n for at, n in _shifts.get(path, []) if at < b[0])
	old = _now.get(path, lines[:-1])
	lo, hi = b[0] - shift, ends[-1] + 1 - shift
	out = old[:lo] + [new] + old[hi:]
	_now[path] = out
	_shifts.setdefault(path, []).append((b[0], hi - lo - 1))
	rel = _patch_path(path)
	diff = list(difflib.unified_diff(old, out, 'a/' + rel, 'b/' + rel,
					 n=3, lineterm=''))
	print('diff -u -p a/%s b/%s' % (rel, rel))
	print('\n'.join(diff))
	sys.stdout.flush()
	return True

def _env_cfg(path, key):
	"""CONFIG of key in the global list: "key:CONFIG" or "key:CONFIG:file"."""
	for item in os.environ.get('STATIC_KEY_MAYBE_KEYS', '').split():
		f = item.split(':')
		if f[0] == key and (len(f) == 2 or f[2] == path):
			return f[1]
	return None

def wanted(path, key, cfg):
	"""With a global key list (from scripts/coccicheck), obey it."""
	if os.environ.get('STATIC_KEY_MAYBE_KEYS') is None:
		return True
	return _env_cfg(path, key) == cfg

def wanted_use(path, key):
	# Definitions only (for the object-code identity test of check-kernel).
	if os.environ.get('STATIC_KEY_MAYBE_NO_USES'):
		return None
	if os.environ.get('STATIC_KEY_MAYBE_KEYS') is not None:
		return _env_cfg(path, key)
	return _conv.get(path, {}).get(key)

def macro(p):
	"""The name of the macro at p (the rules name their macros, so
	that spatch has a token query; the match does not say which)."""
	line = _read(p.file)[int(p.line) - 1]
	return re.match(r'\w*', line[int(p.column):]).group(0)


def is_static(p):
	line = _read(p.file)[int(p.line) - 1]
	return 'static' if 'static' in line[:int(p.column)].split() else 'global'

def col(p):
	return '%s:%s:%d' % (p.file, p.line, int(p.column) + 1)

def emit(p, msg):
	print('%s: %s' % (col(p), msg))

MSG = {
	'inverted': '%s: TRUE when %s is off (inverted sense); not converted, there is no MAYBE form for it',
	'mixed': '%s: the #if %s block holds more than the key; not converted, convert by hand',
	'complex': '%s: condition "%s" is not a single CONFIG test; not converted',
	'elif': '%s: the "%s" block has #elif branches; not converted',
}

// Any file this script can say something of names one of these; the
// modes are set only in such a file, so that spatch keeps a token query
// (a script rule that runs on every file would make it parse them all).
@anyd@
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO, DECLARE_STATIC_KEY_TRUE;
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO, DECLARE_STATIC_KEY_FALSE;
declarer name DEFINE_STATIC_KEY_MAYBE, DEFINE_STATIC_KEY_MAYBE_RO, DECLARE_STATIC_KEY_MAYBE;
declarer name DEFINE_STATIC_KEY_ARRAY_TRUE, DEFINE_STATIC_KEY_ARRAY_TRUE_RO;
declarer name DEFINE_STATIC_KEY_ARRAY_FALSE, DEFINE_STATIC_KEY_ARRAY_FALSE_RO;
@@
(
DEFINE_STATIC_KEY_TRUE(...);
|
DEFINE_STATIC_KEY_TRUE_RO(...);
|
DECLARE_STATIC_KEY_TRUE(...);
|
DEFINE_STATIC_KEY_FALSE(...);
|
DEFINE_STATIC_KEY_FALSE_RO(...);
|
DECLARE_STATIC_KEY_FALSE(...);
|
DEFINE_STATIC_KEY_MAYBE(...);
|
DEFINE_STATIC_KEY_MAYBE_RO(...);
|
DECLARE_STATIC_KEY_MAYBE(...);
|
DEFINE_STATIC_KEY_ARRAY_TRUE(...);
|
DEFINE_STATIC_KEY_ARRAY_TRUE_RO(...);
|
DEFINE_STATIC_KEY_ARRAY_FALSE(...);
|
DEFINE_STATIC_KEY_ARRAY_FALSE_RO(...);
)

@anyu depends on !collect@
@@
(
static_branch_unlikely(...)
|
static_branch_likely(...)
)

@script:python depends on report && (anyd || anyu)@
@@
_mode = 'report'

@script:python depends on org && (anyd || anyu)@
@@
_mode = 'org'

@script:python depends on patch && (anyd || anyu)@
@@
_mode = 'patch'

@script:python depends on collect && (anyd || anyu)@
@@
_mode = 'collect'

// ---- every declaration, for the global consistency check ----

@alld depends on collect@
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO, DECLARE_STATIC_KEY_TRUE;
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO, DECLARE_STATIC_KEY_FALSE;
identifier k;
position p;
@@
(
DEFINE_STATIC_KEY_TRUE@p(k);
|
DEFINE_STATIC_KEY_TRUE_RO@p(k);
|
DECLARE_STATIC_KEY_TRUE@p(k);
|
DEFINE_STATIC_KEY_FALSE@p(k);
|
DEFINE_STATIC_KEY_FALSE_RO@p(k);
|
DECLARE_STATIC_KEY_FALSE@p(k);
)

@script:python depends on collect@
k << alld.k;
p << alld.p;
@@
d = macro(p[0])
print('COLLECT\t%s\tDECL\t%s\t%s\t-\t-\t%s' % (col(p[0]), k, d, is_static(p[0])))

@allm depends on collect@
declarer name DEFINE_STATIC_KEY_MAYBE, DEFINE_STATIC_KEY_MAYBE_RO, DECLARE_STATIC_KEY_MAYBE;
identifier k, c;
position p;
@@
(
DEFINE_STATIC_KEY_MAYBE@p(c, k);
|
DEFINE_STATIC_KEY_MAYBE_RO@p(c, k);
|
DECLARE_STATIC_KEY_MAYBE@p(c, k);
)

@script:python depends on collect@
k << allm.k;
c << allm.c;
p << allm.p;
@@
d = macro(p[0])
print('COLLECT\t%s\tDECL\t%s\t%s\t%s\t-\t%s' % (col(p[0]), k, d, c, is_static(p[0])))

// ---- pairs of definitions and declarations ----

@t@
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO, DECLARE_STATIC_KEY_TRUE;
identifier k;
position p;
@@
(
DEFINE_STATIC_KEY_TRUE@p(k);
|
DEFINE_STATIC_KEY_TRUE_RO@p(k);
|
DECLARE_STATIC_KEY_TRUE@p(k);
)

@f@
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO, DECLARE_STATIC_KEY_FALSE;
identifier t.k;
position p2;
@@
(
DEFINE_STATIC_KEY_FALSE@p2(k);
|
DEFINE_STATIC_KEY_FALSE_RO@p2(k);
|
DECLARE_STATIC_KEY_FALSE@p2(k);
)

@script:python refused depends on !patch@
k << t.k;
p << t.p;
p2 << f.p2;
@@
d, d2 = macro(p[0]), macro(p2[0])
verdict, c = classify(p[0].file, int(p[0].line), int(p2[0].line))
if d.replace('TRUE', 'FALSE') != d2 and verdict is not None:
	# TRUE_RO against FALSE, DEFINE against DECLARE: no one MAYBE
	# form gives both.
	verdict = 'mismatch'
	msg = '%s: %s and %s differ in more than the initial state; not converted' % (k, d, d2)
elif verdict in MSG:
	msg = MSG[verdict] % (k, c)
if verdict in MSG or verdict == 'mismatch':
	if _mode == 'collect':
		print('COLLECT\t%s\tPAIR\t%s\t%s\t%s\t%s\t%s' % (col(p[0]), k, d, verdict, p2[0].line, is_static(p[0])))
		print('REFUSE\t%s\t%s' % (col(p[0]), msg))
	elif _mode == 'org':
		coccilib.org.print_todo(p[0], msg)
	elif _mode == 'report':
		emit(p[0], msg)

@script:python ok@
k << t.k;
p << t.p;
p2 << f.p2;
cfg;
key;
@@
d, d2 = macro(p[0]), macro(p2[0])
verdict, c = None, None
if d.replace('TRUE', 'FALSE') == d2:
	verdict, c = classify(p[0].file, int(p[0].line), int(p2[0].line))
if verdict == 'convert' and wanted(p[0].file, k, c):
	_conv.setdefault(p[0].file, {})[k] = c
	# Run by scripts/coccicheck, whose finisher removes the
	# directives, or by spatch alone (make coccicheck of the kernel).
	if _mode == 'patch' and not os.environ.get('STATIC_KEY_MAYBE_FINISHER') and \
	   block_patch(p[0].file, int(p[0].line), int(p2[0].line), d, k, c):
		cocci.include_match(False)
	else:
		coccinelle.cfg = cocci.make_ident(c)
		coccinelle.key = cocci.make_ident(k)
else:
	cocci.include_match(False)

@depends on patch@
declarer name DEFINE_STATIC_KEY_MAYBE, DEFINE_STATIC_KEY_MAYBE_RO;
declarer name DECLARE_STATIC_KEY_MAYBE;
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO;
declarer name DECLARE_STATIC_KEY_TRUE;
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO;
declarer name DECLARE_STATIC_KEY_FALSE;
identifier t.k, ok.cfg;
position t.p, f.p2;
@@
(
- DEFINE_STATIC_KEY_TRUE@p(k);
+ DEFINE_STATIC_KEY_MAYBE(cfg, k);
|
- DEFINE_STATIC_KEY_TRUE_RO@p(k);
+ DEFINE_STATIC_KEY_MAYBE_RO(cfg, k);
|
- DECLARE_STATIC_KEY_TRUE@p(k);
+ DECLARE_STATIC_KEY_MAYBE(cfg, k);
|
- DEFINE_STATIC_KEY_FALSE@p2(k);
+ DEFINE_STATIC_KEY_MAYBE(cfg, k);
|
- DEFINE_STATIC_KEY_FALSE_RO@p2(k);
+ DEFINE_STATIC_KEY_MAYBE_RO(cfg, k);
|
- DECLARE_STATIC_KEY_FALSE@p2(k);
+ DECLARE_STATIC_KEY_MAYBE(cfg, k);
)

// Only pairs that ok accepted: ok.key is bound for them alone (with t.k
// a lone TRUE declaration of any key was marked).
@depends on context@
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO, DECLARE_STATIC_KEY_TRUE;
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO, DECLARE_STATIC_KEY_FALSE;
identifier ok.key;
position t.p, f.p2;
@@
(
* DEFINE_STATIC_KEY_TRUE@p(key);
|
* DEFINE_STATIC_KEY_TRUE_RO@p(key);
|
* DECLARE_STATIC_KEY_TRUE@p(key);
|
* DEFINE_STATIC_KEY_FALSE@p2(key);
|
* DEFINE_STATIC_KEY_FALSE_RO@p2(key);
|
* DECLARE_STATIC_KEY_FALSE@p2(key);
)

@script:python depends on org || report || collect@
k << t.k;
p << t.p;
p2 << f.p2;
cfg << ok.cfg;
@@
d = macro(p[0])
c = str(cfg)
m = d.replace('TRUE', 'MAYBE')
if _mode == 'collect':
	print('COLLECT\t%s\tPAIR\t%s\t%s\tconvert:%s\t%s\t%s' % (col(p[0]), k, d, c, p2[0].line, is_static(p[0])))
elif _mode == 'org':
	coccilib.org.print_todo(p[0], '%s: %s/FALSE chosen by %s; use %s(%s, %s)' % (k, d, c, m, c, k))
else:
	emit(p[0], '%s: %s/FALSE chosen by %s; use %s(%s, %s)' % (k, d, c, m, c, k))

// ---- arrays of keys ----

@ta@
declarer name DEFINE_STATIC_KEY_ARRAY_TRUE, DEFINE_STATIC_KEY_ARRAY_TRUE_RO;
identifier k;
expression n;
position p;
@@
(
DEFINE_STATIC_KEY_ARRAY_TRUE@p(k, n);
|
DEFINE_STATIC_KEY_ARRAY_TRUE_RO@p(k, n);
)

@fa@
declarer name DEFINE_STATIC_KEY_ARRAY_FALSE, DEFINE_STATIC_KEY_ARRAY_FALSE_RO;
identifier ta.k;
expression n2;
position p2;
@@
(
DEFINE_STATIC_KEY_ARRAY_FALSE@p2(k, n2);
|
DEFINE_STATIC_KEY_ARRAY_FALSE_RO@p2(k, n2);
)

@script:python depends on !patch@
k << ta.k;
p << ta.p;
p2 << fa.p2;
@@
verdict, c = classify(p[0].file, int(p[0].line), int(p2[0].line))
if verdict is not None:
	msg = '%s: array of keys chosen by %s; not converted, there is no MAYBE form for arrays' % (k, c)
	if _mode == 'collect':
		print('COLLECT\t%s\tPAIR\t%s\tARRAY\tarray\t%s\t%s' % (col(p[0]), k, p2[0].line, is_static(p[0])))
		print('REFUSE\t%s\t%s' % (col(p[0]), msg))
	elif _mode == 'org':
		coccilib.org.print_todo(p[0], msg)
	elif _mode == 'report':
		emit(p[0], msg)

// ---- uses ----

@u depends on !collect@
identifier k;
position p;
@@
(
static_branch_unlikely@p(&k)
|
static_branch_likely@p(&k)
|
static_branch_unlikely@p(&(k))
|
static_branch_likely@p(&(k))
)

@script:python uok depends on !collect@
k << u.k;
p << u.p;
cfg;
key;
@@
c = wanted_use(p[0].file, k)
if c is None:
	cocci.include_match(False)
else:
	coccinelle.cfg = cocci.make_ident(c)
	coccinelle.key = cocci.make_ident(k)

// A likely()/unlikely() around the test held for the one layout the old
// test had; with static_branch_maybe() it contradicts the layout in one
// state of the option: it goes with the old test.
@depends on patch && uok@
identifier u.k, uok.cfg;
position u.p;
@@
(
- likely(static_branch_unlikely@p(&k))
+ static_branch_maybe(cfg, &k)
|
- likely(static_branch_likely@p(&k))
+ static_branch_maybe(cfg, &k)
|
- unlikely(static_branch_unlikely@p(&k))
+ static_branch_maybe(cfg, &k)
|
- unlikely(static_branch_likely@p(&k))
+ static_branch_maybe(cfg, &k)
|
- likely(static_branch_unlikely@p(&(k)))
+ static_branch_maybe(cfg, &k)
|
- likely(static_branch_likely@p(&(k)))
+ static_branch_maybe(cfg, &k)
|
- unlikely(static_branch_unlikely@p(&(k)))
+ static_branch_maybe(cfg, &k)
|
- unlikely(static_branch_likely@p(&(k)))
+ static_branch_maybe(cfg, &k)
|
- static_branch_unlikely@p(&k)
+ static_branch_maybe(cfg, &k)
|
- static_branch_likely@p(&k)
+ static_branch_maybe(cfg, &k)
|
- static_branch_unlikely@p(&(k))
+ static_branch_maybe(cfg, &k)
|
- static_branch_likely@p(&(k))
+ static_branch_maybe(cfg, &k)
)

@depends on context@
identifier uok.key;
position u.p;
@@
(
* static_branch_unlikely@p(&key)
|
* static_branch_likely@p(&key)
|
* static_branch_unlikely@p(&(key))
|
* static_branch_likely@p(&(key))
)

@script:python depends on org || report@
k << u.k;
p << u.p;
cfg << uok.cfg;
@@
msg = '%s: test of a %s-default key; use static_branch_maybe(%s, &%s)' % (k, cfg, cfg, k)
hint = re.search(r'\b(likely|unlikely)\s*\(\s*$', _read(p[0].file)[int(p[0].line) - 1][:int(p[0].column)])
if hint:
	msg += ' without the %s() around it' % hint.group(1)
if _mode == 'org':
	coccilib.org.print_todo(p[0], msg)
else:
	emit(p[0], msg)
