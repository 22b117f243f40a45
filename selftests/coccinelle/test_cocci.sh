#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Golden tests of coccinelle/*.cocci through scripts/coccicheck: every
# fixture under fixtures/<case>/in converts to exactly fixtures/<case>/out,
# reports exactly fixtures/<case>/report, and a second run is a no-op;
# then the real Linux 6.1 sites, extracted from the Debian tarball.
# TAP on stdout.  Needs srctree and objtree in the environment.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
here=$srctree/selftests/coccinelle
fix=$here/fixtures
cc="python3 $srctree/scripts/coccicheck --jobs $J"
work=$objtree/cocci/test
# The work trees may sit inside this project's git checkout (O=build): stop
# git at them, or "git apply" run there would patch paths relative to the
# checkout and silently skip everything outside the subdirectory.
export GIT_CEILING_DIRECTORIES=$work
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
rm -rf "$work"
mkdir -p "$work"

cases="init_on spellings crossfile refusals macros runtime details tristate prefilter"
plan=$((5 * 9 + 22))
echo "TAP version 13"
echo "1..$plan"

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

for c in $cases; do
	t=$work/$c
	cp -r "$fix/$c/in" "$t"
	$cc --mode report "$t" >"$t.report" 2>"$t.err"
	rc=$?
	grep -v '^#' "$fix/$c/report" | diff -u - "$t.report" >"$t.diff" 2>&1
	ok $? "$c: report matches fixtures/$c/report" "$t.diff"
	want=1
	grep -qv '^#' "$fix/$c/report" || want=0
	[ "$rc" -eq "$want" ]
	ok $? "$c: report exit status $rc (want $want)" "$t.err"

	$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
	if [ -s "$t.patch" ]; then
		(cd "$t" && git apply --check "$t.patch") >"$t.diff" 2>&1
		ok $? "$c: the patch applies with git apply --check" "$t.diff"
		(cd "$t" && git apply "$t.patch") >"$t.diff" 2>&1
	else
		diff -ruq "$fix/$c/in" "$fix/$c/out" >"$t.diff" 2>&1
		ok $? "$c: the patch is empty, as nothing is to change" "$t.diff"
	fi
	diff -ru "$fix/$c/out" "$t" >"$t.diff" 2>&1
	ok $? "$c: converts to exactly fixtures/$c/out" "$t.diff"
	# (exit status 1 remains when there are refusals: see test_failures.sh)
	$cc --mode patch "$t" >"$t.patch2" 2>>"$t.err"
	[ $? -le 1 ] && [ ! -s "$t.patch2" ]
	ok $? "$c: a second run changes nothing" "$t.patch2"
done

# The driver gives each pass only the files that can matter to it (the
# "// Prefilter:" lines of a script, the keys of the collect pass): every
# fixture reports the same when spatch parses every file, and a CRLF copy
# of the prefilter fixture reports the same as the original.
: >"$work/narrow"
for c in $cases; do
	$cc --prefilter nocheck --mode report "$fix/$c/in" 2>&1 |
		diff -u <(grep -v '^#' "$fix/$c/report") - >>"$work/narrow" 2>&1
