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
//  test that also depends on a boot parameter is left alone, and so is
//  a call in an early_param() or __setup() handler (it runs only when
//  the parameter is given).
// Options: --no-includes --include-headers
// Keywords: static_key, static_branch_enable, DEFINE_STATIC_KEY_MAYBE
// Requires: 1.0.8
// Prefilter: static_(branch|key)_(enable|disable)\b
//  (scripts/coccicheck gives spatch only the files that match every
//  Prefilter line; the next two mirror in_init(), and if_positive() or
//  ifdef_config() below, loosely enough that no file they reject could
//  produce a message: a call line below a line starting with "{" that
//  has __init in the four lines above it, with no line starting with
//  "{" or "}" in between; and IS_ENABLED(CONFIG_...) in the 40 lines up
//  to the call, or an #if line naming a CONFIG_ option above it with no
//  brace outside a comment on the lines in between.)
// Prefilter: __init[^\n]*\n(?:[^\n]*\n){0,3}\{[^\n]*\n(?:[^{}\n][^\n]*\n|\n)*[^\n]*static_(?:branch|key)_(?:enable|disable)\b
// Prefilter: (?m)IS_ENABLED\s*\(\s*CONFIG_\w+\s*\)(?:[^\n]*\n){0,39}[^\n]*?static_(?:branch|key)_(?:enable|disable)\b|static_(?:branch|key)_(?:enable|disable)\b[^\n]*IS_ENABLED\s*\(\s*CONFIG_|^[^\S\n]*#[^\S\n]*if[^\n]*CONFIG_[^\n]*\n(?>[^\S\n]*#[^\n]*\n|(?:/\*[^\n]*?\*/|//[^\n]*|[^{}\n])*+\n)*?[^\n]*?static_(?:branch|key)_(?:enable|disable)\b

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
_msgs = {}
_org = False

def _read(path):
	if path not in _text:
		with open(path, errors='replace') as f:
			_text[path] = f.read().split('\n')
	return _text[path]

def in_init(path, line):
	"""Is 1-based line inside a function whose header says __init?
	The header is the code of the four lines above the function's brace
	after the last ; or }: a comment there that speaks of __init does
	not count."""
	lines = _read(path)
	for i in range(line - 2, -1, -1):
		s = lines[i]
		if s.startswith('{'):
			head = '\n'.join(lines[max(0, i - 4):i])
			head = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', head, flags=re.S)
			# A comment cut by the top of the window ends in */.
			head = head[head.rfind('*' + '/') + 1:]
			head = head[head.rfind(';') + 1:]
			head = head[head.rfind('}') + 1:]
			return re.search(r'\b__init\b', head) is not None
		if s.startswith('}'):
			return False
	return False

_HANDLER = r'\b(?:early_param|__setup|__setup_param)\s*\(\s*"[^"]*"\s*,(?:\s*\w+\s*,)?\s*%s\s*[,)]'

def param_handler(path, fn):
	"""Is fn a boot-parameter handler (early_param(), __setup())?  It
	runs only when the parameter is given, so what it sets is no
	build-time default: a MAYBE key would change the state of a boot
	without the parameter."""
	return re.search(_HANDLER % re.escape(fn), '\n'.join(_read(path))) is not None

def ifdef_config(path, line):
	"""(CONFIG_X, True) when the line sits directly in an #ifdef CONFIG_X
	block, (CONFIG_X, False) in an #ifndef CONFIG_X one, else None."""
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
				if not mm:
					return None
				return mm.group(1), not re.match(r'ifndef|if\s+!', c)
			depth -= 1
		elif depth == 0:
			return None
	return None

def emit(p, msg, org):
	if org:
		coccilib.org.print_todo(p, msg)
	else:
		print('%s:%s:%d: %s' % (p.file, p.line, int(p.column) + 1, msg))

# Script rules never drop a match (cocci.include_match(False) would also
# drop the other rules' matches in the same environment, so that the
# IS_ENABLED() form went unreported in a file without an #ifdef form):
# a rejected match gets this name, which no key has.
NONE = '__static_key_runtime_default_none'

