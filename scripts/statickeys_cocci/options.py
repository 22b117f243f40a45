# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# scripts/coccicheck --rule options: boot-parameter options whose default
# comes from a CONFIG option (static bool foo = IS_ENABLED(CONFIG_X), or an
# #ifdef-chosen initial value) become MAYBE static keys.  Report mode names
# each such option as a candidate or a refusal with its reason; patch mode
# converts the candidates.  A text scan over comment- and string-blanked
# source: every use of the option must be one the scan can classify, and
# anything else refuses the option, so that it never converts blind.
import bisect
import difflib
import os
import re
import subprocess

from . import finish

# The architectures of the tree whose setup code calls jump_label_init()
# before parse_early_param() (read from the tree by early_keys_arches());
# elsewhere early parameters are parsed before start_kernel()'s
# jump_label_init(), where a key cannot change.
EARLY_KEYS_ARCHES = []
# Where the scanned directory sits in its tree ('' at the root, else
# "arch/x86/" and the like): a file's architecture is read from its
# path in the tree, so that a scan of one directory still knows it.
PREFIX = ['']
TYPES = r'(?:bool|_Bool|int|unsigned\s+int|unsigned)'
ATTRS = r'(?:__ro_after_init|__read_mostly|__initdata)'


def blank(text, strings=True):
	"""text with comments (and string and character literals) replaced
	by spaces, newlines kept: offsets and line numbers stay valid."""
	out, i, n = [], 0, len(text)
	rx = re.compile(r'/\*|//|"|\'' if strings else r'/\*|//|"')
	while i < n:
		m = rx.search(text, i)
		if not m:
			out.append(text[i:])
			break
		out.append(text[i:m.start()])
		t = m.group(0)
		if t == '/*':
			e = text.find('*/', m.end())
			e = n if e < 0 else e + 2
		elif t == '//':
			e = text.find('\n', m.end())
			e = n if e < 0 else e
		else:
			e = m.end()
			while e < n and text[e] != t and text[e] != '\n':
				e += 2 if text[e] == '\\' else 1
			e = min(e + 1, n)
		seg = text[m.start():e]
		if t == '"' and not strings:
			out.append(seg)
		else:
			out.append(re.sub(r'[^\n]', ' ', seg))
		i = e
	return ''.join(out)


class Source:
	"""One file: its text, the blanked text, its functions and macros."""

	def __init__(self, path, text):
		self.path, self.text = path, text
		self.code = blank(text)
		self.nostr = blank(text, strings=False)
		self.funcs = []		# (name, body start, body end, head start)
		self.macros = []	# (start, end) of #define lines
		self.conds = []		# (start, end, cond text, is else branch)
		self._scan()

	def line_col(self, off):
		line = self.text.count('\n', 0, off) + 1
		return line, off - (self.text.rfind('\n', 0, off) + 1) + 1

	def _scan(self):
		code = self.code
		for m in re.finditer(r'^[ \t]*#[ \t]*define\b(?:[^\n]*\\\n)*[^\n]*',
				     code, re.M):
			self.macros.append((m.start(), m.end()))
		# Preprocessor conditionals, for #ifdef-chosen initial values.
		stack = []
		for m in re.finditer(r'^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)',
				     code, re.M):
			d, rest = m.group(1), m.group(2).strip()
			if d in ('if', 'ifdef', 'ifndef'):
				stack.append([d, rest, m.end(), False])
			elif d in ('elif', 'else') and stack:
				top = stack[-1]
				self.conds.append((top[2], m.start(), top[0], top[1], top[3]))
				top[2], top[3] = m.end(), True
				if d == 'elif':
					top[0] = 'elif'
			elif d == 'endif' and stack:
				top = stack.pop()
				self.conds.append((top[2], m.start(), top[0], top[1], top[3]))
		# Top-level brace blocks that follow a ")" are function bodies.
		depth, i, start = 0, 0, None
		masked = self._mask_pp(code)
		for m in re.finditer(r'[{}]', masked):
			if m.group(0) == '{':
				if depth == 0:
					start = m.start()
				depth += 1
			else:
				depth -= 1
				if depth == 0 and start is not None:
					h = self._head(masked, start)
					if h:
						self.funcs.append((h[0], start, m.end(), h[1]))
				depth = max(depth, 0)
		self.starts = [f[1] for f in self.funcs]

	@staticmethod
	def _head(code, brace):
		"""(name, offset) of the function whose body opens at brace:
		the identifier before the balanced (...) right before it."""
		i = brace - 1
		while i >= 0 and code[i].isspace():
			i -= 1
		if i < 0 or code[i] != ')':
			return None
		depth = 0
		while i >= 0:
			if code[i] == ')':
				depth += 1
			elif code[i] == '(':
				depth -= 1
				if depth == 0:
					break
			elif code[i] in ';{}':
				return None
			i -= 1
		j = i - 1
		while j >= 0 and code[j].isspace():
			j -= 1
		e = j + 1
		while j >= 0 and (code[j].isalnum() or code[j] == '_'):
			j -= 1
		name = code[j + 1:e]
		if not name or name in ('if', 'while', 'for', 'switch') or name[0].isdigit():
			return None
		return name, j + 1

	@staticmethod
	def _mask_pp(code):
		return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
			      lambda m: re.sub(r'[^\n]', ' ', m.group(0)), code, flags=re.M)

	def func_at(self, off):
		i = bisect.bisect_right(self.starts, off) - 1
		if i >= 0 and off < self.funcs[i][2]:
			return self.funcs[i]
		return None

	def in_macro(self, off):
		return any(s <= off < e for s, e in self.macros)

	def cond_at(self, off):
		"""Innermost conditional branch holding off: (kind, cond, else)."""
		best = None
		for s, e, kind, cond, els in self.conds:
			if s <= off < e and (best is None or s > best[0]):
				best = (s, kind, cond, els)
		return best and best[1:]


