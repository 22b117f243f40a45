// SPDX-License-Identifier: GPL-2.0-only
/// Lint the use of static keys in one file: static_branch_likely() on a
/// FALSE key or static_branch_unlikely() on a TRUE key with no comment
/// (the code is laid out for the state the key does not start in), a
/// static_branch_maybe() whose CONFIG option is not the one of the key's
/// DEFINE_STATIC_KEY_MAYBE(), a MAYBE key on a CONFIG option that the
/// tree's Kconfig does not make a bool, and a _RO key changed outside
/// __init code (its memory is read-only once init is done).  Reports
/// only; patch and context modes print nothing.
///
// Confidence: Moderate
// Copyright: (C) 2026 The statickeys authors
// Comments: one file at a time, so only keys defined in the file being
//  checked are judged.  A DECLARE whose type differs from the DEFINE of
//  another file needs the whole tree: statickeys' make coccicheck
//  MODE=lint (scripts/cocci-lint.py) does that and the rest tree-wide.
//  Every rule that starts a check names its macros (no declarer or
//  identifier set, no script rule without a match), so that spatch has
//  a token query and the kernel's make coccicheck parses only the files
//  that spell one of them, not every file of the tree.
// Options: --no-includes --include-headers
// Keywords: static_branch_likely, static_branch_unlikely, static_branch_maybe, _RO
// Requires: 1.0.8

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import os
import re

_kconfig = {}


def _lines(path):
	with open(path, 'rb') as fh:
		return fh.read().decode('utf-8', 'surrogateescape').split('\n')


# A comment, a string literal or a character literal, whichever starts
# first: the comment marks of a string (a URL) are no comment, and a
# comment's quotes open no string.  (No comment mark is spelt out here:
# spatch reads this script as it reads the rules.)
_TOKEN = re.compile(r'/[*].*?(?:[*]/|\Z)|/{2}[^\n]*|"(?:\\.|[^"\\\n])*"?|'
		    r"'(?:\\.|[^'\\\n])*'?", re.S)
_commented = {}


def comment_lines(path):
	"""The numbers (from 1) of the lines of path that hold a comment or
	part of one."""
	if path not in _commented:
		text = '\n'.join(_lines(path))
		out, line, pos = set(), 1, 0
		for m in _TOKEN.finditer(text):
			line += text.count('\n', pos, m.start())
			pos = m.end()
			n = m.group(0).count('\n')
			if m.group(0)[0] == '/':
				out.update(range(line, line + n + 1))
			line += n
		_commented[path] = out
	return _commented[path]


def commented(p):
	"""A comment on the line of p or the line above it."""
	n = int(p.line)
	return bool({n, n - 1} & comment_lines(p.file))


def in_init(p):
	"""__init in the head of the function that holds p."""
	text = '\n'.join(_lines(p.file)[:int(p.line)])
	fn = re.escape(p.current_element)
	heads = list(re.finditer(r'(?:^|[;}])([^;{}]*\b%s\s*\([^;{}]*)\{' % fn, text))
	return bool(heads) and re.search(r'\b__init\b', heads[-1].group(1)) is not None


def kconfig_type(path, name):
	"""The type of CONFIG_name in the Kconfig files of the tree that
	holds path (the nearest directory above with Kconfig and
	MAINTAINERS), '' when none defines it, None when there is no tree."""
	d = os.path.dirname(os.path.abspath(path))
	while d != os.path.dirname(d) and not (os.path.isfile(os.path.join(d, 'Kconfig'))
		and os.path.isfile(os.path.join(d, 'MAINTAINERS'))):
		d = os.path.dirname(d)
	if d == os.path.dirname(d):
		return None
	if d not in _kconfig:
		types = {}
		for top, dirs, files in os.walk(d):
			dirs[:] = [x for x in dirs if not x.startswith('.')]
			for f in files:
				if not f.startswith('Kconfig'):
					continue
				cur = None
				for l in _lines(os.path.join(top, f)):
					m = re.match(r'^\s*(?:menu)?config\s+(\w+)', l)
					if m:
						cur = m.group(1)
						continue
					m = re.match(r'^\s*(bool|tristate|int|hex|string|def_bool|def_tristate)\b', l)
					if cur and m:
						types.setdefault(cur, m.group(1).replace('def_', ''))
						cur = None
		_kconfig[d] = types
	return _kconfig[d].get(name[len('CONFIG_'):], '')


