#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/coccicheck --rule options: boot-parameter options with a CONFIG
# default.  fixtures/options/in holds three candidate spellings (IS_ENABLED()
# with __ro_after_init and an x86 early_param(); an #ifdef-chosen int with
# two __setup() words; a global bool declared in a header and tested in
# another file), their hot caller (lib/opt_hot.c), one refusal per reason,
# options read only on cold paths (c_cold.c), an early_param() outside
# the architectures that set up keys first with a hot read (e_early.c:
# the init_on_alloc form), and variables chosen by Kconfig that no
# parameter sets (k_only.c).  The report must be exactly
# fixtures/options/report, the patch must give exactly fixtures/options/out,
# apply with git apply, pass checkpatch.pl --strict, change nothing on a
# second run, and the original and converted programs, built against the
# library, must print the same in every combination of the three options
# (y/n) and their boot parameters (unset, on, off).  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
fix=$srctree/selftests/coccinelle/fixtures/options
cc="python3 $srctree/scripts/coccicheck --rule options"
work=$objtree/cocci/options
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
export GIT_CEILING_DIRECTORIES=$work
rm -rf "$work"
mkdir -p "$work"
CC=${CC:-gcc}

plan=11
echo "TAP version 13"
echo "1..$plan"

$cc "$fix/in" >"$work/report" 2>"$work/report.err"
rc=$?
diff -u "$fix/report" "$work/report" >"$work/report.diff"
[ $? -eq 0 ] && [ "$rc" -eq 1 ]
ok $? "report: every candidate and refusal of fixtures/options (exit $rc)" "$work/report.diff" "$work/report.err"

$cc --mode patch "$fix/in" >"$work/patch" 2>"$work/patch.err"
rc=$?
cp -r "$fix/in" "$work/tree"
(cd "$work/tree" && git apply "$work/patch") >"$work/apply.err" 2>&1 &&
	diff -ru "$fix/out" "$work/tree" >"$work/out.diff"
ok $? "patch: git apply gives exactly fixtures/options/out (exit $rc)" "$work/apply.err" "$work/out.diff"

# Every line of the report but the candidates goes to stderr in patch
# mode (refusals, cold options, the init_on_alloc form, variables no
# parameter sets).
grep -v ': option candidate: ' "$fix/report" | diff -u - "$work/patch.err" >"$work/patch.err.diff"
ok $? "patch: the options it leaves alone are on stderr" "$work/patch.err.diff"

$cc "$work/tree" >"$work/report2" 2>&1
rc=$?
$cc --mode patch "$work/tree" >"$work/patch2" 2>/dev/null
grep -v ': option candidate: ' "$fix/report" | diff -u - "$work/report2" >"$work/report2.diff"
[ "$rc" -eq 1 ] && [ ! -s "$work/report2.diff" ] && [ ! -s "$work/patch2" ]
ok $? "a second run finds no candidate, the same other lines, and changes nothing (exit $rc)" "$work/report2.diff" "$work/patch2"

if [ -r "$tarball" ]; then
	tar -xJf "$tarball" -C "$work" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	(cd "$work" && perl scripts/checkpatch.pl --no-tree --strict --no-signoff \
		-q patch) >"$work/checkpatch" 2>&1
	ok $? "checkpatch.pl --strict is clean on the patch" "$work/checkpatch"
else
	n=$((n + 1)); echo "ok $n - checkpatch.pl --strict # SKIP no $tarball"
fi