def key_default(path, k):
	"""True/False from the key's TRUE/FALSE declaration in the file, or None."""
	text = '\n'.join(_read(path))
	m = re.search(r'\b(?:DEFINE|DECLARE)_STATIC_KEY_(TRUE|FALSE)(?:_RO)?\(\s*%s\s*\)'
		      % re.escape(k), text)
	return None if m is None else m.group(1) == 'TRUE'

def if_positive(path, line, cfg):
	"""Is the call run when cfg is on?  From the if (...) above it."""
	lines = _read(path)
	text = '\n'.join(lines[max(0, line - 40):line])
	m = None
	for m in re.finditer(r'(!?)\s*IS_ENABLED\s*\(\s*%s\s*\)' % cfg, text):
		pass
	if m is None:
		return None
	positive = m.group(1) != '!'
	# The call in the else branch runs when the condition is false.
	if re.search(r'\belse\b', re.sub(r'/\*.*?\*/|//[^\n]*', '', text[m.end():], flags=re.S)):
		positive = not positive
	return positive

def verdict(path, line, call, k, cfg, positive, fn):
	"""Message for a call under a CONFIG test: which way round is it?"""
	on = call.endswith('enable')
	d = key_default(path, k)
	if positive is None:
		return None
	# With the option on the key must end up on, with it off, off.
	when_on = on if positive else d
	when_off = d if positive else on
	if d is None:
		want = 'FALSE' if positive else 'TRUE'
		if on != positive:
			return MSG_INVERTED % (k, cfg, fn)
		return (MSG % (k, cfg, fn, cfg, k)) + ' (if %s is a %s key)' % (k, want)
	if when_on and not when_off:
		return MSG % (k, cfg, fn, cfg, k)
	if when_off and not when_on:
		return MSG_INVERTED % (k, cfg, fn)
	return MSG_NOOP % (k, call, cfg, fn)

MSG = '%s: initial state set at run time from %s in __init %s(); not converted, consider DEFINE_STATIC_KEY_MAYBE(%s, %s)'
MSG_INVERTED = '%s: initial state set at run time from %s in __init %s(), on when the option is off; not converted, there is no MAYBE form for it'
MSG_NOOP = '%s: %s() under %s in __init %s() sets the state the key already has; not converted'

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
key;
@@
m = None
if C.startswith('CONFIG_') and in_init(p[0].file, int(p[0].line)) and \
   not param_handler(p[0].file, p[0].current_element):
	src = _read(p[0].file)[int(p[0].line) - 1][int(p[0].column):]
	call = re.match(r'\w+', src).group(0).replace('static_key_', 'static_branch_')
	m = verdict(p[0].file, int(p[0].line), call, k, C,
		    if_positive(p[0].file, int(p[0].line), C), p[0].current_element)
_msgs[('cfgif', p[0].file, p[0].line, p[0].column)] = m
coccinelle.key = cocci.make_ident(k if m else NONE)

@cfgdef@
identifier k;
position p;
@@
\(static_branch_enable@p(&k);\|static_branch_disable@p(&k);\|static_key_enable@p(&k.key);\|static_key_disable@p(&k.key);\)

@script:python cfgdef_ok@
k << cfgdef.k;
p << cfgdef.p;
key;
@@
m = None
c = ifdef_config(p[0].file, int(p[0].line))
if c is not None and in_init(p[0].file, int(p[0].line)) and \
   not param_handler(p[0].file, p[0].current_element):
	src = _read(p[0].file)[int(p[0].line) - 1][int(p[0].column):]
	call = re.match(r'\w+', src).group(0).replace('static_key_', 'static_branch_')
	m = verdict(p[0].file, int(p[0].line), call, k, c[0], c[1],
		    p[0].current_element)
_msgs[('cfgdef', p[0].file, p[0].line, p[0].column)] = m
coccinelle.key = cocci.make_ident(k if m else NONE)

@depends on context@
identifier cfgif_ok.key;
position cfgif.p;
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
p << cfgif.p;
key << cfgif_ok.key;
@@
if key != NONE:
	emit(p[0], _msgs[('cfgif', p[0].file, p[0].line, p[0].column)], _org)

@script:python depends on org || report@
p << cfgdef.p;
key << cfgdef_ok.key;
@@
if key != NONE:
	emit(p[0], _msgs[('cfgdef', p[0].file, p[0].line, p[0].column)], _org)
