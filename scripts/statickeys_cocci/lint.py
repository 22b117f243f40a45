# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/coccicheck --mode lint: mistakes in the use of static keys that a
# compiler does not catch, over a whole tree (cross-file, with the tree's
# Kconfig), for CI: a DECLARE whose type differs from the key's DEFINE
# under some configuration, static_branch_likely() on a FALSE key and
# static_branch_unlikely() on a TRUE key with no comment, a
# static_branch_maybe() whose CONFIG is not the key's, a MAYBE key on a
# CONFIG that is not a bool, and a _RO key changed outside __init code.
# A text scan over comment- and string-blanked source (the Source class of
# scripts/cocci-options.py); coccinelle/static_key_lint.cocci does the
# checks one file allows inside the kernel's own make coccicheck.
import itertools
import os
import re

from . import options as OPT

KEY = r'\s*&\s*\(?\s*(\w+)\s*\)?\s*(?![\w.\[]|->)'
PLAIN = re.compile(r'\b(DEFINE|DECLARE)_STATIC_KEY_(TRUE|FALSE)(_RO)?\s*\(\s*(\w+)\s*\)')
MAYBE = re.compile(r'\b(DEFINE|DECLARE)_STATIC_KEY_MAYBE(_RO)?\s*\(\s*(CONFIG_\w+)\s*,'
		   r'\s*(\w+)\s*\)')
STRUCT = re.compile(r'^[ \t]*(extern\s+|static\s+)?struct\s+static_key_(true|false)\s+'
		    r'(\w+)\s*(=|;)', re.M)
TEST = re.compile(r'\bstatic_branch_(likely|unlikely)\s*\(' + KEY)
TEST_MAYBE = re.compile(r'\bstatic_branch_maybe\s*\(\s*(CONFIG_\w+)\s*,' + KEY)
CHANGE = re.compile(r'\b(static_branch_(?:enable|disable|inc|dec)|static_key_(?:enable|'
		    r'disable|slow_inc|slow_dec))(?:_cpuslocked)?\s*\(\s*&\s*\(?\s*(\w+)'
		    r'(?:\s*\.\s*key)?\s*\)?\s*(?![\w.\[]|->)')
LITERAL = re.compile(r'^(!?)\s*(?:defined\s*\(?\s*(CONFIG_\w+)\s*\)?|IS_ENABLED\s*\(\s*'
		     r'(CONFIG_\w+)\s*\)|(CONFIG_\w+))$')
MAX_VARS = 10


class Decl:
	"""One DEFINE or DECLARE: value True, False or a CONFIG name."""

	def __init__(self, src, off, define, key, value, ro, static, conds):
		self.src, self.off, self.define, self.key = src, off, define, key
		self.value, self.ro, self.static, self.conds = value, ro, static, conds
		self.line = src.line_col(off)[0]

	def where(self):
		return '%s:%d' % (self.src.path, self.line)

	def name(self):
		kind = 'DEFINE' if self.define else 'DECLARE'
		if isinstance(self.value, str):
			return '%s_STATIC_KEY_MAYBE(%s)' % (kind, self.value)
		return '%s_STATIC_KEY_%s' % (kind, 'TRUE' if self.value else 'FALSE')


def conditions(s, off):
	"""The literals ((variable, wanted value)) of every conditional
	around off; a test that is not one CONFIG option is a variable of its
	own (its text), free to be either."""
	out = []
	for a, e, kind, cond, els in s.conds:
		if not a <= off < e:
			continue
		cond = re.sub(r'\s+', ' ', cond).strip()
		if kind in ('ifdef', 'ifndef'):
			out.append((cond, (kind == 'ifdef') != els))
			continue
		m = LITERAL.match(cond) if kind == 'if' else None
		if m:
			var = m.group(2) or m.group(3) or m.group(4)
			out.append((var, (not m.group(1)) != els))
		else:
			out.append(('#%s %s' % (kind, cond), not els))
	return out


def scope(path):
	"""Files of different architectures (and tools/, which has its own
	copies of the headers) never see each other's keys.  The
	architecture is read from the path in the kernel tree (OPT.PREFIX),
	so that a scan of arch/ alone still tells them apart, and a tree
	kept under some other arch/ directory is not taken for one."""
	if re.match(r'tools/', OPT.PREFIX[0] + path):
		return 'tools'
	a = OPT.arch_of(path)
	return a and 'arch/' + a


def visible(a, b):
	sa, sb = scope(a.src.path), scope(b.src.path)
	if sa and sb and sa != sb:
		return False
	if (sa == 'tools') != (sb == 'tools'):
		return False
	if a.static or b.static:
		return a.src.path == b.src.path
	return True


def collect(srcs):
	decls = {}
	for s in srcs:
		found = []
		for m in PLAIN.finditer(s.code):
			found.append((m.start(), m.group(1) == 'DEFINE', m.group(4),
				      m.group(2) == 'TRUE', bool(m.group(3))))
		for m in MAYBE.finditer(s.code):
			found.append((m.start(), m.group(1) == 'DEFINE', m.group(4),
				      m.group(3), bool(m.group(2))))
		for m in STRUCT.finditer(s.code):
			ext = (m.group(1) or '').strip() == 'extern'
			found.append((m.start(3), not ext, m.group(3),
				      m.group(2) == 'true', False))
		for off, define, key, value, ro in found:
			if s.in_macro(off) or s.func_at(off):
				continue
			ls = s.code.rfind('\n', 0, off) + 1
			static = bool(re.match(r'\s*static\b', s.code[ls:off + 1]))
			decls.setdefault(key, []).append(Decl(
				s, off, define, key, value, ro, static, conditions(s, off)))
	return decls


