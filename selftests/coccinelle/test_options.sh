#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/coccicheck --rule options: boot-parameter options with a CONFIG
# default.  fixtures/options/in holds three candidate spellings (IS_ENABLED()
# with __ro_after_init and an x86 early_param(); an #ifdef-chosen int with
# two __setup() words; a global bool declared in a header and tested in
# another file) and one refusal per reason.  The report must be exactly
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

plan=7
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

# Every refusal of the report goes to stderr in patch mode.
[ "$(grep -c 'option refused' "$work/patch.err")" -eq "$(grep -c 'option refused' "$fix/report")" ]
ok $? "patch: the refusals are on stderr" "$work/patch.err"

$cc "$work/tree" >"$work/report2" 2>&1
rc=$?
$cc --mode patch "$work/tree" >"$work/patch2" 2>/dev/null
[ "$rc" -eq 1 ] && ! grep -q candidate "$work/report2" && [ ! -s "$work/patch2" ] &&
	[ "$(grep -c 'option refused' "$work/report2")" -eq "$(grep -c 'option refused' "$fix/report")" ]
ok $? "a second run finds no candidate, the same refusals, and changes nothing (exit $rc)" "$work/report2" "$work/patch2"

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
# library (CONFIG_JUMP_LABEL as objtree was configured), in every
# combination of the options and their boot parameters.
lib=$objtree/libstatickeys.a
[ -f "$lib" ] || nice -n 10 make -s -C "$srctree" O="$objtree" lib >"$work/lib.log" 2>&1
arch=$(uname -m)
case $arch in x86_64) arch=x86 ;; aarch64) arch=arm64 ;; esac
build() {	# build TREE OUT CFLAGS...
	local t=$1 o=$2
	shift 2
	$CC -Wall -Werror -O2 -I"$objtree/include" -I"$srctree/include" \
		-I"$srctree/arch/$arch/include" -include stdbool.h \
		-include linux/kconfig.h -D__ro_after_init= -D__read_mostly= "$@" \
		-o "$o" "$fix/main.c" "$t/arch/x86/kernel/opt_a.c" "$t/drivers/opt_b.c" \
		"$t/lib/opt_c.c" "$t/lib/opt_c_user.c" -L"$objtree" \
		-Wl,-Bstatic -lstatickeys -Wl,-Bdynamic -ldl -lpthread
}
: >"$work/build.log"
: >"$work/runs"
bad=0 runs=0
for cfg in 0 1 2 3 4 5 6 7; do
	d=""
	[ $((cfg & 1)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_A_ON=1"
	[ $((cfg & 2)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_B_ON=1"
	[ $((cfg & 4)) -ne 0 ] && d="$d -DCONFIG_FIXTURE_OPT_C_ON=1"
	# shellcheck disable=SC2086
	build "$fix/in" "$work/orig-$cfg" $d >>"$work/build.log" 2>&1 &&
		build "$work/tree" "$work/conv-$cfg" $d >>"$work/build.log" 2>&1 || {
		bad=$((bad + 1)); continue; }
	for a in "" opt_a=0 opt_a=1; do
		for b in "" opt_b_off opt_b_on; do
			for c in "" opt_c=off opt_c=on; do
				line="$a $b $c"
				o=$(STATICKEYS_CMDLINE="$line" "$work/orig-$cfg" 2>&1)
				v=$(STATICKEYS_CMDLINE="$line" "$work/conv-$cfg" 2>&1)
				runs=$((runs + 1))
				[ "$o" = "$v" ] || { bad=$((bad + 1)); echo "cfg $cfg [$line]: $o / $v" >>"$work/runs"; }
			done
		done
	done
done
[ "$bad" -eq 0 ] && [ "$runs" -eq 216 ] &&
	[ "$(grep -l 'DEFINE_STATIC_KEY_MAYBE' "$work/tree/arch/x86/kernel/opt_a.c" \
		"$work/tree/drivers/opt_b.c" "$work/tree/lib/opt_c.c" | wc -l)" -eq 3 ]
ok $? "8 option states x 27 command lines: converted behaves as the original ($runs runs)" "$work/build.log" "$work/runs"

# The defaults really follow the options (a test that could fail): all
# off gives "1 1 1", all on "2 4 6", and the parameters override them.
[ "$("$work/conv-0")" = "1 1 1" ] && [ "$("$work/conv-7")" = "2 4 6" ] &&
	[ "$(STATICKEYS_CMDLINE='opt_a=1 opt_b_on opt_c=on' "$work/conv-0")" = "2 4 6" ] &&
	[ "$(STATICKEYS_CMDLINE='opt_a=0 opt_b_off opt_c=off' "$work/conv-7")" = "1 1 1" ]
ok $? "the converted keys follow the options and the boot parameters" "$work/build.log"

cocci_done