def say(p, k, msg):
	if _mode == 'org':
		coccilib.org.print_todo(p, '%s: %s' % (k, msg))
	else:
		coccilib.report.print_report(p, '%s: %s' % (k, msg))


_mode = 'report'

// ---- the declarations: named, so that spatch (and the kernel's make
// coccicheck) parses only the files that spell one of them ----

@fk depends on report || org@
declarer name DEFINE_STATIC_KEY_FALSE, DEFINE_STATIC_KEY_FALSE_RO;
identifier k;
@@
(
DEFINE_STATIC_KEY_FALSE(k);
|
DEFINE_STATIC_KEY_FALSE_RO(k);
)

@tk depends on report || org@
declarer name DEFINE_STATIC_KEY_TRUE, DEFINE_STATIC_KEY_TRUE_RO;
identifier k;
@@
(
DEFINE_STATIC_KEY_TRUE(k);
|
DEFINE_STATIC_KEY_TRUE_RO(k);
)

@mk depends on report || org@
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

@ro depends on report || org@
declarer name DEFINE_STATIC_KEY_TRUE_RO, DEFINE_STATIC_KEY_FALSE_RO, DEFINE_STATIC_KEY_MAYBE_RO;
identifier k;
@@
(
DEFINE_STATIC_KEY_TRUE_RO(k);
|
DEFINE_STATIC_KEY_FALSE_RO(k);
|
DEFINE_STATIC_KEY_MAYBE_RO(...,k);
)

@script:python depends on org && (fk || tk || mk || ro)@
@@
_mode = 'org'

// ---- the layout of a test against the key's fixed state ----

@lf depends on report || org@
identifier fk.k;
position p;
@@
static_branch_likely@p(&k)

@script:python depends on report || org@
k << fk.k;
p << lf.p;
@@
if not commented(p[0]):
	say(p[0], k, 'static_branch_likely() on a FALSE key with no comment: '
	    'the code is laid out for the state the key does not start in')

@ut depends on report || org@
identifier tk.k;
position p;
@@
static_branch_unlikely@p(&k)

@script:python depends on report || org@
k << tk.k;
p << ut.p;
@@
if not commented(p[0]):
	say(p[0], k, 'static_branch_unlikely() on a TRUE key with no comment: '
	    'the code is laid out for the state the key does not start in')

// ---- MAYBE keys: the test's option, the option's Kconfig type ----

@mt depends on report || org@
identifier mk.k;
identifier c2 != mk.c;
position p;
@@
static_branch_maybe@p(c2, &k)

@script:python depends on report || org@
k << mk.k;
c << mk.c;
c2 << mt.c2;
p << mt.p;
@@
say(p[0], k, 'static_branch_maybe(%s) on a key of %s: the layout follows '
    "one option, the key's state another" % (c2, c))

@script:python depends on report || org@
k << mk.k;
c << mk.c;
p << mk.p;
@@
t = kconfig_type(p[0].file, c)
if t == '':
	say(p[0], k, '%s is defined by no Kconfig file of the tree: '
	    'IS_ENABLED() of it is always false' % c)
elif t == 'tristate':
	say(p[0], k, '%s is tristate: IS_ENABLED() is true for =m too' % c)
elif t is not None and t != 'bool':
	say(p[0], k, '%s is %s: IS_ENABLED() of it is always false' % (c, t))

// ---- _RO keys changed after init ----

@rw depends on report || org@
identifier ro.k;
identifier f = {static_branch_enable, static_branch_disable, static_branch_inc,
		static_branch_dec, static_branch_enable_cpuslocked,
		static_branch_disable_cpuslocked, static_key_enable,
		static_key_disable, static_key_slow_inc, static_key_slow_dec};
position p;
@@
(
f@p(&k)
|
f@p(&k.key)
)

@script:python depends on report || org@
k << ro.k;
f << rw.f;
p << rw.p;
@@
if not in_init(p[0]):
	say(p[0], k, '%s() in %s(), which is not __init: the key is _RO, its '
	    'memory is read-only once init is done' % (f, p[0].current_element))