class Option:
	def __init__(self, name, src, off, decl_end, kind):
		self.name, self.src, self.off, self.end = name, src, off, decl_end
		self.kind = kind		# 'var', 'array', 'field'
		self.decls = []			# (src, start, end, attrs, value, cond)
		self.static = False
		self.type = 'bool'
		self.config = None
		self.impure = None
		self.handlers = []		# (src, func, macro, param)
		self.refusals = []
		self.uses = []			# (src, off, what)
		self.externs = []		# (src, start, end)
		self.ro = False
		self.early = []			# early_param() words, outside EARLY_KEYS_ARCHES
		self.noparam = False		# chosen by Kconfig, set by no parameter
		self.heat = None		# (hot reads, cold reads), see heat()


DECL = re.compile(r'^[ \t]*(static\s+)?(?:const\s+)?(' + TYPES + r')\s+(\w+)\s*'
		  r'(\[[^\]\n]*\])?\s*((?:' + ATTRS + r'\s*)*)(?:=\s*([^;]*?))?\s*'
		  r'((?:' + ATTRS + r'\s*)*);', re.M)
STRUCT_DECL = re.compile(r'^[ \t]*(static\s+)?struct\s+\w+\s+(\w+)\s*(?:' + ATTRS +
			 r'\s*)*=\s*\{', re.M)
EXTERN = re.compile(r'^[ \t]*extern\s+(?:const\s+)?(' + TYPES + r')\s+(\w+)\s*'
		    r'((?:' + ATTRS + r'\s*)*);[ \t]*\n', re.M)
HANDLER = re.compile(r'\b(early_param|__setup)\s*\(\s*("(?:[^"\\]|\\.)*")\s*,\s*(\w+)\s*\)')
CORE_PARAM = re.compile(r'\bcore_param\s*\(\s*(\w+)\s*,\s*(\w+)\s*,')


def config_value(value):
	"""(CONFIG_X, None) when value is IS_ENABLED(CONFIG_X) alone, else
	(CONFIG named or None, why it is not a pure test)."""
	v = re.sub(r'\s+', ' ', value or '').strip()
	m = re.match(r'^\(?\s*IS_ENABLED\s*\(\s*(CONFIG_\w+)\s*\)\s*\)?$', v)
	if m:
		return m.group(1), None
	c = re.search(r'\bCONFIG_\w+', v)
	return (c.group(0) if c else None), v


def truth(value):
	v = re.sub(r'\s+', '', value or '')
	if v in ('', '0', 'false'):
		return False
	if v in ('1', 'true'):
		return True
	return None


def find_options(srcs):
	"""The options of the files that set boot parameters."""
	opts = {}
	for s in srcs:
		decls = {}
		for m in DECL.finditer(s.code):
			if s.func_at(m.start()) or s.in_macro(m.start()):
				continue
			name = m.group(3)
			attrs = (m.group(5) or '') + ' ' + (m.group(7) or '')
			value = s.code[m.start(6):m.end(6)] if m.group(6) is not None else None
			decls.setdefault(name, []).append(dict(
				m=m, static=bool(m.group(1)), type=m.group(2),
				array=bool(m.group(4)), attrs=attrs, value=value,
				cond=s.cond_at(m.start())))
		fields = {}
		for m in STRUCT_DECL.finditer(s.code):
			if s.func_at(m.start()):
				continue
			end = s.code.find('};', m.end())
			body = s.code[m.end():end]
			for f in re.finditer(r'\.(\w+)\s*=\s*([^,}]*)', body):
				if 'CONFIG_' in f.group(2):
					fields['%s.%s' % (m.group(2), f.group(1))] = (
						m.start(2), m.group(2), f.group(1))
		handlers = []
		for m in HANDLER.finditer(s.nostr):
			handlers.append((m.group(3), m.group(1), m.group(2), m.start()))
		cores = {m.group(2): m for m in CORE_PARAM.finditer(s.code)}
		for name, ds in decls.items():
			init = [d for d in ds if d['value'] is not None or d['cond']]
			# A CONFIG test in the value, or one declaration per
			# branch of a CONFIG conditional (a lone declaration
			# inside #ifdef only exists with the option).
			if not any('CONFIG_' in (d['value'] or '') or
				   (len(ds) > 1 and d['cond'] and 'CONFIG_' in d['cond'][1])
				   for d in init):
				continue
			rx = re.compile(r'(?<![\w.>])%s\b' % re.escape(name))
			sets = []
			for fn, macro, param, at in handlers:
				f = [x for x in s.funcs if x[0] == fn]
				if f and rx.search(s.code, f[0][1], f[0][2]):
					sets.append((s, f[0], macro, param))
			noparam = not sets and name not in cores
			d0 = ds[0]
			o = Option(name, s, d0['m'].start(3), d0['m'].end(), 'array'
				   if any(d['array'] for d in ds) else 'var')
			o.static = d0['static']
			o.type = re.sub(r'\s+', ' ', d0['type'])
			o.handlers = sets
			o.ro = '__ro_after_init' in d0['attrs']
			o.decls = ds
			o.noparam = noparam
			if name in cores:
				o.refusals.append('address taken: core_param(%s) writes it '
						  'through its address' % cores[name].group(1))
			classify_init(o, ds)
			# A global variable is one per architecture: x86's
			# force_iommu is not ia64's (see visible()).
			opts[(s.path if o.static else arch_of(s.path), name)] = o
		for key, (off, var, field) in fields.items():
			rx = re.compile(r'\b%s\s*(?:\.|->)\s*%s\b' % (re.escape(var), re.escape(field)))
			sets = []
			for fn, macro, param, at in handlers:
				f = [x for x in s.funcs if x[0] == fn]
				if f and rx.search(s.code, f[0][1], f[0][2]):
					sets.append((s, f[0], macro, param))
			o = Option(key, s, off, off, 'field')
			o.handlers = sets
			o.noparam = not sets
			o.refusals.append('a struct field: a key cannot be a member '
					  'of %s' % var)
			o.static = True
			opts[(s.path, key)] = o
	return opts


