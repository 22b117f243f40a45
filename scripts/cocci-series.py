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
MAYBE = re.compile(r'^\+.*(?:DEFINE|DECLARE)_STATIC_KEY_MAYBE(?:_RO)?\(\s*(CONFIG_\w+)\s*,'
		   r'\s*(\w+)\s*\)', re.M)
USE = re.compile(r'^\+.*static_branch_maybe\(\s*(CONFIG_\w+),', re.M)


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


def subject(paths, keys):
	cs = [p for p in paths if p.endswith('.c')]
	if len(cs) == 1:
		prefix = os.path.splitext(cs[0])[0]
	else:
		prefix = os.path.commonpath(paths) or 'treewide'
		if prefix in paths:
			prefix = os.path.splitext(prefix)[0]
	what = ', '.join(sorted(keys))
	s = '%s: Let the build-time default of %s choose the branch layout' % (prefix, what)
	if len(s) > 75:
		s = '%s: Use DEFINE_STATIC_KEY_MAYBE() for %s' % (prefix, what)
	return s


def message(keys, uses, kconfig):
	lines = []
	for key, cfg in sorted(keys.items()):
		where = kconfig.get(cfg)
		lines.append(
			'The initial state of %s is chosen by %s with an #ifdef around a '
			'pair of TRUE and FALSE definitions, but its tests use '
			'static_branch_likely() or static_branch_unlikely() whatever the '
			'option says: in one of the two configurations the common case '
			'takes the out-of-line branch.' % (key, cfg))
		lines.append(
			'Define the key with DEFINE_STATIC_KEY_MAYBE(%s, %s) (and '
			'DECLARE_STATIC_KEY_MAYBE() where it is declared), which states '
			'the default once, and test it with static_branch_maybe(), which '
			'lays the code out for that default.  With %s off the generated '
			'code does not change; with it on the test becomes a likely '
			'branch.' % (cfg, key, cfg))
		chk = ['every declaration of %s in the tree follows %s' % (key, cfg)]
		if where:
			chk.append('%s is a bool option (%s:%d)' % (cfg, where[1], where[2]))
		if uses.get(key):
			chk.append('%d test%s converted' % (uses[key], 's' * (uses[key] > 1)))
		lines.append('Checked: ' + '; '.join(chk) + '.')
	lines.append('Generated with coccinelle/static_key_maybe.cocci from the '
		     'statickeys project.')
	return lines


def wrap(par, width=72):
	words, out, cur = par.split(), [], ''
	for w in words:
		if cur and len(cur) + 1 + len(w) > width:
			out.append(cur)
			cur = w
		else:
			cur = (cur + ' ' + w) if cur else w
	if cur:
		out.append(cur)
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
		for key_group in sorted(groups.values()):
			diff = ''.join(files[p] for p in key_group)
			pf = os.path.join(tmp, '.group.patch')
			with open(pf, 'w', encoding='utf-8', errors='surrogateescape') as f:
				f.write(diff)
			git(tmp, 'apply', '--index', pf, env=env)
			os.unlink(pf)
			keys = {k: c for c, k in MAYBE.findall(diff)}
			uses = {}
			for c in USE.findall(diff):
				for k, kc in keys.items():
					if kc == c:
						uses[k] = uses.get(k, 0) + 1
			body = '\n\n'.join(wrap(p) for p in message(keys, uses, kconfig))
			msg = '%s\n\n%s\n' % (subject(key_group, keys), body)
			git(tmp, 'commit', '-q', '-s', '-m', msg, env=env)
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
