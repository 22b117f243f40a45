# SPDX-License-Identifier: GPL-2.0-only
#
# MODE=series of scripts/coccicheck: turn the finished patch of a kernel
# tree into a series of git format-patch files that a maintainer can take:
# one commit per maintainer group (scripts/get_maintainer.pl when the tree
# has it, else one per directory), a kernel-style subject ("mm/slub: ..."),
# a message that says why and what was checked, paths relative to the
# tree root, and a cover letter that lists the refusals.
#
# Used as a module by scripts/coccicheck; series() returns the file names.
import ctypes
import os
import re
import shutil
import subprocess
import tempfile

FILE_HDR = re.compile(r'^diff --git a/(\S+) b/')
# What a patch converts, in the text of its added lines (a wrapped test
# may continue on the next added line, after a macro's backslash).
DECL = re.compile(r'\b((?:DEFINE|DECLARE)_STATIC_KEY_MAYBE(?:_RO)?)\(\s*'
		  r'(CONFIG_\w+)\s*,\s*(\w+)\s*\)')
USE = re.compile(r'\bstatic_branch_maybe\(\s*(CONFIG_\w+)\s*,[\s\\]*&\s*\(?\s*(\w+)')
SUBJECT_MAX = 75


class SeriesError(Exception):
	pass


def tree_root(top):
	"""The kernel tree top holds M (MAINTAINERS and Kbuild), or None."""
	d = top
	while True:
		if os.path.isfile(os.path.join(d, 'MAINTAINERS')) and \
		   os.path.isfile(os.path.join(d, 'Kbuild')):
			return d
		up = os.path.dirname(d)
		if up == d:
			return None
		d = up


def split_files(text):
	"""{path: diff text} of a merged patch."""
	out, cur = {}, None
	for line in text.splitlines(keepends=True):
		m = FILE_HDR.match(line)
		if m:
			cur = m.group(1)
			out[cur] = ''
		if cur is not None:
			out[cur] += line
	return out


def get_maintainer(root, *args):
	"""Lines of scripts/get_maintainer.pl, or None without it."""
	gm = os.path.join(root, 'scripts', 'get_maintainer.pl')
	if not os.path.isfile(gm):
		return None
	r = subprocess.run(['perl', gm, '--no-git', '--no-git-fallback'] +
			   list(args), cwd=root, stdout=subprocess.PIPE,
			   stderr=subprocess.PIPE, text=True)
	if r.returncode != 0:
		raise SeriesError('%s: get_maintainer.pl failed: %s' %
				  (args[-1], r.stderr.strip()))
	return [l for l in r.stdout.splitlines() if l.strip()]


def maintainers(root, path):
	"""The group of a file: its maintainers from the file name alone.
	Keyword matches (MAINTAINERS "K:" lines, on the file's text) are
	left out: they differ between the files of one key and split its
	conversion over two patches.  A file no one maintains is grouped
	with the others of its directory."""
	lines = get_maintainer(root, '--no-rolestats', '--no-l', '--no-r',
			       '--no-keywords', '-f', path)
	if not lines:
		return 'dir:' + os.path.dirname(path)
	return '\n'.join(sorted(lines))


ROLE = re.compile(r'^(.*?)\s+\((.*)\)$')


def recipients(root, patch):
	"""(To, Cc) of a patch file as get_maintainer.pl gives them, lists
	and reviewers included: maintainers and supporters in To, the rest
	(reviewers, lists) in Cc; a patch no one maintains goes To its
	lists.  ([], []) without get_maintainer.pl."""
	lines = get_maintainer(root, '--rolestats', patch) or []
	to, cc = [], []
	for l in lines:
		m = ROLE.match(l)
		who, role = (m.group(1), m.group(2)) if m else (l, '')
		(to if re.match(r'(maintainer|supporter|chief)', role) else cc).append(who)
	if not to:
		to = [c for c in cc if '<' not in c]
		cc = [c for c in cc if c not in to]
	return to, cc


def add_recipients(path, to, cc):
	"""Write To:/Cc: headers into a format-patch file, after Date:."""
	with open(path, encoding='utf-8', errors='surrogateescape') as f:
		text = f.read()
	hdr = ''.join('%s: %s\n' % (name, ',\n    '.join(who))
		      for name, who in (('To', to), ('Cc', cc)) if who)
	text = re.sub(r'^(Date: [^\n]*\n)', lambda m: m.group(1) + hdr, text,
		      count=1, flags=re.M)
	with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
		f.write(text)