def classify_init(o, ds):
	"""The CONFIG option the initial value follows, or why it is not a
	pure CONFIG test."""
	if len(ds) == 1:
		cfg, why = config_value(ds[0]['value'])
		if why is None:
			o.config = cfg
			return
		o.config = cfg
		o.impure = 'initial value not a pure CONFIG test: %s' % why
		return
	# One declaration per branch of one #ifdef CONFIG_X / #else.
	conds = {d['cond'][1] if d['cond'] else None for d in ds}
	if len(ds) == 2 and len(conds) == 1 and None not in conds:
		kind, cond, _ = ds[0]['cond']
		vals = {d['cond'][2]: truth(d['value']) for d in ds}
		m = None
		if kind in ('ifdef', 'ifndef'):
			m = re.match(r'^(CONFIG_\w+)$', cond)
		elif kind == 'if':
			m = re.match(r'^(?:defined\s*\(?\s*|IS_ENABLED\s*\(\s*)(CONFIG_\w+)\s*\)?$',
				     cond)
		if m and None not in vals.values() and len(vals) == 2:
			on = vals[False] if kind != 'ifndef' else vals[True]
			off = vals[True] if kind != 'ifndef' else vals[False]
			o.config = m.group(1)
			if on and not off:
				return
			o.impure = 'initial value not a pure CONFIG test: %s when %s ' \
				   'is set' % ('false' if not on else 'true', m.group(1))
			return
	c = [d['cond'][1] for d in ds if d['cond']]
	o.config = (re.search(r'CONFIG_\w+', ' '.join(c)) or [None])[0]
	o.impure = 'initial value not a pure CONFIG test: chosen by %s' % (
		', '.join('#%s %s' % (d['cond'][0], d['cond'][1]) for d in ds if d['cond'])
		or 'several declarations')


