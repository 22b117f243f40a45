# SPDX-License-Identifier: GPL-2.0-only
#
# Run every semantic patch in coccinelle/ over a tree, the way the kernel's
# `make coccicheck` does, and add what one spatch run per file cannot do:
#
#  1. a "collect" pass of static_key_maybe.cocci lists every static key
#     declaration of the tree; keys whose DEFINE and DECLARE disagree under
#     some configuration are refused here, and the keys that may be
#     converted go to the second pass in STATIC_KEY_MAYBE_KEYS, so that
#     their uses are converted in every file, not only next to the pair;
#  2. every script runs in MODE; in patch mode scripts/cocci-finish.py
#     removes the #if/#else/#endif lines spatch cannot and merges the
#     result into one patch on stdout.
#
# usage: coccicheck [--mode MODE] [--jobs J] [--prefilter P] [--sp-file F]
#		    [--timeout S] [--exclude DIR]... DIR
#   MODE  patch, report (default), context, org, series or lint
#	  (scripts/cocci-lint.py: mistakes in the use of static keys, for
#	  CI; exit status 0 clean, 1 findings, 2 failure)
#   P     grep (default: only files naming a static key API are given to
#	  spatch, and each pass only those that can matter to it), tokens
#	  (the same grep, but every pass gets all its files: a check that
#	  the narrowing loses nothing), none (spatch --dir: its own file
#	  list and token test, as the kernel runs it; --exclude is not
#	  honoured), nocheck (spatch parses every file), gitgrep (spatch
#	  --use-gitgrep; DIR must be a git work tree)
# Output: report: one "file:line:col: message" per finding, sorted;
#	  org/context: as spatch prints them; patch: one unified diff.
#	  Paths are relative to DIR.  In patch mode every refusal (what
#	  report mode would print but the patch leaves alone) goes to
#	  stderr as "file:line:col: message".
#   S     seconds spatch may spend on one file (default 120); a file it
#	  gives up on is a failure, never "nothing found"
# Symbolic links to files inside DIR are not scanned (their targets are,
# when inside DIR); each is named on stderr.
# Exit status: 0 nothing found, 1 something found (a finding, a refusal or
#	  a non-empty patch), 2 bad usage or a failure (spatch failed or gave
#	  up on a file, a file could not be read or patched), with a message
#	  on stderr that names the file; nothing is printed on stdout then.
import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

from . import crosscheck, finish, lint, options, series

# The package lives in scripts/; the semantic patches in coccinelle/ beside
# scripts/ (in the source tree and where the Debian package installs them).
SRCTREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENS = rb'STATIC_KEY|static_branch_|static_key_'
SPATCH_FLAGS = ['--very-quiet', '--no-includes', '--include-headers',
		'--max-width', '1000']
# spatch's stderr lines that mean a file was not (completely) processed;
# spatch still exits 0 after them.
SPATCH_FAILED = re.compile(r'^(EXN: .*|.*\btimeout\b.*|Fatal error: .*|'
			   r'diff: .*|Impossible: .*)$', re.I)
# The lint's script, for the kernel's make coccicheck; MODE=lint runs
# scripts/cocci-lint.py, which also does the cross-file checks.
LINT_SCRIPT = 'static_key_lint.cocci'
# Names spatch hands to the shell unquoted (diff) must not have these.
SAFE_NAME = re.compile(r'^[A-Za-z0-9_.,/+=@-]+$')


class Failure(Exception):
	"""Exit status 2; str() names the file or the tool."""


# Options of spatch this script passes (besides the scripts' own), and
# the oldest release it was run with.
SPATCH_OPTIONS = ('--python', '--file-groups', '--tmp-dir',
		  '--disable-worth-trying-opt')
SPATCH_TESTED = '1.1.1'


def version(text):
	return tuple(int(x) for x in text.split('.'))


def check_spatch(scripts):
	"""Failure naming what is missing when spatch cannot run the scripts:
	older than a script's "// Requires:" line (as the kernel's
	coccicheck checks), without Python, or without an option this
	script passes (an old one said only "unknown option --python")."""
	r = subprocess.run(['spatch', '--version'], stdout=subprocess.PIPE,
			   stderr=subprocess.STDOUT)
	out = decode(r.stdout)
	m = re.search(r'spatch version (\d+(?:\.\d+)*)', out)
	if m is None:
		raise Failure('spatch --version did not give a version: %s' %
			      out.strip()[:200])
	have = m.group(1)
	for s in scripts:
		with open(s) as f:
			req = re.search(r'^// Requires: (\d+(?:\.\d+)*)', f.read(), re.M)
		if req and version(have) < version(req.group(1)):
			raise Failure('spatch %s is too old: %s needs %s (its '
				      '"// Requires:" line); %s is tested' % (
					      have, os.path.basename(s),
					      req.group(1), SPATCH_TESTED))
	if re.search(r'Python scripting support: no', out):
		raise Failure('spatch %s was built without Python scripting, '
			      'which the scripts need' % have)
	r = subprocess.run(['spatch', '--longhelp'], stdout=subprocess.PIPE,
			   stderr=subprocess.STDOUT)
	helptext = decode(r.stdout)
	for opt in SPATCH_OPTIONS:
		if not re.search(r'^\s*%s\b' % re.escape(opt), helptext, re.M):
			raise Failure('spatch %s has no %s, which scripts/coccicheck '
				      'passes; spatch %s is tested' % (
					      have, opt, SPATCH_TESTED))


def cpu_children():
	r = resource.getrusage(resource.RUSAGE_CHILDREN)
	return r.ru_utime + r.ru_stime


def decode(data):
	return data.decode('utf-8', 'surrogateescape')


def encode(text):
	return text.encode('utf-8', 'surrogateescape')


def die(msg, code=2):
	progress(None)
	print('coccicheck: ' + msg, file=sys.stderr)
	sys.exit(code)


# --summary: what make coccicheck prints on stderr, progress (on a
# terminal only) and the closing line; [shown] is a progress line on it.
SUMMARY = {'on': False, 'shown': False, 'scanned': 0}
REFUSED = re.compile(r'not converted|refused|convert by hand|left alone|'
		     r'not worth a key')