def parts(diff):
	"""{key: (CONFIG_X, [MAYBE macros added], number of tests)} of a diff."""
	text = '\n'.join(l[1:] for l in diff.splitlines()
			 if l.startswith('+') and not l.startswith('+++'))
	out = {}
	for macro, cfg, key in DECL.findall(text):
		out.setdefault(key, (cfg, [], [0]))[1].append(macro)
	for cfg, key in USE.findall(text):
		out.setdefault(key, (cfg, [], [0]))[2][0] += 1
	return {k: (c, sorted(m), n[0]) for k, (c, m, n) in out.items()}


OLD_TEST = re.compile(r'\bstatic_branch_(likely|unlikely)\(\s*&\s*\(?\s*(\w+)')


def old_tests(diff):
	"""{key: {'likely': [path:line], 'unlikely': [...]}} of the tests a
	diff removes, at their lines in the file before it."""
	out, path, line = {}, None, 0
	for l in diff.splitlines():
		if l.startswith('diff --git '):
			path = l.split()[2][2:]
		elif l.startswith('@@ '):
			line = int(re.match(r'@@ -(\d+)', l).group(1))
		elif l.startswith(('---', '+++')):
			continue
		elif l[:1] in (' ', '-'):
			if l[0] == '-':
				for how, key in OLD_TEST.findall(l):
					out.setdefault(key, {'likely': [], 'unlikely': []})[
						how].append('%s:%d' % (path, line))
			line += 1
	return out


def layout(key, cfg, tests):
	"""What the converted tests of key change, in which configuration.
	static_branch_maybe() is static_branch_unlikely() with the option off
	and static_branch_likely() with it on, so an unlikely test changes
	its layout with the option on, a likely test with it off: say which,
	by place, rather than that nothing changes."""
	lk = tests.get('likely', [])
	un = tests.get('unlikely', [])
	if not lk:
		return ('With %s off the generated code does not change (%s already '
			'an unlikely branch); with it on, %s a likely branch.' % (
				cfg, 'the test was' if len(un) == 1 else
				'the %d tests were' % len(un),
				'it becomes' if len(un) == 1 else 'each becomes'))
	said = ('With %s off, the static_branch_likely() %s of %s at %s %s: '
		'the generated code changes there, what the author laid out '
		'inline goes out of line' % (
			cfg, 'test' if len(lk) == 1 else 'tests', key, ', '.join(lk),
			'becomes an unlikely branch' if len(lk) == 1 else
			'become unlikely branches'))
	if un:
		said += ('; with it on, the static_branch_unlikely() %s at %s %s '
			 'likely' % ('test' if len(un) == 1 else 'tests',
				     ', '.join(un), 'becomes' if len(un) == 1
				     else 'become'))
	else:
		said += '; with it on the generated code does not change'
	return said + '.'


def rank(conv):
	"""Definitions first, then declarations, then groups of tests only."""
	macros = [m for _, ms, _ in conv.values() for m in ms]
	if any(m.startswith('DEFINE') for m in macros):
		return 0
	return 1 if macros else 2


def path_prefix(path):
	"""The subject prefix a file's subsystem uses, derived from its path
	when there is no git history to learn it from (Documentation/
	coccinelle.rst lists the rules): kernel/sched/core.c sched/core,
	mm/slub.c mm/slub, drivers/.../e1000/e1000_main.c e1000,
	net/core/dev.c net, arch/x86/entry/x.c x86/entry,
	include/linux/randomize_kstack.h randomize_kstack."""
	d = path.split('/')
	stem = os.path.splitext(d[-1])[0]
	if len(d) == 1:
		return stem
	top, dirs = d[0], d[1:-1]
	if top == 'kernel':
		return '/'.join(dirs[:1] + [stem])
	if top in ('mm', 'lib'):
		return top + '/' + (dirs[0] if dirs else stem)
	if top == 'arch' and dirs:
		sub = dirs[1:2]
		return '/'.join(dirs[:1] + ([] if sub in (['include'], ['kernel'])
					   else sub))
	if top == 'drivers':
		return dirs[-1] if len(dirs) > 1 else stem
	if top == 'net':
		return 'net' if not dirs or dirs[0] == 'core' else dirs[0]
	if top in ('fs', 'security', 'sound'):
		return dirs[0] if dirs else top
	if top == 'include':
		return stem if dirs == ['linux'] else (dirs[0] if dirs else stem)
	return top


# "sched/core: Fix x" gives sched/core, "net: e1000: Fix" net: e1000.
GIT_PREFIX = re.compile(r'^([\w.,/+-]+(?:: [\w.,/+-]+)*): \S')


