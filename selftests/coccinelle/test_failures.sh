#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Failures must not look like success: awkward trees (names with spaces,
# CRLF, form feeds, bytes that are not UTF-8, symlinks, a file spatch gives
# up on) either convert correctly or stop with exit status 2 naming the
# file; refusals reach stderr in patch mode; the exit-status contract of
# scripts/coccicheck and make coccicheck.  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
fix=$srctree/selftests/coccinelle/fixtures
cc="python3 $srctree/scripts/coccicheck --jobs $J"
work=$objtree/cocci/failures
export GIT_CEILING_DIRECTORIES=$work
rm -rf "$work"
mkdir -p "$work/tmp"
# Every temporary file of the driver goes here: it must be empty at the end.
export TMPDIR=$work/tmp

plan=16
echo "TAP version 13"
echo "1..$plan"
pair() {	# pair KEY CFG: the template with KEY and CFG filled in
	sed "s/@KEY@/$1/g; s/@CFG@/$2/g" "$fix/awkward/pair.c.in"
}
# convert NAME: patch mode over $work/NAME, apply, exit status in $rc
convert() {
	local t=$work/$1
	$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
	rc=$?
	(cd "$t" && git apply --check "$t.patch" && git apply "$t.patch") >"$t.apply" 2>&1
	arc=$?
}

# A sub-directory and a file name with a space.
t=$work/space
mkdir -p "$t/sub dir"
pair sp_key CONFIG_SP >"$t/sub dir/sp ace.c"
convert space
[ "$rc" -eq 1 ] && [ "$arc" -eq 0 ] && grep -q 'DEFINE_STATIC_KEY_MAYBE(CONFIG_SP, sp_key)' "$t/sub dir/sp ace.c"
ok $? "a name with a space is converted (exit $rc)" "$t.err" "$t.apply" "$t.patch"

# CRLF line ends are kept, on the changed lines too.
t=$work/crlf
mkdir -p "$t"
pair crlf_key CONFIG_CRLF | sed 's/$/\r/' >"$t/crlf.c"
convert crlf
[ "$rc" -eq 1 ] && [ "$arc" -eq 0 ] && grep -q 'MAYBE(CONFIG_CRLF, crlf_key);' "$t/crlf.c" &&
	[ "$(grep -vc $'\r$' "$t/crlf.c")" -eq 0 ]
ok $? "a CRLF file is converted and keeps CRLF on every line (exit $rc)" "$t.err" "$t.apply" "$t.patch"

# A form feed on a line of its own (the kernel has them).
t=$work/formfeed
mkdir -p "$t"
pair ff_key CONFIG_FF | sed '8s/^$/\f/' >"$t/ff.c"
convert formfeed
[ "$rc" -eq 1 ] && [ "$arc" -eq 0 ] && grep -q 'MAYBE(CONFIG_FF, ff_key);' "$t/ff.c" && grep -q $'^\f$' "$t/ff.c"
ok $? "a file with a form-feed line is converted (exit $rc)" "$t.err" "$t.apply" "$t.patch"

# A byte that is not UTF-8, in a comment, kept as it is.
t=$work/latin1
mkdir -p "$t"
{ printf '/* caf\351 */\n'; pair lat_key CONFIG_LAT; } >"$t/latin.c"
convert latin1
[ "$rc" -eq 1 ] && [ "$arc" -eq 0 ] && grep -q 'MAYBE(CONFIG_LAT, lat_key);' "$t/latin.c" &&
	head -n 1 "$t/latin.c" | cmp -s - <(printf '/* caf\351 */\n')
ok $? "a file with a non-UTF-8 byte is converted, the byte kept (exit $rc)" "$t.err" "$t.apply" "$t.patch"
! grep -q Traceback "$t.err"
ok $? "no Python traceback on a non-UTF-8 byte" "$t.err"

# A symlink inside M is not scanned (the target is), and it is named.
t=$work/symlink
mkdir -p "$t"
pair ln_key CONFIG_LN >"$t/real.c"
ln -s real.c "$t/link.c"
convert symlink
[ "$rc" -eq 1 ] && [ "$arc" -eq 0 ] && [ -L "$t/link.c" ] &&
	! grep -q 'link.c' "$t.patch" && grep -q 'link.c: symbolic link, not scanned' "$t.err"
ok $? "a symlinked file is named on stderr and left out of the patch (exit $rc)" "$t.err" "$t.apply" "$t.patch"