def progress(msg):
	"""msg on one line of a terminal, each replacing the last; None
	clears it.  Nothing when stderr is not a terminal (a CI log)."""
	if not SUMMARY['on'] or not sys.stderr.isatty():
		return
	if SUMMARY['shown']:
		sys.stderr.write('\r\033[K')
		SUMMARY['shown'] = False
	if msg is not None:
		sys.stderr.write('coccicheck: ' + msg)
		SUMMARY['shown'] = True
	sys.stderr.flush()


def closing(findings, refused):
	"""The closing line, also when nothing was found."""
	if not SUMMARY['on']:
		return
	progress(None)
	print('coccicheck: %d files scanned, %d findings, %d refused' % (
		SUMMARY['scanned'], findings, refused), file=sys.stderr)


def count_lines(lines):
	"""(findings, refused) of report lines: a refusal names what was
	left alone and why."""
	lines = [l for l in lines if l.strip()]
	refused = sum(1 for l in lines if REFUSED.search(l))
	return len(lines) - refused, refused


def walk(top, excludes, want):
	"""(path relative to top, is a symlink) of the files whose name
	passes want(), in sorted order; dot directories and excludes are
	skipped.  Directory symlinks are not followed, so a directory's real
	path is the real top joined with its relative path (no realpath()
	per directory: the walk is a large part of a whole-tree run)."""
	skip = {os.path.realpath(e) for e in excludes}
	real = os.path.realpath(top)
	stack = ['']
	while stack:
		rel = stack.pop()
		try:
			ents = sorted(os.scandir(os.path.join(top, rel)),
				      key=lambda e: e.name, reverse=True)
		except OSError as e:
			raise Failure('%s: %s' % (rel or top, e.strerror))
		for e in ents:
			r = os.path.join(rel, e.name) if rel else e.name
			if e.is_dir(follow_symlinks=False):
				if not e.name.startswith('.') and \
				   os.path.join(real, r) not in skip:
					stack.append(r)
			elif want(e.name):
				yield r, e.is_symlink()


def is_kconfig(name):
	return name.startswith('Kconfig')


def source_files(top, excludes, quiet=False):
	"""(.c and .h files, Kconfig files) under top, from one walk; symbolic
	links to sources are named (unless quiet), not kept."""
	out, kconfigs = [], []
	for rel, link in walk(top, excludes, lambda n: n.endswith(('.c', '.h'))
			      or is_kconfig(n)):
		name = os.path.basename(rel)
		if is_kconfig(name):
			kconfigs.append(rel)
		if not name.endswith(('.c', '.h')):
			continue
		if link:
			if not quiet:
				print('coccicheck: %s: symbolic link, not scanned' % rel,
				      file=sys.stderr)
		else:
			out.append(rel)
	return sorted(out), sorted(kconfigs)


def prefilter(top, files, jobs):
	"""Files that mention a static-key token: GNU grep, J at a time."""
	chunks = [files[i:i + 1000] for i in range(0, len(files), 1000)]
	keep, running = set(), []

	def reap(p):
		out, err = p.communicate()
		if p.returncode > 1:
			raise Failure('grep failed: ' + decode(err).strip())
		keep.update(decode(x) for x in out.split(b'\0') if x)

	for c in chunks:
		running.append(subprocess.Popen(
			['grep', '-lZE', '-e', decode(TOKENS), '--'] +
			[encode(f) for f in c], cwd=top, stdout=subprocess.PIPE,
			stderr=subprocess.PIPE))
		if len(running) >= jobs:
			reap(running.pop(0))
	for p in running:
		reap(p)
	return [f for f in files if f in keep]


def spatch(args, top, cocci, mode, files, env=None):
	"""spatch's stdout; Failure when it failed or gave up on a file."""
	cmd = ['spatch', '-D', mode] + SPATCH_FLAGS + ['--sp-file', cocci,
						       '--timeout', str(args.timeout)]
	# Without --python, every spatch start looks for python3 on PATH and
	# runs it four times to find its library: through a version
	# manager's shim (pyenv) that was 0.8 s of CPU per spatch run.  The
	# interpreter running this script is the one PATH gave, found once.
	if sys.executable:
		cmd += ['--python', sys.executable]
	if args.jobs > 1:
		# With -j, spatch makes a work directory per run in its
		# working directory (the tree) unless told where: a read-only
		# tree failed, and a kill -9 left them in the tree.
		cmd += ['-j', str(args.jobs), '--chunksize', '1',
			'--tmp-dir', os.path.join(args.tmp, 'spatch')]
	# With --file-groups, spatch 1.1.1 runs a git-grep token scan for
	# some scripts and drops every file when DIR is not a git work tree;
	# the grep prefilter has already chosen the files, so skip its own.
	if args.prefilter in ('nocheck', 'grep', 'tokens'):
		cmd.append('--disable-worth-trying-opt')
	if args.prefilter == 'gitgrep':
		cmd += ['--use-gitgrep', '--dir', '.']
	elif args.prefilter == 'none':
		cmd += ['--dir', '.']
	else:
		if not files:
			return ''
		groups = os.path.join(args.tmp, 'groups.list')
		with open(groups, 'wb') as f:
			f.write(encode('\n\n'.join(args.alias.get(x, x)
						    for x in files) + '\n'))
		cmd += ['--file-groups', groups]
	e = dict(os.environ)
	e.pop('STATIC_KEY_MAYBE_KEYS', None)
	e['TMPDIR'] = args.tmp
	# finish() removes the #if lines around converted pairs, so
	# static_key_maybe.cocci leaves them to it (run alone, by the
	# kernel's make coccicheck, it removes the plain blocks itself).
	e['STATIC_KEY_MAYBE_FINISHER'] = '1'
	if env is not None:
		e['STATIC_KEY_MAYBE_KEYS'] = env
	before = cpu_children()
	progress('spatch -D %s %s on %s files' % (
		mode, os.path.basename(cocci),
		len(files) if files is not None else 'all'))
	r = subprocess.run(cmd, cwd=top, env=e, stdout=subprocess.PIPE,
			   stderr=subprocess.PIPE)
	if args.stats:
		print('coccicheck: %s -D %s: %s files, %.2f s CPU' % (
			os.path.basename(cocci), mode,
			len(files) if files is not None else 'all',
			cpu_children() - before), file=sys.stderr)
	err = [l for l in unalias(args, decode(r.stderr)).split('\n') if l.strip()]
	name = os.path.basename(cocci)
	if r.returncode != 0:
		sys.stderr.write('\n'.join(err[-20:]) + '\n')
		raise Failure('spatch failed on %s (status %d)' % (name, r.returncode))
	bad = [l for l in err if SPATCH_FAILED.match(l)]
	for l in err:
		print('coccicheck: spatch: ' + l, file=sys.stderr)
	if bad:
		raise Failure('%s: spatch did not process every file: %s' %
			      (name, '; '.join(bad[:5])))
	return decode(r.stdout)


