#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a maintainer merges (issue 29): authors' comments kept or named,
# RULE=options as a series, honest commit messages about likely tests,
# shards tied to the tree's content rather than its path, patches wrapped
# and subjects written as the subsystem writes them, nothing tied to one
# kernel's layout.  Each check failed on the code before its fix.  TAP on
# stdout.  Needs srctree and objtree in the environment.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
fix=$srctree/selftests/coccinelle/fixtures
cc="python3 $srctree/scripts/coccicheck --jobs $J"
work=$objtree/cocci/maintainer
export GIT_CEILING_DIRECTORIES=$work
export GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org
export GIT_COMMITTER_NAME="Coccinelle Test" GIT_COMMITTER_EMAIL=cocci@example.org
rm -rf "$work"
mkdir -p "$work"

plan=9
echo "TAP version 13"
echo "1..$plan"

# Shards are tied to the content of the tree, not to its path: a CI job
# merges in another workspace (a git checkout or a plain copy), and a
# tree changed after sharding is refused by the shard's name.
t=$work/shards
mkdir -p "$t/a"
for c in init_on crossfile comments; do
	cp -r "$fix/$c/in" "$t/a/$c"
done
(cd "$t/a" && git init -q && git add -A && git commit -qm tree)
for i in 0 1; do
	$cc --max 2 --index $i --shard-out "$t/shard$i.json" "$t/a" >>"$t.list" 2>>"$t.err" ||
		echo "shard $i failed" >>"$t.err"
done
$cc --mode report "$t/a" >"$t.one" 2>>"$t.err"
cp -r "$t/a" "$t/b"
mkdir -p "$t/c"
(cd "$t/a" && git archive HEAD) | tar -x -C "$t/c"
: >"$t.diff"
for d in b c; do
	$cc --mode report --merge "$t/shard0.json" --merge "$t/shard1.json" "$t/$d" \
		>"$t.$d" 2>"$t.$d.err"
	rc=$?
	[ "$rc" -eq 1 ] || echo "$d: exit $rc" >>"$t.diff"
	diff -u "$t.one" "$t.$d" >>"$t.diff" 2>&1
done
[ ! -s "$t.diff" ] && [ -s "$t.one" ]
ok $? "shards merge in a copy of their tree at another path, git or not" "$t.diff" "$t.b.err" "$t.c.err"
printf '%s\n' '#ifdef CONFIG_LATE' 'DEFINE_STATIC_KEY_TRUE(late_key);' '#else' \
	'DEFINE_STATIC_KEY_FALSE(late_key);' '#endif' >"$t/a/late.c"
$cc --mode report --merge "$t/shard0.json" --merge "$t/shard1.json" "$t/a" >"$t.out" 2>"$t.err2"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$t.out" ] && grep -q "shard0.json: shard of other content (git tree [0-9a-f]*), this tree is git tree [0-9a-f]* (with changes)" "$t.err2"
ok $? "the tree sharded, changed since, is refused by the shard's name (exit $rc)" "$t.err2" "$t.out"
echo "int late;" >>"$t/c/comments/cmt.c"
$cc --mode report --merge "$t/shard0.json" --merge "$t/shard1.json" "$t/c" >"$t.out" 2>"$t.err3"
rc=$?
[ "$rc" -eq 2 ] && grep -q "shard0.json: shard of other content (git tree [0-9a-f]*), this tree is files [0-9a-f]*" "$t.err3"
ok $? "a changed copy outside git is refused too (exit $rc)" "$t.err3" "$t.out"

# Item 1: no author's word is lost without a line on stderr.  Every
# comment of every fixture's input is, after the patch, in the file (its
# words, maybe re-wrapped) or named on stderr; a comment said of one
# branch of the pair is said of that branch above the MAYBE line.
words() {
	python3 -c '
import re, sys
text = open(sys.argv[1], errors="replace").read()
for m in re.finditer(r"/\*(.*?)\*/|//([^\n]*)", text, re.S):
	b = m.group(1) if m.group(1) is not None else m.group(2)
	w = " ".join(re.sub(r"^\s*\*+(?!/)", "", l).strip() for l in b.split("\n")).split()
	if w:
		print(" ".join(w))' "$1"
}
t=$work/comments
: >"$t.lost"
for c in comments spellings details init_on hints macros crossfile; do
	rm -rf "$t"
	cp -r "$fix/$c/in" "$t"
	$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
	(cd "$t" && git apply "$t.patch") >>"$t.lost" 2>&1
	(cd "$fix/$c/in" && find . -name '*.[ch]') | while read -r f; do
		flat=$(words "$t/$f" | tr '\n' ' ')
		words "$fix/$c/in/$f" | while read -r w; do
			case " $flat " in *"$w"*) continue ;; esac
			grep -qF "\"$w\"" "$t.err" || echo "$c/$f: comment \"$w\" lost silently"
		done
	done >>"$t.lost"
done
[ ! -s "$t.lost" ]
ok $? "every comment of the fixtures is kept or named on stderr" "$t.lost"
rm -rf "$t" && cp -r "$fix/comments/in" "$t"
$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
(cd "$t" && git apply "$t.patch") >"$t.diff" 2>&1
grep -q '^ \* CONFIG_CMT_BRANCH=n: the FALSE branch' "$t/cmt.c" &&
	grep -q '^cocci-finish: cmt.c:21: comment "CONFIG_CMT_ALL" dropped' "$t.err"