def classify_uses(o, srcs, all_handlers):
	"""Every occurrence of the option in the files it can be seen from
	(all_handlers: (file, body offset) of every parameter handler)."""
	if o.kind == 'field':
		return
	rx = re.compile(r'(?<![\w.>$])%s\b' % re.escape(o.name))
	handler_funcs = {(h[0].path, h[1][1]) for h in o.handlers}
	decl_spans = {(o.src.path, d['m'].start(), d['m'].end()) for d in o.decls}
	for s in (srcs if not o.static and not o.noparam else [o.src]):
		for m in rx.finditer(s.code):
			off = m.start()
			if any(p == s.path and a <= off < b for p, a, b in decl_spans):
				continue
			before = s.code[max(0, off - 200):off]
			after = s.code[m.end():m.end() + 200]
			line, col = s.line_col(off)
			where = '%s:%d' % (s.path, line)
			ext = EXTERN.match(s.code, s.code.rfind('\n', 0, off) + 1)
			if ext and ext.group(2) == o.name:
				o.externs.append((s, ext.start(), ext.end()))
				continue
			if re.search(r'\bEXPORT_SYMBOL\w*\s*\(\s*$', before):
				o.refusals.append('an exported symbol (%s): modules read '
						  'it as a %s' % (where, o.type))
				continue
			if re.search(r'\bMODULE_PARM_DESC\s*\(\s*$', before):
				continue	# its description
			if re.search(r'\bmodule_param\w*\s*\((?:\s*\w+\s*,)?\s*$', before):
				o.refusals.append('set by module_param() (%s)' % where)
				continue
			if re.search(r'\bcore_param\s*\(\s*\w+\s*,\s*$', before) or \
			   re.search(r'\b(?:early_param|__setup)\b', s.code[
				   s.code.rfind('\n', 0, off):off]):
				continue
			f = s.func_at(off)
			in_handler = f is not None and (s.path, f[1]) in handler_funcs
			if re.search(r'&\s*$', before) and not re.search(r'&&\s*$', before):
				if in_handler and re.search(r'\bkstrtobool\s*\([^;()]*,\s*&\s*$', before):
					o.uses.append((s, off, 'kstrtobool'))
					continue
				o.refusals.append('address taken (%s)' % where)
				continue
			if s.in_macro(off):
				o.refusals.append('used in a macro body (%s)' % where)
				continue
			if f is None:
				o.refusals.append('used outside a function (%s)' % where)
				continue
			if re.match(r'\s*\[', after):
				o.uses.append((s, off, 'index'))
				continue
			if re.match(r'\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)', after) or \
			   re.match(r'\s*(?:\+\+|--)', after) or \
			   re.search(r'(?:\+\+|--)\s*$', before):
				if in_handler:
					o.uses.append((s, off, 'write'))
				else:
					o.refusals.append('written outside its parameter '
							  'handler (%s, in %s())' % (where, f[0]))
				continue
			if (s.path, f[1]) in all_handlers:
				o.refusals.append('read before keys may change: in the '
						  'boot-parameter handler %s() (%s)' % (f[0], where))
				continue
			if o.type != 'bool' and (
				re.match(r'\s*(?:[-+*/%<>^]|\|(?!\|)|==|!=|&(?!&))', after) or
				re.search(r'(?:[-+*/%<>^]|(?<!\|)\||==|!=|(?<!&)&)\s*$', before)):
				o.refusals.append('used as a number, not a truth value (%s)'
						  % where)
				continue
			o.uses.append((s, off, 'read'))


def set_prefix(top, root):
	"""PREFIX for a scan of top in the kernel tree at root; when root is
	None (no MAINTAINERS and Kbuild above), a directory with an arch/
	of its own is the root, and else a directory inside some arch/ is
	still that architecture's.  Returns the root taken."""
	if root is None and not os.path.isdir(os.path.join(top, 'arch')):
		m = re.match(r'(.*)/arch(?:/[^/]+)?$', top)
		root = m.group(1) if m else top
	root = root or top
	rel = os.path.relpath(top, root)
	PREFIX[0] = '' if rel == '.' else rel + '/'
	return root


def arch_of(path):
	"""The architecture whose arch/<name>/ holds path (relative to the
	scanned directory), or None for generic code."""
	m = re.match(r'arch/([^/]+)/', PREFIX[0] + path)
	return m and m.group(1)


def visible(o, path, defined):
	"""Whether the global o (of arch_of(o.src.path), None for generic
	code) is the one a use in path names, defined the scopes (the same
	and other architectures, None) that define a global of its name:
	each architecture sees its own, or else the generic one; generic
	code sees the generic one, or else the one architecture's."""
	mine, there = arch_of(o.src.path), arch_of(path)
	if there is not None:
		return there == mine or (mine is None and there not in defined)
	return mine is None or None not in defined


def shared(o, defined):
	"""Refuse an architecture's global that generic code names while
	another architecture defines its own of the same name: converting
	one would break the other's build of that generic code."""
	mine = arch_of(o.src.path)
	others = sorted(a for a in defined if a not in (mine, None))
	if mine is None or None in defined or not others:
		return
	found = [('names', s, off) for s, off, _ in o.uses] + \
		[('declares', s, a) for s, a, _ in o.externs]
	for verb, s, off in found:
		if arch_of(s.path) is None:
			o.refusals.append(
				'generic code (%s:%d) %s it, and arch/%s defines its '
				'own %s' % (s.path, s.line_col(off)[0], verb, others[0],
					    o.name))
			return


def early_keys_arches(root):
	"""The architectures of the tree at root whose setup code calls
	jump_label_init() before parse_early_param() in one function: there
	an early_param() handler may change a key.  Read from the tree, not
	from a list of one kernel's: an architecture added later, or one
	that moved its setup code, is judged by what it does."""
	adir = os.path.join(root, 'arch')
	if not os.path.isdir(adir):
		return []
	files = []
	for d, dirs, names in os.walk(adir):
		dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
		files += [os.path.relpath(os.path.join(d, n), root)
			  for n in names if n.endswith('.c')]
	out = set()
	calls = re.compile(r'\b(jump_label_init|parse_early_param)\s*\(\s*\)\s*;')
	for f in grep(root, sorted(files), ['-E', r'\bjump_label_init[[:space:]]*\(']):
		s = load(root, f)
		init = {}
		for m in calls.finditer(s.code):
			fn = s.func_at(m.start())
			if not fn:
				continue
			if m.group(1) == 'jump_label_init':
				init.setdefault(fn[1], m.start())
			elif fn[1] in init:
				out.add(f.split('/')[1])
	return sorted(out)