def make_aliases(args, top, files):
	"""Symlinks with plain names for files whose names the shell splits."""
	args.alias, args.unalias = {}, []
	d = os.path.join(args.tmp, 'alias')
	for i, f in enumerate(files):
		if SAFE_NAME.match(f):
			continue
		if not args.alias:
			os.mkdir(d)
		a = os.path.join(d, '%d%s' % (i, os.path.splitext(f)[1]))
		os.symlink(os.path.join(top, f), a)
		args.alias[f] = a
	# Longest first: no alias is a prefix of a longer one then.
	args.unalias = sorted(((a, f) for f, a in args.alias.items()),
			      key=lambda x: -len(x[0]))


def unalias(args, text):
	for a, f in args.unalias:
		text = text.replace(a, f)
	return text


def parse_collect(text):
	recs = []
	for line in text.splitlines():
		f = line.split('\t')
		if len(f) != 8 or f[0] != 'COLLECT':
			continue
		path, lno, col = f[1].rsplit(':', 2)
		recs.append(dict(path=path, line=int(lno), col=int(col), kind=f[2],
				 key=f[3], decl=f[4], extra=f[5], other=f[6],
				 scope=f[7]))
	return recs


def kconfig_types(top, kconfigs, names):
	"""{CONFIG_X: (type, file, line)} of names, from the Kconfig* files
	kconfigs under top (only files that mention one of them are parsed)."""
	types = {}
	bare = [encode(n[len('CONFIG_'):]) for n in names]
	for rel in kconfigs:
		path = os.path.join(top, rel)
		with open(path, 'rb') as fh:
			data = fh.read()
		if not any(b in data for b in bare):
			continue
		cur = None
		for i, l in enumerate(decode(data).split('\n')):
			# "config FOO # comment" (drivers/clk/Kconfig has it)
			m = re.match(r'^\s*(?:menu)?config\s+(\w+)\s*(?:#.*)?$', l)
			if m:
				cur = ('CONFIG_' + m.group(1), i + 1)
				continue
			m = re.match(r'^\s*(bool|tristate|def_bool|'
				     r'def_tristate|int|hex|string)\b', l)
			if m and cur:
				t = m.group(1).replace('def_', '')
				# The first definition with a type wins; a
				# tristate anywhere is a tristate.
				if cur[0] not in types or t == 'tristate':
					types[cur[0]] = (t, rel, cur[1])
				cur = None
	return types


def consistency(recs, kconfig=None, scope=None):
	"""Keys to convert ("key:CFG[:file]") and refusal lines.

	kconfig: CONFIG types of the tree (kconfig_types()), None when the
	tree has no Kconfig file; options that are not bool are refused,
	#ifdef being false for =m, and so are options no Kconfig file
	defines (their type is unknown).  scope: a Scope, or None when
	names are not scoped per architecture."""
	pairs, decls = {}, {}
	for r in recs:
		(pairs if r['kind'] == 'PAIR' else decls).setdefault(r['key'], []).append(r)
	keys, refusals = [], []
	arch = scope.arch if scope else lambda path: None
	for key, prs in sorted(pairs.items()):
		groups = {}
		for p in prs:
			g = p['path'] if p['scope'] == 'static' else None
			if g is None and arch(p['path']):
				g = ('arch', arch(p['path']))
			groups.setdefault(g, []).append(p)
		for g, ps in groups.items():
			conv = [p for p in ps if p['extra'].startswith('convert:')]
			if not conv:
				continue
			cfgs = {p['extra'].split(':', 1)[1] for p in conv}
			cfg = sorted(cfgs)[0]
			in_pair = {(p['path'], p['line']) for p in ps} | \
				  {(p['path'], int(p['other'])) for p in ps}
			why = None
			bad = [p for p in ps if p not in conv]
			if bad:
				why = 'declaration type differs: %s at %s:%d is not convertible (%s)' % (
					bad[0]['decl'], bad[0]['path'], bad[0]['line'],
					bad[0]['extra'])
			elif len(cfgs) > 1:
				why = 'declaration type differs: its pairs follow different options: ' + ', '.join(
					'%s at %s:%d' % (p['extra'].split(':', 1)[1],
							 p['path'], p['line'])
					for p in sorted(conv, key=lambda p: (p['path'], p['line'])))
			elif kconfig is not None and cfg not in kconfig:
				why = '%s is defined by no Kconfig file of the tree, ' \
				      'so its type is unknown' % cfg
			elif kconfig is not None and kconfig[cfg][0] != 'bool':
				t, kf, kl = kconfig[cfg]
				why = '%s is %s (%s:%d): #ifdef is false for =m, ' \
				      'IS_ENABLED() true' % (cfg, t, kf, kl)
				if t != 'tristate':
					why = '%s is %s (%s:%d), not bool' % (cfg, t, kf, kl)
			else:
				for d in decls.get(key, []):
					if (d['path'], d['line']) in in_pair:
						continue
					if isinstance(g, tuple):
						# Another architecture's own key
						# of the name is not this one.
						if arch(d['path']) not in (None, g[1]):
							continue
					elif g is not None and d['path'] != g:
						continue
					if g is None and d['scope'] == 'static':
						continue
					if 'MAYBE' in d['decl'] and d['extra'] == cfg:
						continue
					when = '%s=n' % cfg if 'TRUE' in d['decl'] else \
					       '%s=y' % cfg
					if 'MAYBE' in d['decl']:
						when = '%s or %s differs' % (cfg, d['extra'])
					why = 'declaration type differs: %s at %s:%d disagrees with this pair when %s' % (
						d['decl'], d['path'], d['line'], when)
					break
			if why is None and isinstance(g, tuple):
				why, files = scope.files(key, g[1], recs)
				if why is None:
					keys += ['%s:%s:%s' % (key, cfg, f) for f in files]
					continue
			if why is None:
				keys.append('%s:%s%s' % (key, cfg, ':' + g if g else ''))
				continue
			for p in conv:
				refusals.append((p['path'][2:] if p['path'].startswith('./')
						 else p['path'], p['line'], p['col'],
						 '%s: %s; not converted'
						 % (key, why)))
	return keys, refusals