done
[ ! -s "$work/narrow" ]
ok $? "every fixture reports the same with every file parsed (--prefilter nocheck)" "$work/narrow"
t=$work/crlf
cp -r "$fix/prefilter/in" "$t"
for f in "$t"/*.c; do sed -i 's/$/\r/' "$f"; done
$cc --mode report "$t" 2>&1 | diff -u <(grep -v '^#' "$fix/prefilter/report") - >"$t.diff" 2>&1
ok $? "the prefilter fixture with CRLF line ends reports the same" "$t.diff"

# The other two modes.
t=$work/modes
cp -r "$fix/spellings/in" "$t"
$cc --mode context "$t" >"$t.ctx" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q '^-DEFINE_STATIC_KEY_TRUE(defined_key);' "$t.ctx"
ok $? "context mode marks the pair (exit status $rc)" "$t.ctx"
$cc --mode org "$t" >"$t.org" 2>&1
[ "$(grep -c '^\* TODO \[\[view:' "$t.org")" -eq 12 ]
ok $? "org mode prints one TODO per finding" "$t.org"

# Bad input is named.
$cc --mode report "$work/no-such-dir" >"$t.bad" 2>&1
[ $? -eq 2 ] && grep -q 'M=.*no-such-dir: no such directory' "$t.bad"
ok $? "a missing M= directory is an error that names it" "$t.bad"
$cc --mode bogus "$t" >"$t.bad" 2>&1
[ $? -eq 2 ] && grep -q 'MODE=bogus' "$t.bad"
ok $? "an unknown MODE is an error that names it" "$t.bad"

# Kernel drop-in: the scripts run alone, as the kernel's coccicheck runs
# them, and still convert a pair and its uses in one file.
t=$work/dropin
cp -r "$fix/init_on/in" "$t"
sp=$srctree/coccinelle/static_key_maybe.cocci
opt=$(grep '^// Options:' "$sp" | cut -d: -f2)
# shellcheck disable=SC2086
(cd "$t" && spatch -D report --very-quiet $opt --sp-file "$sp" --dir .) >"$t.out" 2>&1
sed 's|^\./||' "$t.out" | sort | diff -u <(grep -v '^#' "$fix/init_on/report" | sort) - >"$t.diff" 2>&1
ok $? "kernel-style spatch run (no driver) reports the same" "$t.diff"

# Header conventions of every script.
: >"$work/hdr"
for f in "$srctree"/coccinelle/*.cocci; do
	head -n 1 "$f" | grep -qx '// SPDX-License-Identifier: GPL-2.0-only' ||
		echo "$f: first line is not the SPDX line" >>"$work/hdr"
	for k in '^///' '^// Confidence:' '^// Copyright: (C) 2026 The statickeys authors' \
		 '^// Options:' '^// Keywords:' '^virtual patch$' '^virtual context$' \
		 '^virtual org$' '^virtual report$'; do
		grep -q "$k" "$f" || echo "$f: no '$k'" >>"$work/hdr"
	done
done
[ ! -s "$work/hdr" ]
ok $? "every .cocci has the kernel header and the four modes" "$work/hdr"

# cocci-finish leaves the directives alone when the block holds more.
t=$work/finish
mkdir -p "$t"
printf '#ifdef CONFIG_Q\nDEFINE_STATIC_KEY_TRUE(q);\nint q_extra;\n#else\nDEFINE_STATIC_KEY_FALSE(q);\n#endif\n' >"$t/q.c"
printf -- '--- q.c\n+++ q.c\n@@ -1,6 +1,5 @@\n #ifdef CONFIG_Q\n-DEFINE_STATIC_KEY_TRUE(q);\n+DEFINE_STATIC_KEY_MAYBE(CONFIG_Q, q);\n int q_extra;\n #else\n-DEFINE_STATIC_KEY_FALSE(q);\n #endif\n' >"$t/q.patch"
python3 "$srctree/scripts/cocci-finish.py" -C "$t" "$t/q.patch" >"$t/out.patch" 2>"$t/err"
grep -q '^ #ifdef CONFIG_Q' "$t/out.patch" && grep -q 'holds more code' "$t/err"
ok $? "cocci-finish keeps #if lines around more than the key" "$t/out.patch"

# The real sites of Linux 6.1.
t=$work/linux
files="mm/slub.c mm/slab.h arch/x86/entry/syscall_x32.c
	arch/x86/include/asm/syscall.h mm/vmscan.c include/linux/mm.h
	mm/page_alloc.c init/main.c include/linux/randomize_kstack.h
	scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
	MAINTAINERS Kbuild COPYING CREDITS Makefile README scripts/get_maintainer.pl
	mm/Kconfig.debug security/Kconfig.hardening arch/Kconfig"
if [ ! -r "$tarball" ]; then
	skip "Linux 6.1 sites report as expected" "no $tarball (scripts/install-deps kernel)"
	skip "Linux 6.1 sites: patch applies, touches mm/slab.h mm/slub.c" "no tarball"
	skip "the patches pass the kernel's checkpatch.pl" "no tarball"
	skip "MODE=series: a cover letter and one commit per maintainer group" "no tarball"
	skip "MODE=series: the commits apply at the tree root, mm/ given as M" "no tarball"
	skip "MODE=series: checkpatch.pl --strict is clean on every commit" "no tarball"
	for c in "one patch per group" "git am in order" "subjects" "Linux 6.1 code back" \
		 "checkpatch --strict, 4 groups" "refusals in the cover letter" "messages"; do
		skip "MODE=series, 4 maintainer groups: $c" "no tarball"
	done
else
	mkdir -p "$t"
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$t" --strip-components=1 \
		$(for f in $files; do echo "linux-source-6.1/$f"; done)
	# Without line and column: a later 6.1 point release moves them.
	$cc --mode report "$t" 2>&1 | sed -E 's/^([^:]+):[0-9]+:[0-9]+:/\1:/' >"$t.report"
	grep -v '^#' "$here/linux-6.1.report" |
		sed -E 's/^([^:]+):[0-9]+:[0-9]+:/\1:/' |
		diff -u - "$t.report" >"$t.diff" 2>&1
	ok $? "Linux 6.1 sites report as expected" "$t.diff"
	$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
	(cd "$t" && git apply --check "$t.patch" &&
	 [ "$(grep '^+++ ' "$t.patch" | tr '\n' ' ')" = "+++ b/mm/slab.h +++ b/mm/slub.c " ] &&
	 ! grep -q 'init_on_\|randomize_kstack' "$t.patch") >"$t.diff" 2>&1
	rc=$?; [ $rc -eq 0 ] || cat "$t.patch" >>"$t.diff"
	ok $rc "Linux 6.1 sites: patch applies, touches mm/slab.h mm/slub.c only" "$t.diff"
	: >"$t.cp"
	for p in "$work"/init_on.patch "$work"/spellings.patch \
		 "$work"/crossfile.patch "$t.patch"; do
		perl "$t/scripts/checkpatch.pl" --no-tree --no-signoff --quiet \
			--patch "$p" >>"$t.cp" 2>&1 || echo "$p: checkpatch failed" >>"$t.cp"
	done
	[ ! -s "$t.cp" ]
	ok $? "the patches pass the kernel's checkpatch.pl" "$t.cp"

	# MODE=series with M=mm: paths from the tree root (MAINTAINERS and
	# Kbuild mark it), get_maintainer.pl groups, checkpatch --strict.
	# get_maintainer.pl wants the top-level directories of a kernel tree.
	(cd "$t" && mkdir -p Documentation drivers fs include init ipc kernel lib)
	GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org \
		$cc --mode series --output-dir "$t.series" "$t/mm" >"$t.list" 2>"$t.err"
	ls "$t.series" >"$t.ls" 2>&1
	[ "$(grep -c '\.patch$' "$t.ls")" -eq 2 ] &&
		grep -q '^Subject: \[PATCH 1/1\] mm/slub: ' "$t.series"/0001-*.patch &&
		grep -q 'mm/vmscan.c:3136:1: lru_gen_caps: array of keys' "$t.series"/0000-*.patch &&
		grep -q 'mm/Kconfig.debug:67' "$t.series"/0001-*.patch
	ok $? "MODE=series: a cover letter and one commit per maintainer group" "$t.ls" "$t.err"
	(cd "$t" && git apply --check "$t.series"/0001-*.patch) >"$t.diff" 2>&1
	ok $? "MODE=series: the commits apply at the tree root, mm/ given as M" "$t.diff"
	: >"$t.cp"
	for p in "$t.series"/0*.patch; do
		case $p in *cover-letter*) continue ;; esac
		(cd "$t" && perl scripts/checkpatch.pl --strict --no-tree -q "$p") >>"$t.cp" 2>&1 ||
			echo "$p: checkpatch --strict failed" >>"$t.cp"
	done
	[ ! -s "$t.cp" ]
	ok $? "MODE=series: checkpatch.pl --strict is clean on every commit" "$t.cp"

	# MODE=series over four maintainer groups, two of them holding two
	# files: Linux 6.1 with init_on_alloc, init_on_free (mm/page_alloc.c,
	# include/linux/mm.h, tested in mm/slab.h and mm/slub.c too) and
	# randomize_kstack_offset (init/main.c, a header with uses in macro
	# bodies) written back as #ifdef pairs and static_branch_unlikely().
	g=$work/groups
	cp -r "$t" "$g"
	old="include/linux/mm.h mm/page_alloc.c init/main.c include/linux/randomize_kstack.h"
	# shellcheck disable=SC2086
	(cd "$g" && perl -0pi -e '
		s/(DEFINE|DECLARE)_STATIC_KEY_MAYBE(_RO)?\((CONFIG_\w+),\s*(init_on_alloc|init_on_free|randomize_kstack_offset)\);/#ifdef $3\n$1_STATIC_KEY_TRUE$2($4);\n#else\n$1_STATIC_KEY_FALSE$2($4);\n#endif/g;
		s/static_branch_maybe\(CONFIG_\w+,[\s\\]*&(init_on_alloc|init_on_free|randomize_kstack_offset)\)/static_branch_unlikely(&$1)/g' \
		$old mm/slab.h &&
	 git init -q && git add -A && git -c user.name=t -c user.email=t@localhost commit -qm 6.1-old)
	GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org \
		$cc --mode series --output-dir "$g.series" "$g" >"$g.list" 2>"$g.err"
	for p in "$g.series"/0*.patch; do
		echo "$(basename "$p" | cut -c1-4):" $(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$p")
	done >"$g.files"
	printf '%s\n' "0000:" "0001: include/linux/mm.h mm/page_alloc.c" "0002: init/main.c" \
		"0003: mm/slab.h mm/slub.c" "0004: include/linux/randomize_kstack.h" |
		diff -u - "$g.files" >"$g.diff" 2>&1
	ok $? "MODE=series, 4 maintainer groups: a cover letter and one patch per group" "$g.diff" "$g.err"
	(cd "$g" && GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost \
		git am -q "$g.series"/000[1-9]-*.patch) >"$g.diff" 2>&1
	ok $? "MODE=series: the patches apply in order with git am at the tree root" "$g.diff"
	git -C "$g" log --reverse --format=%s HEAD~4..HEAD >"$g.subjects" 2>&1
	printf '%s\n' "mm/page_alloc: Use MAYBE static keys for init_on_alloc, init_on_free" \
		"init/main: Use DEFINE_STATIC_KEY_MAYBE_RO() for randomize_kstack_offset" \
		"mm/slub: Use DEFINE_STATIC_KEY_MAYBE() for slub_debug_enabled" \
		"randomize_kstack: Use a MAYBE static key for randomize_kstack_offset" |
		diff -u - "$g.subjects" >"$g.diff" 2>&1
	ok $? "MODE=series: kernel-style subjects, at most 75 characters" "$g.diff"
	: >"$g.diff"
	for f in $old; do
		cmp -s <(perl -0pe 's/\\\n//g; s/\s+//g' "$t/$f") \
			<(perl -0pe 's/\\\n//g; s/\s+//g' "$g/$f") ||
			echo "$f: differs from Linux 6.1" >>"$g.diff"
	done
	[ ! -s "$g.diff" ]
	ok $? "MODE=series: the series gives back Linux 6.1's own code (blanks aside)" "$g.diff"
	: >"$g.cp"
	for p in "$g.series"/000[1-9]-*.patch; do
		(cd "$g" && perl scripts/checkpatch.pl --strict --no-tree -q "$p") >>"$g.cp" 2>&1 ||
			echo "$p: checkpatch --strict failed" >>"$g.cp"
	done
	[ ! -s "$g.cp" ]
	ok $? "MODE=series, 4 groups: checkpatch.pl --strict is clean on every patch" "$g.cp"
	c=$(echo "$g.series"/0000-*.patch)
	[ "$(grep -c 'x32_enabled_skey: TRUE when' "$c")" -eq 2 ] &&
		grep -q 'mm/vmscan.c:3136:1: lru_gen_caps: array of keys' "$c"
	ok $? "MODE=series, 4 groups: the refusals are in the cover letter" "$c"
	# A patch that converts part of a key's conversion names the patch
	# with the rest; every key a patch touches is in its message.
	msg() { sed -n '/^$/,/^---$/p' "$g.series"/000"$1"-*.patch | tr '\n' ' '; }
	{ msg 3 | grep -q 'init_on_alloc.*"mm/page_alloc: Use MAYBE static keys for init_on_alloc, init_on_free"' &&
	  msg 3 | grep -q 'init_on_free' && msg 1 | grep -q '"mm/slub: Use DEFINE_STATIC_KEY_MAYBE() for slub_debug_enabled"' &&
	  msg 4 | grep -q '"init/main: Use DEFINE_STATIC_KEY_MAYBE_RO() for randomize_kstack_offset"' &&
	  msg 2 | grep -q '"randomize_kstack: Use a MAYBE static key for randomize_kstack_offset"'; } >"$g.diff" 2>&1
	ok $? "MODE=series: each message names every key its patch touches and the patches with the rest" \
		"$g.series/0003-mm-slub-Use-DEFINE_STATIC_KEY_MAYBE-for-slub_debug_e.patch"
fi

cocci_done
