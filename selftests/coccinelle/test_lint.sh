#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# MODE=lint (scripts/cocci-lint.py) and coccinelle/static_key_lint.cocci.
# fixtures/lint/in holds one case per check and one that must not be
# reported next to each: a DECLARE/DEFINE type mismatch across files
# without and with a CONFIG pair (and a consistent pair, a MAYBE pair,
# the same key name on two architectures), likely()/unlikely() tests
# against the key's state with and without a comment (and with comment
# marks inside a string or a character, which are no comment: the .cocci
# took them for one before), a
# static_branch_maybe() of another option than the key's, MAYBE keys on
# a tristate, an int and an undefined option, _RO keys changed inside
# and outside __init.  The lint must print exactly fixtures/lint/report
# and exit 1, exit 0 on a clean tree and 2 on a failure; the .cocci,
# run as the kernel's make coccicheck runs it (spatch --dir in a tree
# with MAINTAINERS and Kconfig), must print exactly
# fixtures/lint/report.spatch, and spatch must parse only the files that
# name its macros (its token query).  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
fix=$srctree/selftests/coccinelle/fixtures/lint
cc="python3 $srctree/scripts/coccicheck --mode lint"
work=$objtree/cocci/lint
rm -rf "$work"
mkdir -p "$work"

plan=6
echo "TAP version 13"
echo "1..$plan"

$cc "$fix/in" >"$work/report" 2>"$work/report.err"
rc=$?
diff -u "$fix/report" "$work/report" >"$work/report.diff"
[ $? -eq 0 ] && [ "$rc" -eq 1 ] && [ ! -s "$work/report.err" ]
ok $? "MODE=lint: every finding of fixtures/lint, nothing else (exit $rc)" "$work/report.diff" "$work/report.err"

# A tree with nothing to find: the two architectures' keys alone.
$cc "$fix/in/arch" >"$work/clean" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$work/clean" ]
ok $? "MODE=lint: a clean tree prints nothing and exits 0 (exit $rc)" "$work/clean"

$cc "$work/no-such-tree" >"$work/fail" 2>"$work/fail.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$work/fail" ] && grep -q 'no such directory' "$work/fail.err"
ok $? "MODE=lint: a failure exits 2 with the reason on stderr (exit $rc)" "$work/fail.err"

# make coccicheck MODE=lint records the lint's status for CI.
# stdout is the lines alone; stderr closes with the counts.
make -s -C "$srctree" O="$objtree" coccicheck MODE=lint M="$fix/in" >"$work/make" 2>"$work/make.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$objtree/cocci/coccicheck.status")" = 1 ] &&
	diff -u "$fix/report" "$work/make" >"$work/make.diff" &&
	[ "$(cat "$work/make.err")" = "coccicheck: 6 files scanned, 15 findings, 0 refused" ]
ok $? "make coccicheck MODE=lint: the same lines, status 1 in cocci/coccicheck.status (exit $rc)" "$work/make" "$work/make.diff" "$work/make.err"

# The kernel's make coccicheck runs spatch --dir at the top of a kernel
# tree (Kconfig and MAINTAINERS there).
cp -r "$fix/in" "$work/tree"
: >"$work/tree/MAINTAINERS"
(cd "$work/tree" && spatch -D report --very-quiet --no-includes --include-headers \
	--sp-file "$srctree/coccinelle/static_key_lint.cocci" --dir .) 2>&1 |
	sort >"$work/spatch"
diff -u "$fix/report.spatch" "$work/spatch" >"$work/spatch.diff"
ok $? "static_key_lint.cocci as the kernel runs it: fixtures/lint/report.spatch" "$work/spatch.diff"

# The kernel's .cocciconfig gives spatch --use-gitgrep: with a token query
# spatch parses only the files that spell one of the script's macros; the
# script had none (declarer sets) and spatch parsed every file of the
# tree, a whole Linux tree for a report on a few hundred.
printf 'int plain_file;\n' >"$work/tree/kernel/plain.c"
(cd "$work/tree" && git init -q && git add -A) >/dev/null 2>&1
want=$(cd "$work/tree" && grep -rlE --include='*.[ch]' \
	'DEFINE_STATIC_KEY_|DECLARE_STATIC_KEY_MAYBE|static_branch_(likely|unlikely|maybe)' . | wc -l)
(cd "$work/tree" && spatch -D report --very-quiet --no-includes --include-headers \
	--use-gitgrep --sp-file "$srctree/coccinelle/static_key_lint.cocci" --dir .) \
	>"$work/gitgrep" 2>"$work/gitgrep.err"
grep -qx "$want files match" "$work/gitgrep.err" && [ "$want" -lt "$(find "$work/tree" -name '*.[ch]' | wc -l)" ] &&
	sort "$work/gitgrep" | diff -u "$fix/report.spatch" - >"$work/gitgrep.diff"
ok $? "static_key_lint.cocci has a token query: spatch parses the $want files that name its macros, not kernel/plain.c" "$work/gitgrep.err" "$work/gitgrep.diff"

cocci_done