def disagree(d, e):
	"""The first configuration (as text) in which d and e are both
	compiled and give the key different types, or None."""
	lits = d.conds + e.conds
	names = sorted({v for v, _ in lits} | {x.value for x in (d, e)
						   if isinstance(x.value, str)})
	if len(names) > MAX_VARS:
		return None
	for vals in itertools.product((False, True), repeat=len(names)):
		env = dict(zip(names, vals))
		if not all(env[v] == want for v, want in lits):
			continue
		tv = [env[x.value] if isinstance(x.value, str) else x.value for x in (d, e)]
		if tv[0] != tv[1]:
			conf = ['%s=%s' % (n, 'y' if env[n] else 'n') for n in names
				if n.startswith('CONFIG_')]
			return ', '.join(conf) or 'every configuration'
	return None


def has_comment(s, off):
	"""A comment on the line of off or on the line above it."""
	line = s.line_col(off)[0]
	t, c = s.text.split('\n'), s.nostr.split('\n')
	return any(0 <= i < len(t) and t[i] != c[i] for i in (line - 1, line - 2))


def lint(srcs, kconfig_types):
	out = []

	def say(s, off, key, msg):
		line, col = s.line_col(off)
		out.append('%s:%d:%d: %s: %s' % (s.path, line, col, key, msg))

	decls = collect(srcs)
	# 1. A DECLARE whose type differs from a DEFINE it can meet.
	for key, ds in decls.items():
		defs = [d for d in ds if d.define]
		for e in (d for d in ds if not d.define):
			for d in defs:
				if not visible(d, e):
					continue
				why = disagree(d, e)
				if why:
					say(e.src, e.off, key, '%s, but %s at %s: the types differ '
					    'with %s' % (e.name(), d.name(), d.where(), why))
					break

	def defs_of(s, off, key):
		here = Decl(s, off, False, key, None, False, False, [])
		return [d for d in decls.get(key, ()) if d.define and
			(d.src.path == s.path or not d.static) and visible(d, here)]

	for s in srcs:
		# 2. The layout of a test against the key's fixed state.
		for m in TEST.finditer(s.code):
			ds = defs_of(s, m.start(), m.group(2))
			vals = {d.value for d in ds}
			if len(vals) != 1 or isinstance(next(iter(vals)), str):
				continue
			value = vals.pop()
			if (m.group(1) == 'likely') == value or has_comment(s, m.start()):
				continue
			say(s, m.start(), m.group(2), 'static_branch_%s() on a %s key (%s) '
			    'with no comment: the code is laid out for the state the key '
			    'does not start in' % (m.group(1), 'TRUE' if value else 'FALSE',
						   ds[0].where()))
		# 3. static_branch_maybe() with another CONFIG than the key's.
		for m in TEST_MAYBE.finditer(s.code):
			ds = [d for d in sorted(decls.get(m.group(2), ()), key=lambda d: not d.define)
			      if isinstance(d.value, str) and visible(
				      d, Decl(s, m.start(), False, '', None, False, False, []))]
			other = [d for d in ds if d.value != m.group(1)]
			if ds and len(other) == len(ds):
				say(s, m.start(), m.group(2), 'static_branch_maybe(%s) on a key '
				    'of %s (%s): the layout follows one option, the key\'s '
				    'state another' % (m.group(1), other[0].value, other[0].where()))
		# 5. A _RO key changed outside __init code.
		for m in CHANGE.finditer(s.code):
			ds = defs_of(s, m.start(), m.group(2))
			if not ds or not all(d.ro for d in ds):
				continue
			f = s.func_at(m.start())
			if f is None or re.search(r'\b__init\b', s.code[max(
					s.code.rfind(';', 0, f[3]), s.code.rfind('}', 0, f[3])):f[1]]):
				continue
			say(s, m.start(), m.group(2), '%s() in %s(), which is not __init: '
			    'the key is _RO (%s), its memory is read-only once init is '
			    'done' % (m.group(1), f[0], ds[0].where()))
	# 4. MAYBE keys on a CONFIG that is not a bool.
	maybes = [d for ds in decls.values() for d in ds if isinstance(d.value, str)]
	types = kconfig_types({d.value for d in maybes})
	if types is not None:
		for d in maybes:
			t = types.get(d.value)
			if t is None:
				say(d.src, d.off, d.key, '%s: %s is defined by no Kconfig file '
				    'of the tree: IS_ENABLED() of it is always false' %
				    (d.name(), d.value))
			elif t[0] != 'bool':
				say(d.src, d.off, d.key, '%s: %s is %s (%s:%d): %s' % (
					d.name(), d.value, t[0], t[1], t[2],
					'IS_ENABLED() is true for =m too' if t[0] == 'tristate'
					else 'IS_ENABLED() of an option of type %s is always false' % t[0]))
	return out


def analyse(top, files, kconfig_types, root=None):
	"""The lint's lines for the files (relative to top, in the kernel
	tree at root) that name the static key API."""
	OPT.set_prefix(os.path.realpath(top), root and os.path.realpath(root))
	names = OPT.grep(top, files, ['-E', r'STATIC_KEY|static_branch_|static_key_'])
	srcs = [OPT.load(top, f) for f in names]
	return lint(srcs, kconfig_types)