class Scope:
	"""Names scoped per architecture: a key defined under arch/A/ is one
	of A's, used by A's code and generic code, never by arch/B/'s, which
	may have its own of the same name (options.arch_of() reads a path's
	architecture from its place in the kernel tree)."""

	def __init__(self, args, top, sel, files):
		self.args, self.top, self.sel, self.all = args, top, sel, files
		options.set_prefix(top, series.tree_root(top))

	def arch(self, path):
		"""path as spatch names it (maybe an alias) -> architecture."""
		return options.arch_of(relpath(unalias(self.args, path)))

	def files(self, key, mine, recs):
		"""(refusal or None, the files as spatch names them whose uses
		of A's key may change: A's and generic code's that name it).
		Generic code naming a key that another architecture declares
		too is refused: converting it breaks that one's build."""
		others = sorted({self.arch(r['path']) for r in recs
				 if r['key'] == key} - {None, mine})
		rx = re.compile(rb'\b%s\b' % re.escape(encode(key)))
		out = []
		for f in self.all:
			a = options.arch_of(f)
			if a not in (None, mine):
				continue
			data = self.sel.text.get(f)
			if data is None:
				with open(os.path.join(self.top, f), 'rb') as fh:
					data = fh.read()
			m = rx.search(data)
			if m is None:
				continue
			if a is None and others:
				return ('generic code (%s:%d) names it, and arch/%s '
					'declares its own %s' % (
						f, data.count(b'\n', 0, m.start()) + 1,
						others[0], key)), []
			out.append(self.args.alias.get(f, f))
		return None, out


def unparsed(sel, top, files, recs):
	"""Refusals for the pairs a text scan finds in files and the collect
	pass did not report: spatch skips code it cannot parse without a
	word, so such a pair was neither converted nor named."""
	scan = crosscheck
	seen = {(relpath(r['path']), r['line']) for r in recs if r['kind'] == 'PAIR'}
	out = []
	for f in files:
		data = sel.text.get(f)
		if data is None:
			with open(os.path.join(top, f), 'rb') as fh:
				data = fh.read()
		found = set()
		lines = decode(data).split('\n')
		scan.scan_lines(lines, f, found)
		for _, line, key in sorted(found):
			# Only plain names: an array element (lru_gen_caps[N])
			# is no key spatch could take.
			if (f, line) in seen or not re.search(
					r'_STATIC_KEY_\w+\(\s*%s\s*[,)]' % re.escape(key),
					lines[line - 1]):
				continue
			out.append((f, line, 1, '%s: spatch did not parse the code '
				    'around this pair; not converted, convert by hand'
				    % key))
	return out


TEST_REPORTED = re.compile(r'^(.*?):(\d+):\d+: \w+: test of a ')


def converted_lines(patch):
	"""(file, line) of the original lines a finished patch removes."""
	out, path, old = set(), None, 0
	for l in patch.split('\n'):
		m = re.match(r'^diff --git a/(\S+) b/', l)
		if m:
			path = m.group(1)
			continue
		m = re.match(r'^@@ -(\d+)', l)
		if m:
			old = int(m.group(1))
		elif l.startswith('-') and not l.startswith('---'):
			out.add((path, old))
			old += 1
		elif l.startswith(' '):
			old += 1
	return out


def unconverted_tests(sel, top, files, keys, done):
	"""Refusals for the tests of accepted keys, found as text in files,
	that the second pass neither converted nor reported (done: their
	(file, line)): spatch did not parse the code around them."""
	glob, local = set(), {}
	for k in keys:
		f = k.split(':')
		if len(f) == 3:
			local.setdefault(relpath(f[2]), set()).add(f[0])
		else:
			glob.add(f[0])
	out = []
	for f in files:
		names = glob | local.get(f, set())
		if not names:
			continue
		data = sel.text.get(f)
		if data is None:
			with open(os.path.join(top, f), 'rb') as fh:
				data = fh.read()
		text = decode(data)
		rx = re.compile(r'\bstatic_branch_(?:un)?likely\s*\(\s*&\s*\(?\s*(%s)\b'
				% '|'.join(re.escape(n) for n in sorted(names)))
		for m in rx.finditer(text):
			line = text.count('\n', 0, m.start()) + 1
			if (f, line) not in done:
				col = m.start() - (text.rfind('\n', 0, m.start()) + 1) + 1
				out.append('%s:%d:%d: %s: this test was not converted: spatch '
					   'did not parse the code around it; convert by hand'
					   % (f, line, col, m.group(1)))
	return out


def sort_key(line):
	m = re.match(r'^(.*?):(\d+):(\d+): ', line)
	if not m:
		return (line, 0, 0)
	return (m.group(1), int(m.group(2)), int(m.group(3)))


def load_finish():
	return finish


def reroot(text, prefix):
	"""Prefix the a/ and b/ paths of a merged patch with prefix/."""
	return re.sub(r'^(diff --git a/|--- a/|\+\+\+ b/)(\S+)( b/)?(\S+)?',
		      lambda m: m.group(1) + prefix + '/' + m.group(2) +
		      (m.group(3) + prefix + '/' + m.group(4) if m.group(3) else ''),
		      text, flags=re.M)


