#!/usr/bin/env python3
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


def maintainers(root, path):
	gm = os.path.join(root, 'scripts', 'get_maintainer.pl')
	if not os.path.isfile(gm):
		return os.path.dirname(path)
	r = subprocess.run(['perl', gm, '--no-git', '--no-git-fallback',
			    '--no-rolestats', '--no-l', '--no-r', '-f', path],
			   cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
			   text=True)
	if r.returncode != 0:
		raise SeriesError('%s: get_maintainer.pl failed: %s' %
				  (path, r.stderr.strip()))
	return '\n'.join(sorted(l for l in r.stdout.splitlines() if l.strip()))


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


def rank(conv):
	"""Definitions first, then declarations, then groups of tests only."""
	macros = [m for _, ms, _ in conv.values() for m in ms]
	if any(m.startswith('DEFINE') for m in macros):
		return 0
	return 1 if macros else 2


def prefix(paths):
	"""The subject's subsystem prefix: mm/slub for mm/slub.c (with its
	header), randomize_kstack for include/linux/randomize_kstack.h."""
	cs = [p for p in paths if p.endswith('.c')]
	if len(cs) == 1:
		return os.path.splitext(cs[0])[0]
	if not cs and len(paths) == 1 and paths[0].startswith('include/'):
		return os.path.splitext(os.path.basename(paths[0]))[0]
	pre = os.path.commonpath(paths) or 'treewide'
	return os.path.splitext(pre)[0] if pre in paths else pre


def subject(paths, conv):
	"""At most SUBJECT_MAX characters when any wording fits; it names the
	keys the patch defines or declares (else the keys it tests)."""
	pre = prefix(paths)
	keys = sorted(k for k, (_, ms, _) in conv.items() if ms) or sorted(conv)
	names = ', '.join(keys)
	macros = sorted({m for k in keys for m in conv[k][1]})
	macro = ([m for m in macros if m.startswith('DEFINE')] + macros +
		 ['static_branch_maybe'])[0]
	for s in ('%s: Let the build-time default of %s choose the branch '
		  'layout' % (pre, names),
		  '%s: Use %s() for %s' % (pre, macro, names),
		  '%s: Use %s for %s' % (pre, 'MAYBE static keys' if len(keys) > 1
					 else 'a MAYBE static key', names)):
		if len(s) <= SUBJECT_MAX:
			return s
	return '%s: Lay out %d static keys for their build-time defaults' % (
		pre, len(keys))


def plural(n, word):
	return '%d %s%s' % (n, word, 's' * (n != 1))


def message(conv, kconfig, elsewhere):
	"""Paragraphs of the commit message.  elsewhere: {key: [subjects of
	the other patches of the series that convert part of it]}."""
	lines = []
	for key, (cfg, macros, uses) in sorted(conv.items()):
		defs = [m for m in macros if m.startswith('DEFINE')]
		if macros:
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
					'the code out for that default.  With %s off the ' \
					'generated code does not change; with it on the test ' \
					'becomes a likely branch.' % cfg
			else:
				what += '.  The generated code does not change: the MAYBE ' \
					'form is the TRUE or FALSE key that the #ifdef chose.'
			lines.append(what)
		else:
			lines.append(
				'%s follows %s (DEFINE_STATIC_KEY_MAYBE()).  Test it with '
				'static_branch_maybe(%s, &%s) here too, so that these tests '
				'are laid out for the build-time default as well: with %s '
				'off the generated code does not change, with it on the '
				'test becomes a likely branch.' % (key, cfg, cfg, key, cfg))
		if elsewhere.get(key):
			lines.append('The rest of the conversion of %s is in %s in this '
				     'series.' % (key, ' and '.join(
					     '"%s"' % s for s in elsewhere[key])))
		chk = ['every declaration of %s in the tree follows %s' % (key, cfg)]
		where = kconfig.get(cfg)
		if where:
			chk.append('%s is a bool option (%s:%d)' % (cfg, where[1], where[2]))
		if uses:
			chk.append('%s converted' % plural(uses, 'test'))
		lines.append('Checked: ' + '; '.join(chk) + '.')
	lines.append('Generated with coccinelle/static_key_maybe.cocci from the '
		     'statickeys project.')
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


def series(root, text, notes, outdir, kconfig):
	"""Write the series for the root-relative patch text; return file names."""
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
	os.makedirs(outdir, exist_ok=True)
	for f in os.listdir(outdir):
		if f.endswith('.patch'):
			os.unlink(os.path.join(outdir, f))
	tmp = tempfile.mkdtemp(prefix='cocci-series.')
	try:
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
			plan.append((rank(conv), paths, diff, conv, subject(paths, conv)))
		plan.sort(key=lambda x: x[:2])
		for _, paths, diff, conv, subj in plan:
			pf = os.path.join(tmp, '.group.patch')
			with open(pf, 'w', encoding='utf-8', errors='surrogateescape') as f:
				f.write(diff)
			git(tmp, 'apply', '--index', pf, env=env)
			os.unlink(pf)
			elsewhere = {k: [o[4] for o in plan if o[4] != subj and k in o[3]]
				     for k in conv}
			body = '\n\n'.join(wrap(p) for p in message(conv, kconfig, elsewhere))
			git(tmp, 'commit', '-q', '-s', '-m', '%s\n\n%s\n' % (subj, body),
			    env=env)
		git(tmp, 'format-patch', '-q', '--cover-letter', '-o', outdir,
		    base + '..HEAD', env=env)
	finally:
		shutil.rmtree(tmp)
	names = sorted(f for f in os.listdir(outdir) if f.endswith('.patch'))
	cover = os.path.join(outdir, names[0])
	with open(cover, encoding='utf-8', errors='surrogateescape') as f:
		c = f.read()
	blurb = ['This series converts static keys whose initial state is chosen',
		 'by a bool Kconfig option to the DEFINE_STATIC_KEY_MAYBE() layer,',
		 'so that the branch layout follows the build-time default.', '']
	if notes:
		blurb += ['Not converted (left for a human, with the reason):', '']
		blurb += ['  ' + n for n in notes]
	c = c.replace('*** SUBJECT HERE ***',
		      'Static keys: lay out CONFIG-chosen keys for their default')
	c = c.replace('*** BLURB HERE ***', '\n'.join(blurb))
	with open(cover, 'w', encoding='utf-8', errors='surrogateescape') as f:
		f.write(c)
	return [os.path.join(outdir, n) for n in names]
