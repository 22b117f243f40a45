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

cases="init_on spellings crossfile refusals macros runtime details tristate prefilter comments hints"
plan=$((5 * 11 + 28))
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
		 "checkpatch --strict, 4 groups" "refusals in the cover letter" "messages" \
		 "To/Cc" "one patch per key and subsystem" "keyword maintainer in To" \
		 "every commit builds" "prefix from git log" "subjects within 75"; do
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
		 "$work"/crossfile.patch "$work"/hints.patch "$work"/comments.patch \
		 "$t.patch"; do
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
		"init: Use a MAYBE static key for randomize_kstack_offset" \
		"mm/slub: Use a MAYBE static key for slub_debug_enabled" \
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
	  msg 3 | grep -q 'init_on_free' && msg 1 | grep -q '"mm/slub: Use a MAYBE static key for slub_debug_enabled"' &&
	  msg 4 | grep -q '"init: Use a MAYBE static key for randomize_kstack_offset"' &&
	  msg 2 | grep -q '"randomize_kstack: Use a MAYBE static key for randomize_kstack_offset"'; } >"$g.diff" 2>&1
	ok $? "MODE=series: each message names every key its patch touches and the patches with the rest" \
		"$g.series/0003-mm-slub-Use-DEFINE_STATIC_KEY_MAYBE-for-slub_debug_e.patch"
	# The series as a maintainer receives it.  The groups' patches carry
	# To:/Cc: from get_maintainer.pl, lists and reviewers too.
	sl=$(echo "$g.series"/0003-*.patch)
	{ sed -n '/^To: /,/^Subject: /p' "$sl" | grep -q 'Vlastimil Babka <vbabka@suse.cz>' &&
	  sed -n '/^Cc: /,/^Subject: /p' "$sl" | grep -q 'Roman Gushchin <roman.gushchin@linux.dev>' &&
	  sed -n '/^Cc: /,/^Subject: /p' "$sl" | grep -q 'linux-mm@kvack.org' &&
	  sed -n '/^To: /,/^Subject: /p' "$g.series"/0000-*.patch | grep -q 'Andrew Morton <akpm@linux-foundation.org>' &&
	  sed -n '/^Cc: /,/^Subject: /p' "$g.series"/0000-*.patch | grep -q 'linux-hardening@vger.kernel.org' &&
	  [ "$(grep -l '^To: ' "$g.series"/0*.patch | grep -c .)" -eq 5 ]; } >"$g.diff" 2>&1
	ok $? "MODE=series: To/Cc of every patch and the cover letter from get_maintainer.pl" "$sl"

	# A tree of three subsystems, its own MAINTAINERS: one key's files
	# differ in a keyword match (one patch still), prefixes from the
	# paths (no history) and from the git log, and every commit of the
	# series builds with the option off and on.
	s=$work/subsys
	export GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org
	mkdir -p "$s/scripts" "$s/drivers/net/ethernet/acme/foo" "$s/kernel/sched" "$s/net/core"
	for f in scripts/get_maintainer.pl COPYING CREDITS Kbuild Makefile README; do
		cp "$t/$f" "$s/$f"
	done
	(cd "$s" && mkdir -p Documentation arch fs include init ipc lib)
	printf '%s\n' "FOO DRIVER" "M:	Foo Maintainer <foo@example.org>" \
		"R:	Foo Reviewer <foo-review@example.org>" "L:	foo-devel@lists.example.org" \
		"S:	Maintained" "F:	drivers/net/ethernet/acme/foo/" "" \
		"HARDENING" "M:	Hard Ener <hard@example.org>" "S:	Supported" \
		"K:	\\bfoo_harden\\b" "" \
		"SCHEDULER" "M:	Sched Uler <sched@example.org>" "S:	Maintained" "F:	kernel/sched/" "" \
		"NETWORKING" "M:	Net Worker <net@example.org>" "L:	netdev@example.org" \
		"S:	Maintained" "F:	net/" >"$s/MAINTAINERS"
	printf 'config %s\n\tbool "x"\n\n' FOO_ON SCHED_ON NET_ON >"$s/Kconfig"
	d=$s/drivers/net/ethernet/acme/foo
	printf '%s\n' "#ifdef CONFIG_FOO_ON" "DECLARE_STATIC_KEY_TRUE(foo_key);" "#else" \
		"DECLARE_STATIC_KEY_FALSE(foo_key);" "#endif" \
		"static inline int foo_on(void)" "{" "	return static_branch_unlikely(&foo_key);" "}" >"$d/foo.h"
	key_c() {	# key_c KEY CFG [HEADER]: a .c file that defines and tests KEY
		[ -n "${3:-}" ] && printf '#include "%s"\n' "$3"
		printf '%s\n' "#ifdef $2" "DEFINE_STATIC_KEY_TRUE($1);" "#else" "DEFINE_STATIC_KEY_FALSE($1);" \
			"#endif" "int $1_test(void);" "int $1_test(void)" "{" \
			"	return static_branch_unlikely(&$1);" "}"
	}
	# foo_harden, a keyword of HARDENING, on a line the patch changes
	key_c foo_key CONFIG_FOO_ON foo.h |
		sed 's/return static_branch_unlikely(&foo_key);/return static_branch_unlikely(\&foo_key) \&\& foo_harden();/' >"$d/foo_main.c"
	sed -i '1i int foo_harden(void);' "$d/foo_main.c"
	key_c sched_key CONFIG_SCHED_ON >"$s/kernel/sched/core.c"
	key_c net_key CONFIG_NET_ON >"$s/net/core/dev.c"
	(cd "$s" && git init -q && git add -A && git -c user.name=t -c user.email=t@localhost commit -qm base)
	$cc --mode series --output-dir "$s.series" "$s" >"$s.list" 2>"$s.err"
	# subjects FILE...: the subjects, unfolded (format-patch folds long ones)
	subjects() {
		perl -0777 -ne 'while (/^Subject: \[PATCH [^\]]*\] (.*(?:\n .*)*)/mg) {
			($s = $1) =~ s/\n / /g; print "$s\n" }' "$@"
	}
	for p in "$s.series"/000[1-9]-*.patch; do
		echo "$(subjects "$p"):" \
			$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$p")
	done >"$s.files"
	printf '%s\n' "foo: Use a MAYBE static key for foo_key: drivers/net/ethernet/acme/foo/foo.h drivers/net/ethernet/acme/foo/foo_main.c" \
		"sched/core: Use a MAYBE static key for sched_key: kernel/sched/core.c" \
		"net: Use a MAYBE static key for net_key: net/core/dev.c" |
		diff -u - "$s.files" >"$s.diff" 2>&1
	ok $? "MODE=series: one patch per key and subsystem, prefixes from the paths" "$s.diff" "$s.err"
	p=$(echo "$s.series"/0001-*.patch)
	{ sed -n '/^To: /,/^Subject: /p' "$p" | grep -q 'Hard Ener <hard@example.org>' &&
	  sed -n '/^Cc: /,/^Subject: /p' "$p" | grep -q 'Foo Reviewer <foo-review@example.org>' &&
	  sed -n '/^Cc: /,/^Subject: /p' "$p" | grep -q 'foo-devel@lists.example.org'; } >"$s.diff" 2>&1
	ok $? "MODE=series: the keyword match adds its maintainer to To, not a patch" "$p"
	# Each commit of the series builds: git am one by one, every .c file
	# compiled after each, with the options off and on.
	mkdir -p "$work/inc/statickeys"
	: >"$work/inc/statickeys/config.h"	# CONFIG_JUMP_LABEL off: no arch header
	: >"$s.build"
	for p in "$s.series"/000[1-9]-*.patch; do
		(cd "$s" && GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost git am -q "$p") >>"$s.build" 2>&1 ||
			echo "$p: git am failed" >>"$s.build"
		for c in "$d/foo_main.c" "$s/kernel/sched/core.c" "$s/net/core/dev.c"; do
			for def in "" "-DCONFIG_FOO_ON=1 -DCONFIG_SCHED_ON=1 -DCONFIG_NET_ON=1"; do
				# shellcheck disable=SC2086
				${CC:-gcc} -fsyntax-only -Wall -Werror -I"$work/inc" -I"$srctree/include" \
					-include linux/jump_label.h $def "$c" >>"$s.build" 2>&1 ||
					echo "$(basename "$p"): $c does not build ($def)" >>"$s.build"
			done
		done
	done
	[ ! -s "$s.build" ]
	ok $? "MODE=series: every commit of the series builds, options off and on" "$s.build"
	# With a history, the subsystem's own prefix.
	(cd "$s" && git reset -q --hard HEAD~3 &&
	 for w in a b; do echo "/* $w */" >>kernel/sched/core.c &&
		git -c user.name=t -c user.email=t@localhost commit -qam "sched: Note $w"; done)
	$cc --mode series --output-dir "$s.series2" "$s" >"$s.list" 2>"$s.err"
	grep -q '^Subject: \[PATCH 2/3\] sched: Use a MAYBE static key for sched_key$' "$s.series2"/0002-*.patch
	ok $? "MODE=series: the prefix the files' git log uses (sched:)" "$s.err"
	subjects "$g.series"/000[1-9]-*.patch "$s.series"/000[1-9]-*.patch \
		"$s.series2"/000[1-9]-*.patch | grep -vxE '.{1,75}' >"$s.diff"
	subjects "$g.series"/000[1-9]-*.patch "$s.series"/000[1-9]-*.patch |
		grep -vE '^[^ ]+: Use (a MAYBE static key|MAYBE static keys)( for [a-z0-9_, ]+)?$' >>"$s.diff"
	[ ! -s "$s.diff" ]
	ok $? "MODE=series: every subject within 75 characters, one wording" "$s.diff"
fi

cocci_done