def write_series(args, root, text, notes, kconfig, rule='keys'):
	"""MODE=series: the format-patch files; their names are the output."""
	mod = series
	try:
		names = mod.series(root, text, notes, args.output_dir, kconfig, rule)
	except mod.SeriesError as e:
		raise Failure(str(e))
	return ''.join(n + '\n' for n in names)


def is_patch_script(path):
	"""Does the script change code (lines starting with - or +)?"""
	with open(path) as f:
		return re.search(r'^[-+]', f.read(), re.M) is not None


def relpath(line):
	return line[2:] if line.startswith('./') else line


LONE_CR = re.compile(rb'\r(?!\n)')
TRUE_DECL = re.compile(rb'\b(?:DEFINE|DECLARE)_STATIC_KEY_(?:ARRAY_)?TRUE(?:_RO)?'
		       rb'\(\s*(\w+)')
FALSE_DECL = re.compile(rb'\b(?:DEFINE|DECLARE)_STATIC_KEY_(?:ARRAY_)?FALSE(?:_RO)?'
			rb'\(\s*(\w+)')


class Files:
	"""The files each spatch pass needs (with the grep prefilter).

	spatch's cost is parsing, so each pass gets only the files that can
	matter to it: the collect pass the files where one key has a TRUE
	and a FALSE declaration, plus every file declaring such a key; the
	second pass those and the files naming an accepted key; a script
	with "// Prefilter: REGEX" lines the files matching all of them."""

	def __init__(self, args, top, files):
		self.narrow = args.prefilter == 'grep'
		self.all = files
		self.text = {}
		if self.narrow:
			for f in files:
				try:
					with open(os.path.join(top, f), 'rb') as fh:
						self.text[f] = fh.read()
				except OSError as e:
					raise Failure('%s: %s' % (f, e.strerror))

	def matching(self, rx):
		if not self.narrow:
			return self.all
		return [f for f in self.all if rx.search(self.text[f])]

	def collect(self):
		if not self.narrow:
			return self.all
		cand, keep = set(), []
		for f in self.all:
			t = set(TRUE_DECL.findall(self.text[f]))
			if t:
				both = t & set(FALSE_DECL.findall(self.text[f]))
				cand |= both
		if not cand:
			return []
		names = b'|'.join(re.escape(k) for k in sorted(cand))
		rx = re.compile(rb'_STATIC_KEY_\w*\(\s*(?:' + names + rb')\b')
		return self.matching(rx)

	def second(self, collected, keys, refusals_known):
		"""refusals_known: the collect pass's REFUSE lines are printed,
		so the files it parsed for refusals alone are not parsed again;
		only a file naming an accepted key can change or report."""
		if not self.narrow:
			return self.all
		names = sorted({k.split(':')[0] for k in keys})
		if not names:
			return [] if refusals_known else collected
		rx = re.compile(rb'\b(?:' + b'|'.join(
			re.escape(encode(n)) for n in names) + rb')\b')
		have = set() if refusals_known else set(collected)
		return [f for f in self.all if f in have or rx.search(self.text[f])]

	def for_script(self, path):
		"""The files matching every "// Prefilter: REGEX" line of the
		script: the script's promise that no other file can give a
		finding.  The regexes see lines ending in \\n, as Python's text
		mode reads a file; one with a lone \\r (a line end there, not
		for a regex) always goes to spatch."""
		with open(path) as f:
			rxs = [re.compile(encode(r.strip())) for r in
			       re.findall(r'^// Prefilter: (.*)$', f.read(), re.M)]
		if not self.narrow or not rxs:
			return self.all
		return [f for f in self.all
			if LONE_CR.search(self.text[f]) or
			all(rx.search(self.text[f]) for rx in rxs)]


SHARD_FORMAT = 'coccicheck-shard 2'


