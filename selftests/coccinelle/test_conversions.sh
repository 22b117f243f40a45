#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the conversions produce must build: the converted fixtures (uses in
# macro bodies, a pair in a header) compile with the option on and off
# against this project's own <linux/jump_label.h>, and so does the patch of
# static_key_maybe.cocci run alone, the way a kernel tree's make coccicheck
# MODE=patch runs it; its context mode marks only real pairs; spatch
# parses only the files that name a key macro or test (a token query).
# (The report and out/ golden files of fixtures/macros, runtime, details
# and tristate are checked by test_cocci.sh.)  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
fix=$srctree/selftests/coccinelle/fixtures
sp=$srctree/coccinelle/static_key_maybe.cocci
work=$objtree/cocci/conversions
export GIT_CEILING_DIRECTORIES=$work
rm -rf "$work"
mkdir -p "$work/inc/statickeys"
# The portable configuration: CONFIG_JUMP_LABEL off, no arch header needed.
: >"$work/inc/statickeys/config.h"
CC=${CC:-gcc}

plan=7
echo "TAP version 13"
echo "1..$plan"
builds() {	# builds FILE CONFIG LOG: compiles with CONFIG off and on
	local d
	: >"$3"
	for d in "" "-D$2=1"; do
		# shellcheck disable=SC2086
		$CC -fsyntax-only -Wall -Werror -I"$work/inc" -I"$srctree/include" \
			-include linux/jump_label.h $d \
			-D'fs_debug_report(a, b, c)=((void)(a), (void)(b), (void)(c))' \
			"$1" >>"$3" 2>&1 || return 1
	done
}

# Uses inside macro bodies (a multi-line statement-like macro and a
# one-line #define), as scripts/coccicheck converts them.
t=$work/macros
cp -r "$fix/macros/in" "$t"
python3 "$srctree/scripts/coccicheck" --mode patch "$t" >"$t.patch" 2>"$t.err"
(cd "$t" && git apply "$t.patch") >>"$t.err" 2>&1 &&
	builds "$t/fs.c" CONFIG_FIXTURE_FS_DEBUG_ON "$t.log"
ok $? "uses in macro bodies: the converted file builds, option off and on" "$t.err" "$t.log" "$t.patch"
# One macro line was wrapped (one more continuation line, no fewer); the
# one-line macro stays one line (94 columns, within checkpatch's 100).
grep -n '\\$' "$t/fs.h" >"$t.bad"
[ "$(grep -c . "$t.bad")" -eq $(($(grep -c '\\$' "$fix/macros/in/fs.h") + 1)) ]
ok $? "uses in macro bodies: each wrapped macro line keeps a backslash" "$t.bad"

# The semantic patch alone, as the kernel's make coccicheck MODE=patch
# runs it (spatch --dir, its Options line), its patch applied with patch -p1.
t=$work/dropin
cp -r "$fix/dropin" "$t"
opt=$(grep '^// Options:' "$sp" | cut -d: -f2)
# shellcheck disable=SC2086
(cd "$t" && spatch -D patch --very-quiet $opt --sp-file "$sp" --dir .) >"$t.patch" 2>"$t.err"
(cd "$t" && patch -s -p1 <"$t.patch") >>"$t.err" 2>&1 &&
	grep -q 'DEFINE_STATIC_KEY_MAYBE(CONFIG_FIXTURE_DROPIN_ON, dropin_key)' "$t/key.c" &&
	builds "$t/key.c" CONFIG_FIXTURE_DROPIN_ON "$t.log"
ok $? "spatch alone (kernel make coccicheck MODE=patch): the result builds, option off and on" "$t.err" "$t.log" "$t.patch"
# The finisher turns that into the driver's result.
python3 "$srctree/scripts/cocci-finish.py" -C "$fix/dropin" "$t.patch" >"$t.fin" 2>"$t.err"
python3 "$srctree/scripts/coccicheck" --mode patch "$fix/dropin" 2>/dev/null |
	diff -u - "$t.fin" >"$t.diff" 2>&1 && ! grep -q '^+#' "$t.fin"
ok $? "cocci-finish.py on spatch's own patch gives the driver's patch, directives gone" "$t.diff" "$t.err"

# Context mode marks the pair and its use, never a lone TRUE declaration.
t=$work/context
cp -r "$fix/dropin" "$t"
# shellcheck disable=SC2086
(cd "$t" && spatch -D context --very-quiet $opt --sp-file "$sp" --dir .) >"$t.ctx" 2>&1
grep -q '^-DEFINE_STATIC_KEY_TRUE(dropin_key);' "$t.ctx" && ! grep -q '^-.*lone_key' "$t.ctx"
ok $? "context mode marks the pair, not the lone TRUE key" "$t.ctx"

# The tristate refusal names the Kconfig file and line.
t=$work/tristate
python3 "$srctree/scripts/coccicheck" --mode report "$fix/tristate/in" >"$t.report" 2>&1
grep -q 'tri_key: CONFIG_FIXTURE_TRI_ON is tristate (drivers/Kconfig:5)' "$t.report"
ok $? "a tristate option is refused, naming drivers/Kconfig:5" "$t.report"

# The kernel's .cocciconfig gives spatch --use-gitgrep: with a token query
# spatch parses only the files that name a key macro or test, in every
# mode.  The script had none (declarer sets, mode rules that ran on every
# file), and spatch parsed every file of the tree.
t=$work/tokens
cp -r "$fix/dropin" "$t"
printf '%s\n' 'int plain(int x)' '{' '	return likely(x) ? 1 : unlikely(x > 2);' '}' >"$t/plain.c"
(cd "$t" && git init -q && git add -A) >/dev/null 2>&1
want=$(cd "$t" && grep -rlE 'STATIC_KEY_|static_branch_(likely|unlikely)' . | wc -l)
: >"$t.err"
for m in report patch context; do
	# shellcheck disable=SC2086
	(cd "$t" && spatch -D $m --very-quiet $opt --use-gitgrep --sp-file "$sp" --dir .) \
		>/dev/null 2>"$t.$m.err"
	grep -qx "$want files match" "$t.$m.err" || { echo "$m:"; cat "$t.$m.err"; } >>"$t.err"
done
[ ! -s "$t.err" ] && [ "$want" -lt "$(find "$t" -name '*.[ch]' | wc -l)" ]
ok $? "static_key_maybe.cocci has a token query in every mode: $want files parsed, not plain.c" "$t.err"

cocci_done