def check_handlers(o):
	"""The handler shapes patch mode rewrites: the whole body returns
	kstrtobool(s, &v), or v is assigned true/false/1/0."""
	for s, f, macro, param in o.handlers:
		if macro == 'early_param' and arch_of(s.path) not in EARLY_KEYS_ARCHES:
			# Not a refusal: the init_on_alloc form (report()).
			o.early.append(param)
	for s, off, what in o.uses:
		if what == 'kstrtobool':
			f = s.func_at(off)
			body = s.code[f[1] + 1:f[2] - 1].strip()
			if not re.match(r'^return\s+kstrtobool\s*\(\s*(\w+)\s*,\s*&\s*%s\s*\)\s*;$'
					% re.escape(o.name), body):
				o.refusals.append(
					'handler %s() is not one the conversion rewrites: '
					'kstrtobool() is not its whole body' % f[0])
		if what == 'write':
			stmt = re.match(r'\s*=\s*([^;]*);', s.code[off + len(o.name):])
			if not stmt or truth(stmt.group(1)) is None:
				o.refusals.append(
					'handler %s() is not one the conversion rewrites: it '
					'assigns %s something other than true, false, 1 or 0 '
					'(%s:%d)' % (s.func_at(off)[0], o.name, s.path,
						     s.line_col(off)[0]))
	if o.kind == 'array':
		o.refusals.append('an array: a key cannot be indexed')
	elif o.impure:
		o.refusals.append(o.impure)


# Hot or cold: a key pays off only where its test runs often; a key on
# a path that runs once, or only when something already failed, is churn.
HOT_CALLS = 8		# call sites that make a function "called often"
BIG_GREP = 200		# files naming a function that make it so at once
COLD_ATTR = re.compile(r'\b__(?:init|exit)\b')
SYSCALL = re.compile(r'^(?:COMPAT_)?SYSCALL_DEFINE\d$')
LOOP = re.compile(r'\b(?:for|while|\w*for_each\w*)\s*\(|\bdo\s*\{')
# What, after the read in its block, says the block handles an error.
ERR_STMT = re.compile(r'\b(?:panic|BUG)\s*\(|\breturn\s+(?:-E[A-Z0-9]+\b|ERR_PTR\s*\(|'
		      r'[A-Z_]*ERR[A-Z_]*\b)|\bgoto\s+\w*(?:err|fail|bad|abort)\w*')
LABEL = re.compile(r'^[ \t]*([A-Za-z_]\w*)[ \t]*:(?!:)', re.M)
ERR_LABEL = re.compile(r'(?:err|fail|bad|abort)', re.I)


def close(code, at):
	"""Offset just past the bracket that closes the one at at."""
	o, c = code[at], {'(': ')', '{': '}', '[': ']'}[code[at]]
	depth = 0
	for i in range(at, len(code)):
		if code[i] == o:
			depth += 1
		elif code[i] == c:
			depth -= 1
			if depth == 0:
				return i + 1
	return len(code)


def in_loop(s, f, off):
	"""Whether off is in the body of a loop of function f."""
	code = s.code
	for m in LOOP.finditer(code, f[1], f[2]):
		if m.start() > off:
			break
		if m.group(0).startswith('do'):
			a = m.end() - 1
		else:
			a = close(code, m.end() - 1)
			while a < f[2] and code[a].isspace():
				a += 1
			if code[a] == ';':
				continue	# the while of a do-while, an empty loop
		e = close(code, a) if code[a] == '{' else code.find(';', a) + 1
		if a <= off < e:
			return True
	return False


def cold_func(s, f):
	"""__init or __exit in the head of function f."""
	k = max(s.code.rfind(';', 0, f[3]), s.code.rfind('}', 0, f[3]))
	return bool(COLD_ATTR.search(s.code, k + 1, f[1]))


def error_path(s, f, off):
	"""Why the read at off is on an error path, or None: its block (not
	the function body) goes on to panic(), an error return or a goto to
	an error label, or it comes after such a label."""
	code = s.code
	depth, b = 0, off
	while b > f[1]:
		b -= 1
		if code[b] == '}':
			depth += 1
		elif code[b] == '{':
			if depth == 0:
				break
			depth -= 1
	if b > f[1]:
		for m in ERR_STMT.finditer(code, off, close(code, b)):
			# Only a statement the block always reaches: at its top
			# level, not the body of an if or else without braces.
			inner = code[b + 1:m.start()]
			if inner.count('{') != inner.count('}'):
				continue
			prev = inner.rstrip()
			if prev.endswith(')') or re.search(r'\belse$', prev):
				continue
			what = m.group(0).split('(')[0].strip()
			return 'before %s' % ('%s()' % what if what in ('panic', 'BUG')
					      else re.sub(r'\s+', ' ', what))
	labels = [m for m in LABEL.finditer(code, f[1], off)
		  if m.group(1) not in ('default', 'case')]
	if labels and ERR_LABEL.search(labels[-1].group(1)):
		return 'after the label %s:' % labels[-1].group(1)
	return None


