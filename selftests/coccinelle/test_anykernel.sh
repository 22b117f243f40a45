#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Any kernel, not one (issue 29 item 9): the scripts run on a tree shaped
# like a kernel (MAINTAINERS and Kbuild at its root, arch/ beside generic
# code) whose layout is nothing like Linux 6.1's: generic code in core/
# and drivers2/, headers in headers/, the Kconfig file in kconf/, an
# architecture no list names, and every pair far down its file (line
# numbers no fixture has).  The tree is written here, not kept: the key
# rule's report and patch, the lint, and make coccicheck's closing line
# (issue 28 item 4), which it prints also when it finds nothing.  A
# relative --sp-file is taken from where the driver runs.  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
cc="python3 $srctree/scripts/coccicheck --jobs $J"
work=$objtree/cocci/anykernel
export GIT_CEILING_DIRECTORIES=$work
rm -rf "$work"
t=$work/tree
mkdir -p "$t/core/sched" "$t/headers/core" "$t/drivers2/net" "$t/kconf" \
	"$t/arch/qarch/lib" "$t/arch/parch/lib"

plan=8
echo "TAP version 13"
echo "1..$plan"

# pad N: N lines of code before what a test looks for.
pad() {
	local i
	for i in $(seq 1 "$1"); do
		printf 'static int pad_%d(int v)\n{\n\treturn v + %d;\n}\n\n' "$i" "$i"
	done
}
printf '%s\n' 'F:	core/' >"$t/MAINTAINERS"
printf '%s\n' '# SPDX-License-Identifier: GPL-2.0-only' 'obj-y += core/' >"$t/Kbuild"
printf '%s\n' '# SPDX-License-Identifier: GPL-2.0-only' 'config QK_FAST' \
	'	bool "fast path"' '' 'config QK_WIDTH' '	int "width"' >"$t/kconf/Kconfig.qk"
{
	echo '// SPDX-License-Identifier: GPL-2.0-only'
	echo '#include <core/fast.h>'
	pad 40
	printf '%s\n' '#ifdef CONFIG_QK_FAST' 'DEFINE_STATIC_KEY_TRUE(qk_fast);' '#else' \
		'DEFINE_STATIC_KEY_FALSE(qk_fast);' '#endif' ''
	printf '%s\n' '#ifdef CONFIG_QK_WIDTH' 'DEFINE_STATIC_KEY_TRUE(qk_wide);' '#else' \
		'DEFINE_STATIC_KEY_FALSE(qk_wide);' '#endif'
} >"$t/core/sched/fast.c"
{
	echo '/* SPDX-License-Identifier: GPL-2.0-only */'
	pad 7
	printf '%s\n' '#ifdef CONFIG_QK_FAST' 'DECLARE_STATIC_KEY_TRUE(qk_fast);' '#else' \
		'DECLARE_STATIC_KEY_FALSE(qk_fast);' '#endif'
} >"$t/headers/core/fast.h"
{
	echo '// SPDX-License-Identifier: GPL-2.0-only'
	echo '#include <core/fast.h>'
	pad 23
	printf '%s\n' 'int net_rx(int n)' '{' '	if (static_branch_unlikely(&qk_fast))' \
		'		return n + 1;' '	return n;' '}'
} >"$t/drivers2/net/use.c"
# The lint: a FALSE key tested likely, in an architecture of no list.
{
	echo '// SPDX-License-Identifier: GPL-2.0-only'
	pad 11
	printf '%s\n' 'DEFINE_STATIC_KEY_FALSE(q_slow);' '' 'int q_op(int n)' '{' \
		'	if (static_branch_likely(&q_slow))' '		return n;' '	return 0;' '}'
} >"$t/arch/qarch/lib/op.c"
echo 'int plain(void) { return 0; }' >"$t/arch/parch/lib/plain.c"

l_def=$((2 + 40 * 5 + 2))	# the line after the DEFINE pair's #ifdef
l_wide=$((l_def + 6))
l_decl=$((1 + 7 * 5 + 2))
l_use=$((2 + 23 * 5 + 3))
l_lint=$((1 + 11 * 5 + 5))
cat >"$work/expected" <<EOF
core/sched/fast.c:$l_def:1: qk_fast: DEFINE_STATIC_KEY_TRUE/FALSE chosen by CONFIG_QK_FAST; use DEFINE_STATIC_KEY_MAYBE(CONFIG_QK_FAST, qk_fast)
core/sched/fast.c:$l_wide:1: qk_wide: CONFIG_QK_WIDTH is int (kconf/Kconfig.qk:5), not bool; not converted
drivers2/net/use.c:$l_use:6: qk_fast: test of a CONFIG_QK_FAST-default key; use static_branch_maybe(CONFIG_QK_FAST, &qk_fast)
headers/core/fast.h:$l_decl:1: qk_fast: DECLARE_STATIC_KEY_TRUE/FALSE chosen by CONFIG_QK_FAST; use DECLARE_STATIC_KEY_MAYBE(CONFIG_QK_FAST, qk_fast)
EOF
$cc "$t" >"$work/report" 2>"$work/report.err"
rc=$?
diff -u "$work/expected" "$work/report" >"$work/report.diff" && [ "$rc" -eq 1 ]
ok $? "report on a tree of another layout: its lines, its Kconfig file (exit $rc)" "$work/report.diff" "$work/report.err"