def git_out(top, *argv):
	"""stdout of git run in top, or None when git fails there."""
	try:
		p = subprocess.run(['git', '-C', top] + list(argv),
				   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
	except OSError:
		return None
	return p.stdout if p.returncode == 0 else None


def blob_id(path):
	"""git's object id of the file's bytes, so that a file read here and
	one git has in its index give the same id."""
	with open(path, 'rb') as f:
		data = f.read()
	return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def content_identity(top, paths):
	"""What a shard is tied to: the bytes of the files the scan reads,
	not the directory they sit in (CI workspaces differ).  'id' is a
	digest of (path relative to top, blob id) over paths; in a git work
	tree git gives the blob ids of the files it holds unchanged and the
	others are read, so a checkout and a copy of it (a tarball, another
	path) have the same id.  'tree' names the content for a message:
	the git tree id of top at HEAD with ' (with changes)' when the work
	tree differs from it, or None outside git."""
	ids, tree = {}, None
	idx = git_out(top, 'ls-files', '-s', '-z', '--', '.')
	if idx is not None:
		for ent in idx.split(b'\0'):
			if ent:
				meta, name = ent.split(b'\t', 1)
				ids[decode(name)] = decode(meta.split()[1])
		changed = git_out(top, 'diff-files', '--name-only', '--relative',
				  '-z') or b''
		for name in changed.split(b'\0'):
			ids.pop(decode(name), None)
		head = git_out(top, 'rev-parse', 'HEAD:' + decode(
			(git_out(top, 'rev-parse', '--show-prefix') or b'').strip()))
		if head is not None:
			dirty = git_out(top, 'status', '--porcelain', '-z', '--', '.')
			tree = 'git tree %s%s' % (decode(head).strip(),
						  ' (with changes)' if dirty else '')
	h = hashlib.sha256()
	for p in sorted(paths):
		try:
			b = ids.get(p) or blob_id(os.path.join(top, p))
		except OSError as e:
			raise Failure('%s: %s' % (p, e.strerror))
		h.update(encode(p) + b'\0' + b.encode() + b'\n')
	return {'id': h.hexdigest(), 'tree': tree}


def describe(ident):
	return ident['tree'] or 'files %s' % ident['id'][:12]


def collects(path):
	with open(path) as f:
		return re.search(r'^virtual collect$', f.read(), re.M) is not None


def shardable(scripts):
	"""The scripts a shard runs: those that see one file at a time and
	only report (the cross-file passes run in the merge)."""
	return [s for s in scripts if not collects(s) and not is_patch_script(s)]


def write_shard(args, top, scripts, files, kconfigs, sel):
	"""--shard-out: the shard's files that name the API, the tree's
	Kconfig files and the report of every shardable script on them."""
	out = {'format': SHARD_FORMAT, 'max': args.max, 'index': args.index,
	       'prefilter': args.prefilter, 'content': args.content,
	       'files': files,
	       'kconfigs': kconfigs, 'reports': {}}
	for s in shardable(scripts):
		out['reports'][os.path.basename(s)] = unalias(args, spatch(
			args, top, s, 'report', sel.for_script(s)))
	SUMMARY['counts'] = count_lines(sum((r.split('\n') for r in
					     out['reports'].values()), []))
	tmp = args.shard_out + '.tmp'
	with open(tmp, 'w') as f:
		json.dump(out, f)
	os.replace(tmp, args.shard_out)
	return args.shard_out + '\n', [], False


def read_shards(args, top, scripts):
	"""--merge: (files, Kconfig files, {script: report}) of the shards,
	which must be one complete set (indices 0 to max-1 of one max) of
	the same content and prefilter.  The content is that of the tree
	being merged, wherever it is: a shard of other content (another
	commit, a file changed since) is refused by name, since its file
	list and report would silently miss what changed."""
	shards = []
	SUMMARY['scanned'] = len(source_files(top, args.exclude, quiet=True)[0])
	here = content_identity(top, sum(source_files(top, args.exclude,
							quiet=True), []))
	for path in args.merge:
		try:
			with open(path) as f:
				sh = json.load(f)
		except (OSError, ValueError) as e:
			raise Failure('%s: not a shard file: %s' % (path, e))
		if not isinstance(sh, dict) or sh.get('format') != SHARD_FORMAT:
			raise Failure('%s: not a shard file of this coccicheck' % path)
		if sh['prefilter'] != args.prefilter:
			raise Failure('%s: shard of prefilter %s, this merge has %s' % (
				path, sh['prefilter'], args.prefilter))
		if sh['content']['id'] != here['id']:
			raise Failure('%s: shard of other content (%s), this tree is '
				      '%s: run the shards again on this tree' % (
					      path, describe(sh['content']),
					      describe(here)))
		shards.append(sh)
	maxes = {sh['max'] for sh in shards}
	idx = sorted(sh['index'] for sh in shards)
	if len(maxes) != 1 or idx != list(range(maxes.pop())):
		raise Failure('the shards are not one complete set: indices %s' %
			      ', '.join('%d/%d' % (sh['index'], sh['max']) for sh in shards))
	names = {os.path.basename(s) for s in shardable(scripts)}
	files, reports = [], {}
	for sh in shards:
		if set(sh['reports']) != names:
			raise Failure('shard %d/%d ran %s, this merge needs %s' % (
				sh['index'], sh['max'], ', '.join(sorted(sh['reports'])),
				', '.join(sorted(names))))
		files += sh['files']
		for n, text in sh['reports'].items():
			reports[n] = reports.get(n, '') + text
	return sorted(files), shards[0]['kconfigs'], reports


def run(args, top, scripts):
	"""(text for stdout, lines for stderr, found) of one whole run."""
	before = cpu_children()
	pre = {}
	if args.merge:
		files, kconfigs, pre = read_shards(args, top, scripts)
	else:
		progress('reading the tree')
		files, kconfigs = source_files(top, args.exclude,
					       quiet=args.index not in (None, 0))
		SUMMARY['scanned'] = len(files)
		if args.max:
			args.content = content_identity(top, files + kconfigs)
			# The shard: every max-th file of the sorted list, so
			# that the shards are about the same size.
			files = files[args.index::args.max]
		if args.prefilter in ('grep', 'tokens'):
			files = prefilter(top, files, args.jobs)
	if args.stats:
		print('coccicheck: %d files mention the API (grep: %.2f s CPU)' % (
			len(files), cpu_children() - before), file=sys.stderr)
	make_aliases(args, top, files)
	sel = Files(args, top, files)
	if args.shard_out:
		return write_shard(args, top, scripts, files, kconfigs, sel)
	# The kernel tree that holds M: its Kconfig files give the option
	# types, its root the paths of a patch (M=linux/mm gave a/slab.h).
	root = series.tree_root(top)
	per_script = {s: sel.for_script(s) for s in scripts}

	keys, refusals, env, refused, kconfig = [], [], None, [], None
	maybe = None
	for s in scripts:
		with open(s) as f:
			if re.search(r'^virtual collect$', f.read(), re.M):
				maybe = s
				collected = sel.collect()
				text = spatch(args, top, s, 'collect', collected)
				recs = parse_collect(text)
				cfgs = {r['extra'].split(':', 1)[1] for r in recs
					if r['extra'].startswith('convert:')}
				if cfgs and root is not None and root != top:
					kconfigs = sorted(r for r, _ in walk(
						root, args.exclude, is_kconfig))
				kconfig = kconfig_types(root or top, kconfigs,
							cfgs) if kconfigs else None
				keys, refusals = consistency(recs, kconfig, Scope(
					args, top, sel, files))
				refusals += unparsed(sel, top, collected, recs)
				env = ' '.join(keys)
				per_script[s] = sel.second(
					collected, keys,
					args.mode in ('report', 'patch', 'series'))
				# Refusals the patch leaves alone, for patch mode;
				# report mode prints them too.
				refused += [tuple(l.split('\t')[1].rsplit(':', 2)) +
					     (l.split('\t', 2)[2],)
					     for l in text.split('\n')
					     if l.startswith('REFUSE\t')]
	refusals, refused = [['%s:%s:%s: %s' % (unalias(args, relpath(str(p))),
						 l, c, m) for p, l, c, m in r]
			     for r in (refusals, refused)]

	if args.mode in ('patch', 'series'):
		outs, notes = [], set(refusals + refused)
		for s in scripts:
			if is_patch_script(s):
				outs.append(unalias(args, spatch(args, top, s, 'patch',
								 per_script[s], env)))
			else:
				# Report-only scripts: their findings are refusals.
				out = pre.get(os.path.basename(s))
				if out is None:
					out = unalias(args, spatch(args, top, s, 'report',
								   per_script[s], env))
				notes.update(relpath(l) for l in out.split('\n')
					     if l.strip())
		mod = load_finish()
		try:
			text = mod.finish(top, outs)
		except mod.FinishError as e:
			raise Failure(str(e))
		if maybe is not None:
			notes.update(unconverted_tests(sel, top, per_script[maybe], keys,
						       converted_lines(text)))
		notes = sorted(notes, key=sort_key)
		# Paths from the root of the kernel tree that holds M, so that
		# the patch applies there (M=linux/mm gave a/slab.h).
		if root is not None and root != top:
			text = reroot(text, os.path.relpath(top, root))
		if args.mode == 'series':
			pre = os.path.relpath(top, root or top)
			text = write_series(args, root or top, text, [
				n if pre == '.' else pre + '/' + n for n in notes],
				kconfig or {})
		return text, notes, bool(text) or bool(notes)
	outs = [pre[os.path.basename(s)] if os.path.basename(s) in pre else
		unalias(args, spatch(args, top, s, args.mode, per_script[s], env))
		for s in scripts]
	if args.mode == 'report':
		# The second pass does not parse again the files the collect
		# pass saw refusals in (they name no accepted key): its REFUSE
		# lines are the same messages.
		lines = set(refusals + refused)
		for o in outs:
			lines.update(relpath(l) for l in o.split('\n') if l.strip())
		if maybe is not None:
			done = {(m.group(1), int(m.group(2))) for m in
				map(TEST_REPORTED.match, lines) if m}
			lines.update(unconverted_tests(sel, top, per_script[maybe],
						       keys, done))
		text = ''.join(l + '\n' for l in sorted(lines, key=sort_key))
		return text, [], bool(lines)
	text = ''.join(outs)
	if args.mode == 'org':
		text += ''.join('* TODO %s\n' % r for r in refusals)
	else:
		text += ''.join('%s\n' % r for r in refusals)
	return text, [], bool(text.strip())


def run_options(args):
	"""--rule options: report or patch the boot-parameter options whose
	default is a CONFIG test (scripts/cocci-options.py).  Its own file
	selection: the files that set a boot parameter, and the files that
	name a non-static option found there."""
	if args.mode not in ('report', 'patch', 'series'):
		die('--rule options: MODE=%s: report, patch and series only' %
		    args.mode)
	if args.max is not None or args.merge or args.sp_file:
		die('--rule options cannot be sharded or given --sp-file')
	top = os.path.abspath(args.dir)
	if not os.path.isdir(top):
		die('M=%s: no such directory' % args.dir)
	mod = options
	mod.WITH_COLD[0] = args.with_cold
	try:
		progress('reading the tree')
		files, kconfigs = source_files(top, args.exclude)
		SUMMARY['scanned'] = len(files)
		progress('reading %d files' % len(files))
		root = series.tree_root(top)
		kroot = root or top
		if root is not None and root != top:
			kconfigs = sorted(r for r, _ in walk(root, args.exclude, is_kconfig))
		opts, srcs = mod.analyse(top, files, lambda names: kconfig_types(
			kroot, kconfigs, names), kconfigs, root)
	except (OSError, Failure) as e:
		die(str(e))
	lines = sorted(mod.report(opts), key=sort_key)
	counts = count_lines(lines)
	if args.mode == 'report':
		sys.stdout.write(''.join(l + '\n' for l in lines))
		closing(*counts)
		return 1 if lines else 0
	text = mod.patch(opts, srcs)
	if root is not None and root != top:
		text = reroot(text, os.path.relpath(top, root))
	# Refused, cold, the init_on_alloc form, set by no parameter: what
	# the patch leaves alone.
	left = [l for l in lines if ': option candidate: ' not in l]
	if args.mode == 'series':
		# The series of the key rule: one commit per maintainer group,
		# subjects, To/Cc; what was left alone goes to the cover letter.
		pre = os.path.relpath(top, kroot)
		try:
			cfgs = set(re.findall(r'\bCONFIG_\w+', text))
			text = write_series(args, kroot, text, [
				l if pre == '.' else pre + '/' + l for l in left],
				kconfig_types(kroot, kconfigs, cfgs) if kconfigs and cfgs
				else {}, 'options')
		except Failure as e:
			die(str(e))
	progress(None)
	for l in left:
		print(l, file=sys.stderr)
	sys.stdout.write(text)
	closing(*counts)
	return 1 if lines else 0


def run_lint(args):
	"""MODE=lint: scripts/cocci-lint.py over the files that name the
	static key API, with the tree's Kconfig files; 0 clean, 1 findings,
	2 failure."""
	if args.max is not None or args.merge or args.sp_file or args.rule != 'keys':
		die('MODE=lint cannot be sharded, given --sp-file or --rule options')
	top = os.path.abspath(args.dir)
	if not os.path.isdir(top):
		die('M=%s: no such directory' % args.dir)
	mod = lint
	try:
		progress('reading the tree')
		files, kconfigs = source_files(top, args.exclude)
		SUMMARY['scanned'] = len(files)
		progress('reading %d files' % len(files))
		root = series.tree_root(top)
		kroot = root or top
		if root is not None and root != top:
			kconfigs = sorted(r for r, _ in walk(root, args.exclude, is_kconfig))
		lines = mod.analyse(top, files, lambda names: kconfig_types(
			kroot, kconfigs, names) if kconfigs else None, root)
	except (OSError, Failure) as e:
		die(str(e))
	lines = sorted(set(lines), key=sort_key)
	# Bytes as read: a file name that is not UTF-8 goes through.
	sys.stdout.buffer.write(encode(''.join(l + '\n' for l in lines)))
	closing(len(lines), 0)
	return 1 if lines else 0


def main():
	ap = argparse.ArgumentParser(prog='coccicheck', description='run coccinelle/*.cocci over a tree')
	ap.add_argument('--mode', default='report')
	ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
	ap.add_argument('--prefilter', default='grep',
			choices=['grep', 'tokens', 'none', 'nocheck', 'gitgrep'])
	ap.add_argument('--sp-file', action='append', default=[])
	ap.add_argument('--exclude', action='append', default=[])
	ap.add_argument('--timeout', type=int, default=120)
	ap.add_argument('--output-dir', default='series',
			help='MODE=series: where the patch files go')
	ap.add_argument('--stats', action='store_true',
			help='print the number of files scanned on stderr')
	ap.add_argument('--summary', action='store_true',
			help='a closing line on stderr ("N files scanned, N '
			'findings, N refused"), and progress when stderr is a '
			'terminal (make coccicheck)')
	ap.add_argument('--max', type=int,
			help='shard the scan in MAX parts (with --index, --shard-out)')
	ap.add_argument('--index', type=int,
			help='the shard to scan, 0 to MAX-1')
	ap.add_argument('--shard-out', metavar='FILE',
			help='write the shard\'s results to FILE, for --merge')
	ap.add_argument('--merge', action='append', metavar='FILE',
			help='the whole run from the shard files of one MAX '
			'(once per file)')
	ap.add_argument('--rule', default='keys', choices=['keys', 'options'],
			help='keys: the #ifdef pairs of static keys (the '
			'default); options: boot-parameter options with a '
			'CONFIG default (scripts/cocci-options.py)')
	ap.add_argument('--with-cold', action='store_true',
			help='--rule options, patch mode: convert the options '
			'read only on cold paths too')
	ap.add_argument('dir')
	args = ap.parse_args()
	SUMMARY['on'] = args.summary
	# spatch runs in DIR: a script named from here is found from there.
	args.sp_file = [os.path.abspath(f) for f in args.sp_file]

	if args.mode not in ('patch', 'report', 'context', 'org', 'series', 'lint'):
		die("MODE=%s: unknown mode (patch, report, context, org, series, lint)" %
		    args.mode)
	if args.mode == 'lint':
		sys.exit(run_lint(args))
	if args.jobs < 1:
		die('J=%d: need at least one job' % args.jobs)
	args.output_dir = os.path.abspath(args.output_dir)
	if args.rule == 'options':
		sys.exit(run_options(args))
	if args.timeout < 1:
		die('--timeout %d: need at least one second' % args.timeout)
	if (args.max is None) != (args.index is None) or \
	   (args.max is not None and not 0 <= args.index < args.max) or \
	   (args.max is not None) != (args.shard_out is not None):
		die('--max MAX, --index I (0 <= I < MAX) and --shard-out FILE '
		    'go together')
	if (args.shard_out or args.merge) and \
	   args.mode not in ('report', 'patch', 'series'):
		die('MODE=%s cannot be sharded: report, patch and series can' %
		    args.mode)
	if args.shard_out and args.merge:
		die('--shard-out and --merge: one shard is scanned, or shards merged')
	if (args.shard_out or args.merge) and args.prefilter in ('none', 'gitgrep'):
		die('--prefilter %s cannot be sharded (spatch chooses the files)' %
		    args.prefilter)
	if args.shard_out:
		args.shard_out = os.path.abspath(args.shard_out)
	top = os.path.abspath(args.dir)
	if not os.path.isdir(top):
		die("M=%s: no such directory" % args.dir)
	if args.prefilter == 'gitgrep' and subprocess.run(
			['git', '-C', top, 'rev-parse', '--is-inside-work-tree'],
			stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
		die("M=%s: --use-gitgrep needs a git work tree" % args.dir)
	scripts = args.sp_file or sorted(
		os.path.join(SRCTREE, 'coccinelle', f)
		for f in os.listdir(os.path.join(SRCTREE, 'coccinelle'))
		if f.endswith('.cocci') and f != LINT_SCRIPT)
	for s in scripts:
		if not os.path.isfile(s):
			die('%s: no such semantic patch' % s)
	for tool in ('spatch', 'grep', 'diff'):
		if shutil.which(tool) is None:
			die('%s not found: scripts/install-deps cocci' % tool)

	# A kill (make interrupted, a CI timeout) still removes the temporary
	# directory: SIGTERM unwinds like an exception.
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	# Relative to where the driver runs (format-patch runs elsewhere).
	args.output_dir = os.path.abspath(args.output_dir)
	try:
		check_spatch(scripts)
		with tempfile.TemporaryDirectory(prefix='coccicheck.') as args.tmp:
			text, notes, found = run(args, top, scripts)
	except Failure as e:
		die(str(e))
	if args.stats:
		r = resource.getrusage(resource.RUSAGE_SELF)
		print('coccicheck: this script (walk, file selection, finisher): '
		      '%.2f s CPU; its children: %.2f s CPU' % (
			      r.ru_utime + r.ru_stime, cpu_children()),
		      file=sys.stderr)
	progress(None)
	for l in notes:
		print(l, file=sys.stderr)
	sys.stdout.buffer.write(encode(text))
	sys.stdout.flush()
	if 'counts' in SUMMARY:
		closing(*SUMMARY['counts'])
	elif args.mode in ('patch', 'series'):
		# A change is a hunk of the patch (series: a file written).
		closing(len(re.findall(r'^@@ ', text, re.M)) if args.mode ==
			'patch' else len(text.split()), len(notes))
	elif args.mode == 'report':
		closing(*count_lines(text.split('\n')))
	elif args.mode == 'org':
		closing(*count_lines(re.findall(r'^\* TODO .*', text, re.M)))
	else:
		# context: a hunk per finding, then the refusals' lines.
		closing(len(re.findall(r'^@@ ', text, re.M)), len(re.findall(
			r'^\S+:\d+:\d+: ', text, re.M)))
	sys.exit(1 if found else 0)


if __name__ == '__main__':
	main()