class Calls:
	"""Call sites of functions over the tree, grepped in batches."""

	def __init__(self, top, files, srcs):
		self.top, self.files, self.srcs = top, files, srcs
		self.sites = {}		# (file or None, name) -> [(src, off)] or None

	def fetch(self, keys):
		"""keys: (path of a static function, or None, name)."""
		need = sorted({n for p, n in keys if p is None and (p, n) not in self.sites})
		where = {}
		for i in range(0, len(need), 200):
			args = ['-owF']
			for n in need[i:i + 200]:
				args += ['-e', n]
			for f, n in grep_names(self.top, self.files, args):
				where.setdefault(n, set()).add(f)
		for p, n in keys:
			if (p, n) in self.sites:
				continue
			paths = [p] if p else sorted(where.get(n, ()))
			if len(paths) > BIG_GREP:
				self.sites[(p, n)] = None
				continue
			rx = re.compile(r'(?<![\w.>])%s\s*\(' % re.escape(n))
			out = []
			for path in paths:
				s = self.srcs.get(path)
				if s is None:
					s = self.srcs[path] = load(self.top, path)
				for m in rx.finditer(s.code):
					g = s.func_at(m.start())
					if g is None and not s.in_macro(m.start()):
						continue	# a prototype or the definition
					if g is not None and g[0] == n:
						continue	# recursion
					out.append((s, m.start()))
			self.sites[(p, n)] = out

	def get(self, s, f):
		"""The call sites of f (of s) that can reach it: another
		architecture's code never links with this one's."""
		sites = self.sites[self.key(s, f)]
		mine = arch_of(s.path)
		if sites is None or mine is None:
			return sites
		return [(cs, off) for cs, off in sites
			if arch_of(cs.path) in (None, mine)]

	def key(self, s, f):
		static = re.search(r'\bstatic\b', s.code[max(
			s.code.rfind(';', 0, f[3]), s.code.rfind('}', 0, f[3])) + 1:f[3]])
		return (s.path if static else None, f[0])


def often(calls, s, f, deep):
	"""(True, why) when the tree calls function f often, (False, why)
	when rarely, (None, why) when it has no direct caller."""
	if SYSCALL.match(f[0]):
		return True, 'a system call'
	sites = calls.get(s, f)
	if sites is None:
		return True, '%s() is named in more than %d files' % (f[0], BIG_GREP)
	if len(sites) >= HOT_CALLS:
		return True, '%s() is called from %d places' % (f[0], len(sites))
	if not sites:
		return None, '%s() has no direct caller (called through a pointer?)' % f[0]
	for cs, off in sites:
		g = cs.func_at(off)
		if g is not None and not cold_func(cs, g) and in_loop(cs, g, off):
			return True, '%s() is called in a loop in %s() (%s)' % (
				f[0], g[0], cs.path)
	if deep:
		for cs, off in sites:
			g = cs.func_at(off)
			if g is not None and not cold_func(cs, g):
				hot, why = often(calls, cs, g, False)
				if hot:
					return True, '%s() is called from %s(), and %s' % (
						f[0], g[0], why)
	return False, '%s() is called from %d place%s, none in a loop' % (
		f[0], len(sites), '' if len(sites) == 1 else 's')


def heat(opts, top, files, srcs):
	"""For every option still a candidate, o.heat = (hot reads, cold
	reads), each read as (path, function, why)."""
	cand = [o for o in opts.values() if not o.refusals and not o.noparam]
	reads = [(o, s, off, s.func_at(off)) for o in cand
		 for s, off, what in o.uses if what == 'read']
	calls = Calls(top, files, srcs)
	calls.fetch([calls.key(s, f) for o, s, off, f in reads])
	callers = [(cs, cs.func_at(off)) for o, s, off, f in reads
		   for cs, off in (calls.get(s, f) or []) if cs.func_at(off)]
	calls.fetch([calls.key(cs, g) for cs, g in callers])
	for o in cand:
		o.heat = ([], [])
	for o, s, off, f in reads:
		where = (s.path, f[0])
		if cold_func(s, f):
			o.heat[1].append(where + ('__init/__exit code',))
			continue
		why = error_path(s, f, off)
		if why:
			o.heat[1].append(where + ('on an error path, %s' % why,))
			continue
		hot, why = often(calls, s, f, True)
		o.heat[0 if hot is not False else 1].append(where + (why,))