$cc --mode patch "$t" >"$work/patch" 2>"$work/patch.err"
rc=$?
cp -r "$t" "$work/applied"
(cd "$work/applied" && git apply "$work/patch") >"$work/apply.err" 2>&1 &&
	grep -qx 'DEFINE_STATIC_KEY_MAYBE(CONFIG_QK_FAST, qk_fast);' "$work/applied/core/sched/fast.c" &&
	grep -qx 'DECLARE_STATIC_KEY_MAYBE(CONFIG_QK_FAST, qk_fast);' "$work/applied/headers/core/fast.h" &&
	grep -q 'static_branch_maybe(CONFIG_QK_FAST, &qk_fast)' "$work/applied/drivers2/net/use.c" &&
	grep -qx 'DEFINE_STATIC_KEY_FALSE(qk_wide);' "$work/applied/core/sched/fast.c"
ok $? "patch: applies, converts the pair, its declaration and its test, leaves the int option (exit $rc)" "$work/apply.err" "$work/patch.err" "$work/patch"

$cc --mode lint "$t" >"$work/lint" 2>"$work/lint.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^arch/qarch/lib/op.c:$l_lint:6: q_slow: static_branch_likely() on a FALSE key" "$work/lint"
ok $? "lint: an architecture no list names, at its own line (exit $rc)" "$work/lint" "$work/lint.err"

# make coccicheck closes with a line of counts on stderr, also when it
# finds nothing, and its stdout is the report alone.
make -s -C "$srctree" O="$objtree" coccicheck J="$J" M="$t" >"$work/make.out" 2>"$work/make.err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$work/report" "$work/make.out" &&
	[ "$(tail -n 1 "$work/make.err")" = "coccicheck: 5 files scanned, 3 findings, 1 refused" ]
ok $? "make coccicheck: the report, then 'N files scanned, N findings, N refused' (exit $rc)" "$work/make.err"

make -s -C "$srctree" O="$objtree" coccicheck J="$J" M="$t/arch/parch" >"$work/none.out" 2>"$work/none.err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$work/none.out" ] &&
	[ "$(cat "$work/none.err")" = "coccicheck: 1 files scanned, 0 findings, 0 refused" ]
ok $? "make coccicheck that finds nothing still closes with its line (exit $rc)" "$work/none.err" "$work/none.out"

make -s -C "$srctree" O="$objtree" coccicheck MODE=lint M="$t" >"$work/mlint.out" 2>"$work/mlint.err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s "$work/lint" "$work/mlint.out" &&
	[ "$(cat "$work/mlint.err")" = "coccicheck: 5 files scanned, 1 findings, 0 refused" ]
ok $? "make coccicheck MODE=lint: the lint's findings, then the closing line (exit $rc)" "$work/mlint.err"

# --sp-file relative to where the driver runs, not to the tree.
(cd "$srctree" && $cc --sp-file coccinelle/static_key_maybe.cocci "$t") >"$work/sp" 2>"$work/sp.err"
rc=$?
[ "$rc" -eq 1 ] && cmp -s "$work/report" "$work/sp"
ok $? "a relative --sp-file is found (exit $rc)" "$work/sp.err" "$work/sp"

# On a terminal (script(1) gives it one), progress: each step on one
# line that the next replaces, cleared before the closing line.
script -qec "$cc --summary $(printf %q "$t") >/dev/null" /dev/null >"$work/tty" 2>&1
tr '\r' '\n' <"$work/tty" >"$work/tty.lines"
grep -q $'^\e\\[Kcoccicheck: spatch -D report static_key_maybe.cocci on 3 files$' "$work/tty.lines" &&
	grep -q $'\e\\[Kcoccicheck: 5 files scanned, 3 findings, 1 refused$' "$work/tty.lines"
ok $? "on a terminal: progress lines, replaced, then the closing line" "$work/tty.lines"

cocci_done