def git_prefix(root, paths):
	"""(prefix, capital) of the last commits of these files: the prefix
	most of them use (at least two), and whether most of the subjects
	with that prefix go on with a capital letter ("x86/mm: Fix", tip's
	way) or not ("mm/slub: fix", mm's); None outside git or without a
	prefix two commits share."""
	if not os.path.isdir(os.path.join(root, '.git')):
		return None
	r = subprocess.run(['git', 'log', '-n', '50', '--no-merges',
			    '--format=%s', '--'] + paths, cwd=root,
			   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
	if r.returncode != 0:
		return None
	count, upper = {}, {}
	for subj in r.stdout.decode('utf-8', 'replace').splitlines():
		m = GIT_PREFIX.match(subj)
		if m:
			k = m.group(1)
			count[k] = count.get(k, 0) + 1
			first = subj[m.end(1) + 2:m.end(1) + 3]
			if first.isalpha():
				upper.setdefault(k, [0, 0])[first.isupper()] += 1
	best = max(sorted(count), key=lambda k: count[k], default=None)
	if not best or count[best] < 2:
		return None
	low, up = upper.get(best, [0, 1])
	return best, up >= low


def prefix(root, paths):
	"""(prefix, capital) of the subject: the subsystem prefix and case
	the files' git log uses, else the prefix their paths give (the .c
	files' when they agree: mm/slub for mm/slub.c with mm/slab.h), else
	their common directory, with a capital (the tip trees' and most
	subsystems' way)."""
	pre = git_prefix(root, paths)
	if pre:
		return pre
	for ps in ([p for p in paths if p.endswith('.c')], paths):
		got = {path_prefix(p) for p in ps}
		if len(got) == 1:
			return got.pop(), True
	return os.path.commonpath(paths) or 'treewide', True


def subject(pre, conv):
	"""One wording for every patch, at most SUBJECT_MAX characters: the
	keys the patch defines or declares (else those it tests) by name
	while they fit.  pre: prefix()."""
	pre, capital = pre
	keys = sorted(k for k, (_, ms, _) in conv.items() if ms) or sorted(conv)
	s = '%s: %s %s' % (pre, 'Use' if capital else 'use',
			   'a MAYBE static key' if len(keys) == 1
			   else 'MAYBE static keys')
	if len(s + ' for ' + ', '.join(keys)) <= SUBJECT_MAX:
		return s + ' for ' + ', '.join(keys)
	if len(s) <= SUBJECT_MAX:
		return s
	raise SeriesError('%s: the subject prefix leaves no room for a subject '
			  'of %d characters' % (pre, SUBJECT_MAX))


def plural(n, word):
	return '%d %s%s' % (n, word, 's' * (n != 1))


def option_message(key, cfg, defs, macros, uses):
	"""The paragraph of a boot-parameter option made a static key."""
	acts = []
	if defs:
		acts.append('defines it with %s(%s, %s)' % (defs[0], cfg, key))
	if len(defs) < len(macros):
		acts.append('declares it with DECLARE_STATIC_KEY_MAYBE(%s, %s)' %
			    (cfg, key))
	if uses:
		acts.append('reads it with static_branch_maybe(%s, &%s) (%s)' % (
			cfg, key, plural(uses, 'read')))
	return ('%s is a boot-parameter option whose default %s chooses, read '
		'as a variable on every test.  This patch %s; the parameter '
		'sets it with static_branch_enable() or static_branch_disable().  '
		'The reads change their generated code in both configurations: '
		'a load and a test become a jump laid out for the default, '
		'unlikely with %s off and likely with it on.' % (
			key, cfg, ', '.join(acts) or 'converts it', cfg))


def message(conv, kconfig, elsewhere, tests=None, rule='keys'):
	"""Paragraphs of the commit message.  elsewhere: {key: [subjects of
	the other patches of the series that convert part of it]}; tests:
	old_tests() of the patch."""
	lines, tests = [], tests or {}
	for key, (cfg, macros, uses) in sorted(conv.items()):
		defs = [m for m in macros if m.startswith('DEFINE')]
		if rule == 'options':
			lines.append(option_message(key, cfg, defs, macros, uses))
		elif macros:
			lines.append(
				'The initial state of %s is chosen by %s with an #ifdef '
				'around a pair of TRUE and FALSE %s, but its tests use '
				'static_branch_likely() or static_branch_unlikely() '
				'whatever the option says: in one of the two configurations '
				'the common case takes the out-of-line branch.' % (
					key, cfg, 'definitions' if defs else 'declarations'))
			acts = []
			if defs:
				acts.append('define the key with %s(%s, %s)' % (defs[0], cfg, key))
			if len(defs) < len(macros):
				acts.append('declare it with DECLARE_STATIC_KEY_MAYBE(%s, %s)'
					    % (cfg, key))
			what = ' and '.join(acts)
			what = what[0].upper() + what[1:] + ', which states the default once'
			if uses:
				what += ', and test it with static_branch_maybe(), which lays ' \
					'the code out for that default.  ' + \
					layout(key, cfg, tests.get(key, {}))
			else:
				what += '.  The generated code does not change: the MAYBE ' \
					'form is the TRUE or FALSE key that the #ifdef chose.'
			lines.append(what)
		else:
			lines.append(
				'%s follows %s (DEFINE_STATIC_KEY_MAYBE()).  Test it with '
				'static_branch_maybe(%s, &%s) here too, so that these tests '
				'are laid out for the build-time default as well.  %s' % (
					key, cfg, cfg, key, layout(key, cfg, tests.get(key, {}))))
		if elsewhere.get(key):
			lines.append('The rest of the conversion of %s is in %s in this '
				     'series.' % (key, ' and '.join(
					     '"%s"' % s for s in elsewhere[key])))
		chk = ['every declaration of %s in the tree follows %s' % (key, cfg)]
		where = kconfig.get(cfg)
		if where:
			chk.append('%s is a bool option (%s:%d)' % (cfg, where[1], where[2]))
		if uses:
			chk.append('%s converted' % plural(
				uses, 'read' if rule == 'options' else 'test'))
		lines.append('Checked: ' + '; '.join(chk) + '.')
	lines.append('Generated with %s from the statickeys project.' % (
		'scripts/cocci-options.py' if rule == 'options' else
		'coccinelle/static_key_maybe.cocci'))
	return lines


def wrap(par, width=72):
	"""Fill to width; a line never starts with '#' (git drops such lines
	of a commit message as comments), the word before comes along."""
	words, out, cur = par.split(), [], []
	for w in words:
		if len(cur) > (1 if w.startswith('#') else 0) and \
		   len(' '.join(cur + [w])) > width:
			carry = [cur.pop()] if w.startswith('#') else []
			out.append(' '.join(cur))
			cur = carry
		cur.append(w)
	if cur:
		out.append(' '.join(cur))
	return '\n'.join(out)


def git(cwd, *args, env=None):
	r = subprocess.run(['git'] + list(args), cwd=cwd, env=env,
			   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
	if r.returncode != 0:
		raise SeriesError('git %s: %s' % (args[0], r.stderr.decode(
			'utf-8', 'replace').strip()))
	return r.stdout


def series(root, text, notes, outdir, kconfig, rule='keys'):
	"""Write the series for the root-relative patch text; return file names.
	rule: 'keys' (#ifdef pairs) or 'options' (boot-parameter options)."""
	files = split_files(text)
	if not files:
		return []
	groups = {}
	for path in sorted(files):
		groups.setdefault(maintainers(root, path), []).append(path)
	ident = {
		'GIT_AUTHOR_NAME': os.environ.get('GIT_AUTHOR_NAME') or
		git(root if os.path.isdir(os.path.join(root, '.git')) else '.',
		    'config', '--default', '', 'user.name').decode().strip(),
		'GIT_AUTHOR_EMAIL': os.environ.get('GIT_AUTHOR_EMAIL') or
		git(root if os.path.isdir(os.path.join(root, '.git')) else '.',
		    'config', '--default', '', 'user.email').decode().strip(),
	}
	if not ident['GIT_AUTHOR_NAME'] or not ident['GIT_AUTHOR_EMAIL']:
		raise SeriesError('MODE=series needs an author for Signed-off-by: '
				  'git config user.name/user.email or GIT_AUTHOR_NAME/'
				  'GIT_AUTHOR_EMAIL')
	env = dict(os.environ, GIT_COMMITTER_NAME=ident['GIT_AUTHOR_NAME'],
		   GIT_COMMITTER_EMAIL=ident['GIT_AUTHOR_EMAIL'], **ident)
	# The files are written to a directory beside outdir and renamed
	# into place at the end: a run killed on the way (SIGTERM in the
	# git step) leaves the previous series as it was.
	parent = os.path.dirname(os.path.abspath(outdir))
	os.makedirs(parent, exist_ok=True)
	stage = tempfile.mkdtemp(prefix='.%s.' % os.path.basename(outdir),
				 dir=parent)
	tmp = tempfile.mkdtemp(prefix='cocci-series.')
	try:
		names = build(root, files, groups, notes, stage, tmp, env, kconfig, rule)
		publish(stage, outdir, names)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
		shutil.rmtree(stage, ignore_errors=True)
	return [os.path.join(outdir, n) for n in names]


def publish(stage, outdir, names):
	"""Put the files of stage in outdir, in place of its .patch files:
	one atomic exchange of the two directories when outdir holds only
	.patch files (renameat2 RENAME_EXCHANGE), else file by file."""
	if os.path.isdir(outdir) and all(f.endswith('.patch')
					 for f in os.listdir(outdir)):
		libc = ctypes.CDLL(None, use_errno=True)
		fn = getattr(libc, 'renameat2', None)
		if fn is not None and fn(-100, os.fsencode(stage), -100,
					 os.fsencode(outdir), 2) == 0:
			return
	elif not os.path.exists(outdir):
		os.rename(stage, outdir)
		os.mkdir(stage)		# for the caller's rmtree
		return
	for n in names:
		os.replace(os.path.join(stage, n), os.path.join(outdir, n))
	for f in os.listdir(outdir):
		if f.endswith('.patch') and f not in names:
			os.unlink(os.path.join(outdir, f))


def build(root, files, groups, notes, outdir, tmp, env, kconfig, rule):
	"""Commit each group in the git work tree tmp and write the series
	to outdir; return the file names."""
	git(tmp, 'init', '-q', env=env)
	for path in files:
		dst = os.path.join(tmp, path)
		os.makedirs(os.path.dirname(dst), exist_ok=True)
		shutil.copyfile(os.path.join(root, path), dst)
	git(tmp, 'add', '-A', env=env)
	git(tmp, 'commit', '-q', '-m', 'base', env=env)
	base = git(tmp, 'rev-parse', 'HEAD', env=env).decode().strip()
	plan = []
	for paths in groups.values():
		diff = ''.join(files[p] for p in paths)
		conv = parts(diff)
		plan.append((rank(conv), paths, diff, conv,
			     subject(prefix(root, paths), conv)))
	plan.sort(key=lambda x: x[:2])
	for _, paths, diff, conv, subj in plan:
		pf = os.path.join(tmp, '.group.patch')
		with open(pf, 'w', encoding='utf-8', errors='surrogateescape') as f:
			f.write(diff)
		git(tmp, 'apply', '--index', pf, env=env)
		os.unlink(pf)
		elsewhere = {k: [o[4] for o in plan if o[4] != subj and k in o[3]]
			     for k in conv}
		body = '\n\n'.join(wrap(p) for p in message(conv, kconfig, elsewhere,
							       old_tests(diff), rule))
		git(tmp, 'commit', '-q', '-s', '-m', '%s\n\n%s\n' % (subj, body),
		    env=env)
	git(tmp, 'format-patch', '-q', '--cover-letter', '-o', outdir,
	    base + '..HEAD', env=env)
	names = sorted(f for f in os.listdir(outdir) if f.endswith('.patch'))
	cover = os.path.join(outdir, names[0])
	with open(cover, encoding='utf-8', errors='surrogateescape') as f:
		c = f.read()
	blurb = (['This series makes boot-parameter options whose default is',
		  'chosen by a bool Kconfig option static keys',
		  '(DEFINE_STATIC_KEY_MAYBE()), so that their reads are jumps',
		  'laid out for the build-time default.', '']
		 if rule == 'options' else
		 ['This series converts static keys whose initial state is chosen',
		  'by a bool Kconfig option to the DEFINE_STATIC_KEY_MAYBE() layer,',
		  'so that the branch layout follows the build-time default.', ''])
	if notes:
		blurb += ['Not converted (left for a human, with the reason):', '']
		blurb += ['  ' + n for n in notes]
	c = c.replace('*** SUBJECT HERE ***',
		      'Static keys: lay out CONFIG-chosen keys for their default')
	c = c.replace('*** BLURB HERE ***', '\n'.join(blurb))
	with open(cover, 'w', encoding='utf-8', errors='surrogateescape') as f:
		f.write(c)
	# Each patch goes to the people get_maintainer.pl names for it, the
	# cover letter to all of them.
	all_to, all_cc = [], []
	for n in names[1:]:
		to, cc = recipients(root, os.path.join(outdir, n))
		add_recipients(os.path.join(outdir, n), to, cc)
		all_to += [w for w in to if w not in all_to]
		all_cc += [w for w in cc if w not in all_cc]
	add_recipients(cover, all_to, [w for w in all_cc if w not in all_to])
	return names