# spatch gives up on a file (its timeout): exit 2 naming the file, in
# report and patch mode alike, and no patch for the rest.  huge.c tests
# the key of the pair in small.c, so every mode must parse it.
t=$work/timeout
mkdir -p "$t"
pair to_key CONFIG_TO >"$t/small.c"
python3 - "$t/huge.c" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
	f.write('DECLARE_STATIC_KEY_MAYBE(CONFIG_TO, to_key);\n')
	for i in range(6000):
		f.write('int g%d(int x)\n{\n\tif (x > %d) {\n\t\tif (static_branch_unlikely(&to_key))\n\t\t\treturn x;\n\t}\n\treturn 0;\n}\n' % (i, i))
PY
for mode in patch report; do
	$cc --timeout 1 --mode $mode "$t" >"$t.$mode" 2>"$t.err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q 'huge.c' "$t.err" && [ ! -s "$t.$mode" ]
	ok $? "a spatch timeout is exit 2 naming the file in $mode mode (exit $rc)" "$t.err" "$t.$mode"
done

# The finisher: a hunk that does not apply is exit 2, not 1 ("found").
t=$work/finish
mkdir -p "$t"
printf 'int a;\n' >"$t/f.c"
printf -- '--- f.c\n+++ f.c\n@@ -1,1 +1,1 @@\n-int b;\n+int c;\n' >"$t/bad.patch"
python3 "$srctree/scripts/cocci-finish.py" -C "$t" "$t/bad.patch" >"$t/out" 2>"$t/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'f.c' "$t/err"
ok $? "cocci-finish: a hunk that does not apply is exit 2 naming the file (exit $rc)" "$t/err"

# Refusals are visible in patch mode, with report mode's exit status.
t=$work/refusals
cp -r "$fix/refusals/in" "$t"
$cc --mode report "$t" >"$t.report" 2>/dev/null
rrc=$?
$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
rc=$?
[ "$rc" -eq "$rrc" ] && [ "$rc" -eq 1 ]
ok $? "a tree with only refusals: patch mode exit $rc, report mode exit $rrc" "$t.err"
grep -v '^#' "$fix/refusals/report" | sort >"$t.want"
grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$t.err" | sort | diff -u "$t.want" - >"$t.diff"
ok $? "patch mode names every refusal of report mode on stderr" "$t.diff"

# Exit-status contract.  scripts/coccicheck: 0 nothing, 1 found, 2 failure.
t=$work/contract
mkdir -p "$t/clean" "$t/found"
printf 'int nothing;\n' >"$t/clean/c.c"
pair ct_key CONFIG_CT >"$t/found/f.c"
s=""
for d in clean found no-such-dir; do
	$cc --mode report "$t/$d" >/dev/null 2>&1
	s="$s $?"
done
[ "$s" = " 0 1 2" ]
ok $? "scripts/coccicheck exits 0 / 1 / 2 for clean / found / bad input (got$s)"
# make coccicheck: 0 when the run completed, 2 when it failed; the
# driver's own status is in $(objtree)/cocci/coccicheck.status.
s=""
for d in clean found no-such-dir; do
	rm -f "$objtree/cocci/coccicheck.status"
	make -s -C "$srctree" O="$objtree" coccicheck M="$t/$d" >/dev/null 2>&1
	s="$s $?/$(cat "$objtree/cocci/coccicheck.status" 2>/dev/null)"
done
[ "$s" = " 0/0 0/1 2/2" ]
ok $? "make coccicheck exits 0 / 0 / 2, status file 0 / 1 / 2 (got$s)"

# Tools are checked as tools: no dpkg on the system (dpkg-query is
# "command not found") is no reason to stop when spatch is there.
mkdir -p "$t/nodpkg"
for tool in dpkg-query dpkg apt-get; do
	printf '#!/bin/sh\nexit 127\n' >"$t/nodpkg/$tool"
	chmod +x "$t/nodpkg/$tool"
done
PATH=$t/nodpkg:$PATH make -s -C "$srctree" O="$objtree" coccicheck M="$t/clean" >"$t/nodpkg.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ! grep -q 'missing' "$t/nodpkg.out"
ok $? "make coccicheck without dpkg runs when spatch is installed (exit $rc)" "$t/nodpkg.out"

# A missing tool is named, and nothing is installed without apt.
# PATH: everything of /usr/bin but spatch, dpkg and apt.
mkdir -p "$t/nospatch"
for f in /usr/bin/*; do
	case ${f##*/} in spatch*|dpkg*|apt*) ;; *) ln -s "$f" "$t/nospatch/" ;; esac
done
PATH=$t/nospatch make -s -C "$srctree" O="$objtree" coccicheck M="$t/clean" >"$t/nospatch.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q 'spatch' "$t/nospatch.out"
ok $? "make coccicheck without spatch (and without apt) names it, exit 2 (got $rc)" "$t/nospatch.out"

ls -A "$TMPDIR" >"$work/leftover"
[ ! -s "$work/leftover" ]
ok $? "no temporary file is left behind" "$work/leftover"

cocci_done