ok $? "a comment of one branch is said of that branch; a dropped label is named" "$t.diff" "$t/cmt.c"

# Item 5: an honest message.  A static_branch_likely() test converted to
# static_branch_maybe() changes the generated code with the option off:
# the message names it and says so, and claims no unchanged code then.
t=$work/honest
cp -r "$fix/hints/in" "$t"
$cc --mode series --output-dir "$t.series" "$t" >"$t.list" 2>"$t.err"
sed -n '/^$/,/^---$/p' "$t.series"/0001-*.patch | tr '\n' ' ' | tr -s ' ' >"$t.msg"
grep -q 'With CONFIG_HINT_ON off, the static_branch_likely() test of hint_key at hint.c:17 becomes an unlikely branch: the generated code changes there' "$t.msg" &&
	grep -q 'static_branch_unlikely() tests at hint.c:19, hint.c:23, hint.c:27, hint.c:30 become likely' "$t.msg" &&
	! grep -q 'off the generated code does not change' "$t.msg"
ok $? "the message says which tests change layout with the option off and on" "$t.msg" "$t.err"

# Item 8: the subject's case is the subsystem's, from the same git-log
# vote as its prefix: mm writes "mm/foo: use", the tip trees "x86/foo: Use".
t=$work/case
pair() {
	printf '%s\n' "#ifdef $2" "DEFINE_STATIC_KEY_TRUE($1);" "#else" \
		"DEFINE_STATIC_KEY_FALSE($1);" "#endif" "" "int $1_test(void)" "{" \
		"	return static_branch_unlikely(&$1);" "}"
}
mkdir -p "$t/mm" "$t/arch/x86/kernel"
echo 'int lo;' >"$t/mm/lo.c"
echo 'int up;' >"$t/arch/x86/kernel/up.c"
(cd "$t" && git init -q && git add -A && git commit -qm "base" &&
 for w in a b; do
	echo "/* $w */" >>mm/lo.c && git commit -qam "mm/lo: tidy $w" &&
	echo "/* $w */" >>arch/x86/kernel/up.c && git commit -qam "x86/up: Tidy $w"
 done
 pair lo_key CONFIG_LO_ON >>mm/lo.c && pair up_key CONFIG_UP_ON >>arch/x86/kernel/up.c &&
 git commit -qam pairs)
$cc --mode series --output-dir "$t.series" "$t" >"$t.list" 2>"$t.err"
grep -h '^Subject: ' "$t.series"/000[1-9]-*.patch | sed 's/\[PATCH [0-9/]*\] //' | sort >"$t.subj"
printf '%s\n' "Subject: mm/lo: use a MAYBE static key for lo_key" \
	"Subject: x86/up: Use a MAYBE static key for up_key" |
	diff -u - "$t.subj" >"$t.diff" 2>&1
ok $? "subject case from the git log: mm/lo: use, x86/up: Use" "$t.diff" "$t.err"

# Item 4: RULE=options gives the key rule's series: one commit per group,
# kernel subjects, an option's message, refusals in the cover letter.
t=$work/optseries
cp -r "$fix/options/in" "$t"
$cc --rule options --mode series --output-dir "$t.series" "$t" >"$t.list" 2>"$t.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '\.patch$' "$t.list")" -ge 2 ] &&
	grep -q '^Subject: \[PATCH 1/[0-9]*\] x86: Use a MAYBE static key for opt_a$' "$t.series"/0001-*.patch &&
	grep -q 'opt_a is a boot-parameter option whose default' "$t.series"/0001-*.patch &&
	grep -q 'r_addr: option refused: address taken' "$t.series"/0000-cover-letter.patch
ok $? "RULE=options MODE=series: subjects, messages, refusals in the cover letter (exit $rc)" "$t.err" "$t.list"

# Item 8: a long test wraps at the && in front of it, not inside the
# static_branch_maybe() call, and never at an && inside a call's own
# parentheses.
t=$work/wrap
mkdir -p "$t"
printf '%s\n' "#ifdef CONFIG_WRAP_OPTION_ON" "DEFINE_STATIC_KEY_TRUE(wrap_key_name);" "#else" \
	"DEFINE_STATIC_KEY_FALSE(wrap_key_name);" "#endif" "int wrap_check(int a);" \
	"int wrap_test(int first_value)" "{" \
	"	if (first_value > 12345678 && static_branch_unlikely(&wrap_key_name))" \
	"		return 1;" \
	"	return wrap_check(first_value > 1234 && static_branch_unlikely(&wrap_key_name));" \
	"}" >"$t/w.c"
$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
grep -A1 -x '+	if (first_value > 12345678 &&' "$t.patch" |
	grep -qx '+	    static_branch_maybe(CONFIG_WRAP_OPTION_ON, &wrap_key_name))' &&
	! grep -q '^+.*wrap_check(first_value > 1234 &&$' "$t.patch"
ok $? "a long test wraps at the && before it, never inside a call" "$t.patch" "$t.err"

cocci_done