# Behaviour: the original and the tree the patch gave, against the
# library, in every combination of the options and their boot parameters,
# with each toolchain: the host's $CC against objtree's library
# (CONFIG_JUMP_LABEL as objtree was configured), clang against a library
# built with LLVM=1, and arm64 (aarch64-linux-gnu-gcc, run under
# qemu-aarch64) against an ARCH=arm64 library, both with the default
# configuration.  Their libraries are kept in objtree/cocci/options-lib-*
# (make rebuilds what changed).
host=$(uname -m)
case $host in x86_64) host=x86 ;; aarch64) host=arm64 ;; esac
# build TREE OUT CFLAGS...: with $tc_cc for $tc_arch against $tc_obj.
build() {
	local t=$1 o=$2
	shift 2
	$tc_cc -Wall -Werror -O2 -I"$tc_obj/include" -I"$srctree/include" \
		-I"$srctree/arch/$tc_arch/include" -include stdbool.h \
		-include linux/kconfig.h -D__ro_after_init= -D__read_mostly= "$@" \
		-o "$o" "$fix/main.c" "$t/arch/x86/kernel/opt_a.c" "$t/drivers/opt_b.c" \
		"$t/lib/opt_c.c" "$t/lib/opt_c_user.c" -L"$tc_obj" \
		-Wl,-Bstatic -lstatickeys -Wl,-Bdynamic -ldl -lpthread
}
# run PROGRAM: under the toolchain's runner, the command line given.
run() {
	STATICKEYS_CMDLINE="$line" $tc_run "$@" 2>&1
}
# matrix LABEL: both checks for one toolchain, in $work/LABEL.
matrix() {
	local w=$work/$1 cfg d a b c o v bad=0 runs=0
	mkdir -p "$w"
	: >"$w/build.log"
	: >"$w/runs"
	for cfg in 0 1 2 3 4 5 6 7; do
		d=""
		[ $((cfg & 1)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_A_ON=1"
		[ $((cfg & 2)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_B_ON=1"
		[ $((cfg & 4)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_C_ON=1"
		# shellcheck disable=SC2086
		build "$fix/in" "$w/orig-$cfg" $d >>"$w/build.log" 2>&1 &&
			build "$work/tree" "$w/conv-$cfg" $d >>"$w/build.log" 2>&1 || {
			bad=$((bad + 1)); continue; }
		for a in "" opt_a=0 opt_a=1; do
			for b in "" opt_b_off opt_b_on; do
				for c in "" opt_c=off opt_c=on; do
					line="$a $b $c"
					o=$(run "$w/orig-$cfg")
					v=$(run "$w/conv-$cfg")
					runs=$((runs + 1))
					[ "$o" = "$v" ] || { bad=$((bad + 1)); echo "cfg $cfg [$line]: $o / $v" >>"$w/runs"; }
				done
			done
		done
	done
	[ "$bad" -eq 0 ] && [ "$runs" -eq 216 ] &&
		[ "$(grep -l 'DEFINE_STATIC_KEY_MAYBE' "$work/tree/arch/x86/kernel/opt_a.c" \
			"$work/tree/drivers/opt_b.c" "$work/tree/lib/opt_c.c" | wc -l)" -eq 3 ]
	ok $? "$1: 8 option states x 27 command lines: converted behaves as the original ($runs runs)" "$w/build.log" "$w/runs"

	# The defaults really follow the options (a test that could fail):
	# all off gives "1 1 1", all on "2 4 6", and the parameters override
	# them.
	line=""
	[ "$(run "$w/conv-0")" = "1 1 1" ] && [ "$(run "$w/conv-7")" = "2 4 6" ] &&
		line='opt_a=1 opt_b_on opt_c=on' && [ "$(run "$w/conv-0")" = "2 4 6" ] &&
		line='opt_a=0 opt_b_off opt_c=off' && [ "$(run "$w/conv-7")" = "1 1 1" ]
	ok $? "$1: the converted keys follow the options and the boot parameters" "$w/build.log"
}
# toolchain LABEL ARCH CC QEMU MAKE-ARGS...: the library for it, then the
# matrix, its programs run under QEMU (none: natively) through
# scripts/qemu-run with CC's sysroot; a toolchain that is not installed is
# skipped.
toolchain() {
	local label=$1 cmd qemu=$4
	tc_arch=$2 tc_cc=$3 tc_run=
	shift 4
	tc_obj=$objtree/cocci/options-lib-$label
	cmd=${tc_cc%% *}
	if ! command -v "$cmd" >/dev/null || { [ -n "$qemu" ] && ! command -v "$qemu" >/dev/null; }; then
		n=$((n + 1)); echo "ok $n - $label: 216 runs # SKIP no $cmd $qemu"
		n=$((n + 1)); echo "ok $n - $label: the keys follow # SKIP no $cmd $qemu"
		return
	fi
	[ -n "$qemu" ] && tc_run="$srctree/scripts/qemu-run $qemu /usr/${cmd%-gcc}"
	mkdir -p "$tc_obj"
	nice -n 10 make -s -C "$srctree" O="$tc_obj" "$@" lib >"$work/lib-$label.log" 2>&1
	matrix "$label"
}

lib=$objtree/libstatickeys.a
[ -f "$lib" ] || nice -n 10 make -s -C "$srctree" O="$objtree" lib >"$work/lib.log" 2>&1
tc_arch=$host tc_cc=$CC tc_run="" tc_obj=$objtree
matrix "$host-${CC##*/}"
toolchain clang "$host" clang "" LLVM=1
toolchain arm64 arm64 aarch64-linux-gnu-gcc qemu-aarch64 \
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-

cocci_done