def grep_names(top, files, args):
	"""(file, word) pairs of grep -o ARGS over files."""
	out = set()
	for i in range(0, len(files), 2000):
		r = subprocess.run(['grep', '-H'] + args + ['--'] + files[i:i + 2000],
				   cwd=top, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
		if r.returncode > 1:
			raise OSError('grep failed: ' + r.stderr.decode(errors='replace').strip())
		for l in r.stdout.decode('utf-8', 'surrogateescape').splitlines():
			f, _, w = l.rpartition(':')
			out.add((f, w))
	return sorted(out)


def grep(top, files, args):
	"""The files (of files, relative to top) grep ARGS matches: GNU
	grep over chunks of files, far faster than Python's regexes."""
	keep = set()
	for i in range(0, len(files), 2000):
		r = subprocess.run(['grep', '-lZ'] + args + ['--'] + files[i:i + 2000],
				   cwd=top, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
		if r.returncode > 1:
			raise OSError('grep failed: ' + r.stderr.decode(errors='replace').strip())
		keep.update(x.decode('utf-8', 'surrogateescape')
			    for x in r.stdout.split(b'\0') if x)
	return [f for f in files if f in keep]


def load(top, f):
	with open(os.path.join(top, f), 'rb') as fh:
		return Source(f, fh.read().decode('utf-8', 'surrogateescape'))


def analyse(top, files, kconfig_types, kconfigs, root=None):
	"""(options, {path: Source}) of the tree: files are its .c and .h
	files, relative to top, a directory of the kernel tree at root (when
	None: above top's arch/ or arch/<name>, else top).  Only the .c files that set a boot parameter can
	define an option; the files naming a non-static one are read for
	its uses."""
	root = set_prefix(top, root)
	EARLY_KEYS_ARCHES[:] = early_keys_arches(root)
	setters = grep(top, [f for f in files if f.endswith('.c')],
		       ['-E', r'\b(early_param|__setup|core_param)\s*\('])
	# Variables chosen by Kconfig that no parameter sets are named too:
	# those of the setters, and every IS_ENABLED() initialiser.
	chosen = grep(top, [f for f in files if f.endswith('.c') and f not in setters],
		      ['-E', r'^[a-z_ ]*\b(' + TYPES.replace('?:', '').replace(r'\s', '[[:space:]]') +
		       r')[[:space:]]+\w+[^;(]*=[[:space:]]*IS_ENABLED'])
	srcs = {f: load(top, f) for f in setters + chosen}
	opts = find_options(list(srcs.values()))
	# (Variables no parameter sets are judged in their own file only.)
	names = sorted({o.name for o in opts.values()
			if not o.static and o.kind == 'var' and not o.noparam})
	if names:
		args = ['-wF']
		for n in names:
			args += ['-e', n]
		for f in grep(top, [f for f in files if f not in srcs], args):
			srcs[f] = load(top, f)
	handlers = set()
	for s in srcs.values():
		for m in HANDLER.finditer(s.nostr):
			for f in s.funcs:
				if f[0] == m.group(3):
					handlers.add((s.path, f[1]))
	cfgs = {o.config for o in opts.values() if o.config}
	types = kconfig_types(cfgs) if kconfigs else None
	scopes = {}
	for (where, name), o in opts.items():
		if not o.static and o.kind == 'var':
			scopes.setdefault(name, set()).add(where)
	for o in opts.values():
		classify_uses(o, [o.src] if o.noparam else
			      [s for s in srcs.values() if o.name in s.code and
			       visible(o, s.path, scopes.get(o.name, ()))], handlers)
		shared(o, scopes.get(o.name, ()))
		check_handlers(o)
		if o.config and types is not None and not o.impure:
			if o.config not in types:
				o.refusals.append('option not a bool in Kconfig: %s is defined '
						  'by no Kconfig file of the tree' % o.config)
			elif types[o.config][0] != 'bool':
				t, kf, kl = types[o.config]
				o.refusals.append('option not a bool in Kconfig: %s is %s '
						  '(%s:%d)' % (o.config, t, kf, kl))
	heat(opts, top, files, srcs)
	return opts, srcs


def reads_named(rs):
	return '; '.join('%s:%s() (%s)' % r for r in rs)


def report(opts):
	out = []
	for o in opts.values():
		line, col = o.src.line_col(o.off)
		where = '%s:%d:%d: %s: ' % (o.src.path, line, col, o.name)
		seen = []
		for r in o.refusals:
			if r not in seen:
				seen.append(r)
		if o.noparam:
			# Chosen by Kconfig, set by no boot parameter: say why it
			# stays a variable.
			if not seen:
				seen = ['never written after its initialiser: a constant, '
					'test %s itself' % (o.config or 'the CONFIG option')]
			out.append(where + 'chosen by %s, set by no boot parameter; not '
				   'converted: %s' % (o.config or 'Kconfig', '; '.join(
					   r.replace('outside its parameter handler', 'at run time')
					   for r in seen)))
		elif seen:
			out.append(where + 'option refused: ' + '; '.join(seen))
		elif not o.heat[0]:
			out.append(where + 'option cold: not worth a key: every read is on '
				   'a cold path: ' + reads_named(o.heat[1]))
		else:
			reads = len(o.heat[0]) + len(o.heat[1])
			text = 'option candidate: %s, set by %s; %d read%s, hot: %s' % (
				o.config, ', '.join('%s(%s)' % (h[2], h[3]) for h in o.handlers),
				reads, '' if reads == 1 else 's', reads_named(o.heat[0]))
			if o.heat[1]:
				text += '; cold: ' + reads_named(o.heat[1])
			if o.early:
				# Linux's init_on_alloc: the parameter is parsed
				# before jump_label_init() on arm, mips and others.
				text = text.replace('option candidate:', 'option candidate '
						    'in the init_on_alloc form:', 1)
				text += ('; early_param(%s) runs before jump_label_init() '
					 '%s: keep the parameter in a bool '
					 '_%s_enabled_early, define the key with '
					 'DEFINE_STATIC_KEY_MAYBE(%s, %s) and set it from __init '
					 'code that runs after jump_label_init() and before the '
					 'first read (as mm/page_alloc.c sets init_on_alloc); '
					 'not converted by patch mode' % (
						 ', '.join(o.early), 'outside ' + '/'.join(EARLY_KEYS_ARCHES)
						 if EARLY_KEYS_ARCHES else 'on every architecture of '
						 'this tree',
						 o.name.strip('_'), o.config, o.name))
			out.append(where + text)
	return out


# --with-cold: patch mode converts cold options too (a whole-system
# test of the conversion wants options it can boot with).
WITH_COLD = [False]


def convertible(o):
	"""A candidate patch mode converts."""
	return not o.refusals and not o.noparam and not o.early and o.heat is not None \
		and (o.heat[0] or WITH_COLD[0])


def wrap(lines, i):
	return finish.wrap(lines, i)


def patch(opts, srcs):
	"""One unified diff converting the candidates (paths relative to
	the tree)."""
	edits = {}

	def edit(src, a, b, new):
		edits.setdefault(src.path, []).append((a, b, new))

	for o in opts.values():
		if not convertible(o):
			continue
		macro = 'DEFINE_STATIC_KEY_MAYBE' + ('_RO' if o.ro else '')
		new = '%s%s(%s, %s);' % ('static ' if o.static else '', macro,
					 o.config, o.name)
		ds = sorted(o.decls, key=lambda d: d['m'].start())
		s = o.src
		if len(ds) == 1:
			m = ds[0]['m']
			a = s.text.rfind('\n', 0, m.end()) + 1 if '\n' in s.text[m.start():m.end()] \
				else m.start()
			a = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
			edit(s, a, m.end(), new)
		else:
			# The whole #ifdef ... #endif block becomes the one line.
			a = s.text.rfind('\n', 0, s.text.rfind('#', 0, ds[0]['m'].start())) + 1
			e = re.compile(r'^[ \t]*#[ \t]*endif[^\n]*\n', re.M).search(s.text, ds[-1]['m'].end())
			rest = s.code[a:e.end()]
			for d in ds:
				m = d['m']
				rest = rest[:m.start() - a] + ' ' * (m.end() - m.start()) + rest[m.end() - a:]
			if not re.sub(r'^[ \t]*#[^\n]*$', '', rest, flags=re.M).strip():
				edit(s, a, e.end(), new + '\n')
			else:
				# The #ifdef chooses other lines too: only the
				# declarations go, the key is defined above it.
				edit(s, a, a, new + '\n')
				for d in ds:
					m = d['m']
					ls = s.text.rfind('\n', 0, m.start()) + 1
					le = s.text.find('\n', m.end()) + 1
					edit(s, ls, le, '')
		for es, a, b in o.externs:
			edit(es, a, b, 'DECLARE_STATIC_KEY_MAYBE(%s, %s);\n' % (o.config, o.name))
		for us, off, what in o.uses:
			if what == 'read':
				edit(us, off, off + len(o.name),
				     'static_branch_maybe(%s, &%s)' % (o.config, o.name))
			elif what == 'write':
				m = re.match(r'\s*=\s*([^;]*);', us.code[off + len(o.name):])
				call = 'static_branch_%s(&%s);' % (
					'enable' if truth(m.group(1)) else 'disable', o.name)
				edit(us, off, off + len(o.name) + m.end(), call)
			elif what == 'kstrtobool':
				f = us.func_at(off)
				arg = re.search(r'kstrtobool\s*\(\s*(\w+)', us.code[f[1]:f[2]]).group(1)
				body = ('{\n\tbool enabled;\n\tint ret;\n\n'
					'\tret = kstrtobool(%s, &enabled);\n\tif (ret)\n'
					'\t\treturn ret;\n\tif (enabled)\n'
					'\t\tstatic_branch_enable(&%s);\n\telse\n'
					'\t\tstatic_branch_disable(&%s);\n\treturn 0;\n}'
					% (arg, o.name, o.name))
				edit(us, f[1], f[2], body)
	out = []
	for path in sorted(edits):
		s = srcs[path]
		text = s.text
		for a, b, new in sorted(edits[path], reverse=True):
			text = text[:a] + new + text[b:]
		if 'jump_label.h' not in text:
			inc = list(re.finditer(r'^#include <linux/[^>]*>[^\n]*\n', text, re.M))
			guard = re.search(r'^#ifndef (\w+)\n#define \1\n', text, re.M)
			if inc:
				at = inc[-1].end()
				text = text[:at] + '#include <linux/jump_label.h>\n' + text[at:]
			elif guard:
				at = guard.end()
				text = text[:at] + '\n#include <linux/jump_label.h>\n' + text[at:]
		old = s.text.splitlines(keepends=True)
		new = text.splitlines(keepends=True)
		# Lines the longer test made wide are wrapped as the pair
		# conversion wraps them (scripts/cocci-finish.py).
		had = set(old)
		for i in reversed(range(len(new))):
			if 'static_branch_maybe(CONFIG_' in new[i] and new[i] not in had:
				new[i:i + 1] = wrap(new, i).splitlines(keepends=True)
		diff = list(difflib.unified_diff(old, new, 'a/' + path, 'b/' + path, n=3))
		if diff:
			out.append('diff --git a/%s b/%s\n' % (path, path))
			out.extend(l if l.endswith('\n') else l + '\n\\ No newline at end of file\n'
				   for l in diff)
	return ''.join(out)
