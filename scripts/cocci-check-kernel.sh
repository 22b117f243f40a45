#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-kernel: run the semantic patches over the whole Linux 6.1
# tree and prove the result.  TAP on stdout; long (two kernel configs).
#
#  - the whole-tree report is exactly selftests/coccinelle/linux-6.1.report
#    and names the same keys as the independent text scan
#    scripts/cocci-crosscheck.py (no false positive, none missed);
#  - a run whose passes all get every file naming the API (no narrowing)
#    reports and patches exactly the same;
#  - the patch applies (git apply --check), leaves the MAYBE users of 6.1
#    alone, and a second run over the converted tree finds nothing;
#  - two shards of the scan, merged, give the same report and patch;
#  - with CONFIG_SLUB_DEBUG_ON=y and =n (x86_64 defconfig), the touched
#    objects build before, after the declaration-only conversion and after
#    the whole conversion; the declaration-only objects disassemble to
#    exactly the original code;
#  - a MODE=series run over four subsystems (three keys written back as
#    #ifdef pairs) gives four patches, and after each of them, applied in
#    order, the objects they touch build with the options on and off.
set -u
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
out=$objtree/cocci/kernel
src=$out/linux
# $out may be inside this project's git checkout (O=build): keep git from
# finding it, so that git apply works on the Linux tree itself.
export GIT_CEILING_DIRECTORIES=$out
cc="python3 $srctree/scripts/coccicheck --jobs $J"
objs="mm/slub.o mm/slab_common.o"
n=0 failed=0
plan=$((15 + 2 * 7 + 2 + 2 * 2))

echo "TAP version 13"
echo "1..$plan"
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && head -n 60 "$3" | sed 's/^/# /'
	fi
}
note() { echo "# $*"; }

for tool in spatch flex bison bc gcc make; do
	command -v $tool >/dev/null || { echo "Bail out! $tool missing: scripts/install-deps kernel check"; exit 1; }
done
[ -r "$tarball" ] || { echo "Bail out! no $tarball: scripts/install-deps kernel"; exit 1; }

rm -rf "$out"
mkdir -p "$out"
note "extracting $tarball"
tar -xJf "$tarball" -C "$out" && mv "$out/linux-source-6.1" "$src"

s=$(date +%s)
$cc --stats --mode report "$src" >"$out/report" 2>"$out/report.err"
note "whole-tree report: $(($(date +%s) - s)) s"
grep -v 'symbolic link' "$out/report.err" | sed 's/^/#   /'
sed 's/^/#   /' "$out/report"
grep -v '^#' "$srctree/selftests/coccinelle/linux-6.1.report" |
	diff -u - "$out/report" >"$out/diff" 2>&1
ok $? "whole-tree report is selftests/coccinelle/linux-6.1.report" "$out/diff"

python3 "$srctree/scripts/cocci-crosscheck.py" "$src" >"$out/crosscheck"
sed 's/^/#   crosscheck: /' "$out/crosscheck"
diff -u <(awk '{print $2}' "$out/crosscheck" | sort -u) \
	<(sed 's/^[^ ]* \([A-Za-z0-9_]*\):.*/\1/' "$out/report" | sort -u) \
	>"$out/diff" 2>&1
ok $? "the report names the same keys as the text scan" "$out/diff"

# MODE=lint over the whole tree: the figures of Documentation/coccinelle.rst
# (131 layouts against the key's state without a comment, nothing else).
$cc --mode lint "$src" >"$out/lint" 2>"$out/lint.err"
rc=$?
note "MODE=lint: $(wc -l <"$out/lint") findings"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$out/lint")" -eq 131 ] &&
	[ "$(grep -c ': static_branch_likely() on a FALSE key ' "$out/lint")" -eq 119 ] &&
	[ "$(grep -c ': static_branch_unlikely() on a TRUE key ' "$out/lint")" -eq 12 ]
ok $? "MODE=lint: 119 likely() on FALSE keys, 12 unlikely() on TRUE keys, nothing else (exit $rc)" "$out/lint"

s=$(date +%s)
$cc --mode patch "$src" >"$out/full.patch" 2>"$out/patch.err"
STATIC_KEY_MAYBE_NO_USES=1 $cc --mode patch "$src" >"$out/decl.patch" 2>>"$out/patch.err"
note "two patch runs: $(($(date +%s) - s)) s"
sed 's/^/#   /' "$out/full.patch"
# The driver gives each pass only the files that can matter to it (the
# collect pass's keys, the "// Prefilter:" lines of a script): with every
# pass given every file that names the API, nothing changes.
$cc --prefilter tokens --mode report "$src" >"$out/report.tokens" 2>/dev/null
diff -u "$out/report" "$out/report.tokens" >"$out/diff" 2>&1
ok $? "report: every pass given all the API files finds the same (--prefilter tokens)" "$out/diff"
$cc --prefilter tokens --mode patch "$src" >"$out/full.tokens.patch" 2>/dev/null
diff -u "$out/full.patch" "$out/full.tokens.patch" >"$out/diff" 2>&1
ok $? "patch: every pass given all the API files writes the same patch" "$out/diff"
# Sharded: two shards of the scan, merged, give the same report and patch.
: >"$out/shards.err"
for i in 0 1; do
	$cc --max 2 --index $i --shard-out "$out/shard$i.json" "$src" >/dev/null 2>>"$out/shards.err"
done
$cc --mode report --merge "$out/shard0.json" --merge "$out/shard1.json" "$src" \
	>"$out/report.shards" 2>>"$out/shards.err"
diff -u "$out/report" "$out/report.shards" >"$out/diff" 2>&1
ok $? "report: 2 shards merged give the whole-tree report" "$out/diff"
$cc --mode patch --merge "$out/shard0.json" --merge "$out/shard1.json" "$src" \
	>"$out/full.shards.patch" 2>>"$out/shards.err"
diff -u "$out/full.patch" "$out/full.shards.patch" >"$out/diff" 2>&1
ok $? "patch: 2 shards merged give the whole-tree patch" "$out/diff"
(cd "$src" && git apply --check "$out/full.patch" && git apply --check "$out/decl.patch") \
	>"$out/diff" 2>&1
ok $? "the patches apply (git apply --check)" "$out/diff"
! grep -q 'init_on_alloc\|init_on_free\|randomize_kstack_offset' "$out/full.patch"
ok $? "the MAYBE users of 6.1 are left alone" "$out/full.patch"
perl "$src/scripts/checkpatch.pl" --no-tree --no-signoff --quiet \
	--patch "$out/full.patch" >"$out/checkpatch" 2>&1
ok $? "the patch passes the kernel's checkpatch.pl" "$out/checkpatch"
grep -n '^[-+]' "$out/full.patch" | grep -v '^[0-9]*:[-+][-+]' |
	grep -E '^[0-9]+:\+#|^[0-9]+:\+.*STATIC_KEY_(TRUE|FALSE)' >"$out/diff"
[ ! -s "$out/diff" ]
ok $? "no dead #if/#else/#endif or TRUE/FALSE line is added" "$out/diff"

# MODE=series with M=mm: format-patch files whose paths start at the
# tree root, each clean for checkpatch.pl --strict.
GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org \
	$cc --mode series --output-dir "$out/series" "$src/mm" >"$out/series.list" 2>"$out/series.err"
: >"$out/diff"
for p in "$out/series"/0*.patch; do
	case $p in *cover-letter*) continue ;; esac
	(cd "$src" && git apply --check "$p") >>"$out/diff" 2>&1 || echo "$p: does not apply" >>"$out/diff"
done
[ -s "$out/series.list" ] && [ ! -s "$out/diff" ]
ok $? "MODE=series (M=mm): every commit applies at the tree root" "$out/diff" "$out/series.err"
: >"$out/checkpatch"
for p in "$out/series"/0*.patch; do
	case $p in *cover-letter*) continue ;; esac
	(cd "$src" && perl scripts/checkpatch.pl --strict -q "$p") >>"$out/checkpatch" 2>&1 ||
		echo "$p: checkpatch --strict failed" >>"$out/checkpatch"
done
[ ! -s "$out/checkpatch" ]
ok $? "MODE=series: checkpatch.pl --strict is clean on every commit" "$out/checkpatch"

# Kernel builds: original, declaration-only, whole conversion.
build() {	# build CONFIG_STATE LABEL
	local o=$out/build-$1
	if [ ! -f "$o/.config" ]; then
		mkdir -p "$o"
		make -s -C "$src" O="$o" defconfig >"$o.log" 2>&1 &&
		# The options of the series test below follow SLUB_DEBUG_ON.
		for opt in SLUB_DEBUG_ON INIT_ON_ALLOC_DEFAULT_ON INIT_ON_FREE_DEFAULT_ON \
			   RANDOMIZE_KSTACK_OFFSET_DEFAULT; do
			"$src/scripts/config" --file "$o/.config" \
				"--$( [ "$1" = on ] && printf enable || printf disable)" $opt
		done &&
		make -s -C "$src" O="$o" olddefconfig >>"$o.log" 2>&1 || return 1
	fi
	# shellcheck disable=SC2086
	make -s -C "$src" O="$o" -j"$J" $objs >>"$o.log" 2>&1 || return 1
	for obj in $objs; do
		objdump -dr "$o/$obj" | tail -n +3 >"$o/$(basename "$obj").$2.dis"
	done
}
same() {	# same CONFIG_STATE LABEL1 LABEL2
	local o=$out/build-$1 obj rc=0
	: >"$out/diff"
	for obj in $objs; do
		b=$(basename "$obj")
		diff -q "$o/$b.$2.dis" "$o/$b.$3.dis" >>"$out/diff" 2>&1 || rc=1
	done
	return $rc
}

for state in on off; do
	s=$(date +%s)
	want="# CONFIG_SLUB_DEBUG_ON is not set"
	[ $state = on ] && want="CONFIG_SLUB_DEBUG_ON=y"
	build $state orig && grep -qx "$want" "$out/build-$state/.config"
	ok $? "SLUB_DEBUG_ON=$state: original $objs build ($want)" "$out/build-$state.log"
	(cd "$src" && git apply "$out/decl.patch") && build $state decl
	ok $? "SLUB_DEBUG_ON=$state: declaration-only conversion builds" "$out/build-$state.log"
	same $state orig decl
	ok $? "SLUB_DEBUG_ON=$state: declaration-only objects disassemble identically" "$out/diff"
	(cd "$src" && git apply -R "$out/decl.patch" && git apply "$out/full.patch") &&
		build $state full
	ok $? "SLUB_DEBUG_ON=$state: whole conversion (uses too) builds" "$out/build-$state.log"
	if same $state orig full; then
		note "SLUB_DEBUG_ON=$state: whole conversion: object code identical"
		[ $state = off ]
	else
		note "SLUB_DEBUG_ON=$state: whole conversion: object code differs (branch layout)"
		sed 's/^/#   /' "$out/diff"
		[ $state = on ]
	fi
	ok $? "SLUB_DEBUG_ON=$state: uses conversion changes code only when the option is on"
	(cd "$src" && git apply -R "$out/full.patch")
	ok $? "SLUB_DEBUG_ON=$state: tree restored"
	note "SLUB_DEBUG_ON=$state: $(($(date +%s) - s)) s"
done

# The series as a maintainer receives it, over four subsystems: Linux 6.1
# with init_on_alloc, init_on_free and randomize_kstack_offset written
# back as #ifdef pairs (as check-cocci does with a few files), converted
# by MODE=series; after each of its patches, applied in order, the
# objects its files go into build with the options on and off.
old="include/linux/mm.h mm/page_alloc.c init/main.c include/linux/randomize_kstack.h"
sobjs="mm/page_alloc.o mm/slub.o mm/slab_common.o init/main.o arch/x86/entry/common.o"
mkdir -p "$out/orig"
# shellcheck disable=SC2086
(cd "$src" && cp --parents $old mm/slab.h "$out/orig" && perl -0pi -e '
	s/(DEFINE|DECLARE)_STATIC_KEY_MAYBE(_RO)?\((CONFIG_\w+),\s*(init_on_alloc|init_on_free|randomize_kstack_offset)\);/#ifdef $3\n$1_STATIC_KEY_TRUE$2($4);\n#else\n$1_STATIC_KEY_FALSE$2($4);\n#endif/g;
	s/static_branch_maybe\(CONFIG_\w+,[\s\\]*&(init_on_alloc|init_on_free|randomize_kstack_offset)\)/static_branch_unlikely(&$1)/g' \
	$old mm/slab.h)
GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org \
	$cc --mode series --output-dir "$out/series4" "$src" >"$out/series4.list" 2>"$out/series4.err"
[ "$(grep -c '/000[1-9]-.*\.patch$' "$out/series4.list")" -eq 4 ]
ok $? "MODE=series over the whole tree: 4 patches for the 4 subsystems" "$out/series4.list" "$out/series4.err"
for state in on off; do
	s=$(date +%s)
	: >"$out/series4.build"
	for p in "$out/series4"/000[1-9]-*.patch; do
		(cd "$src" && git apply "$p") >>"$out/series4.build" 2>&1 &&
		# shellcheck disable=SC2086
		make -s -C "$src" O="$out/build-$state" -j"$J" $sobjs >>"$out/series4.build" 2>&1 ||
			echo "$(basename "$p"): does not build with the options $state" >>"$out/series4.build"
	done
	! grep -q 'does not build' "$out/series4.build"
	ok $? "options $state: every commit of the series builds ($sobjs)" "$out/series4.build"
	for p in $(ls -r "$out/series4"/000[1-9]-*.patch); do
		(cd "$src" && git apply -R "$p")
	done
	note "series build, options $state: $(($(date +%s) - s)) s"
done
cp -r "$out/orig/." "$src"

# --rule options (Documentation/coccinelle.rst): the counts given there, a
# patch clean for checkpatch.pl --strict, and the objects it touches build
# with the three options on and off, before and after it (W=1, no new
# warning).
$cc --rule options "$src" >"$out/options.report" 2>"$out/options.err"
# The three options of 6.1 that could become keys are read only on cold
# paths: the patch converts them with --with-cold only.
[ "$(grep -c ': option candidate: ' "$out/options.report")" -eq 0 ] &&
	[ "$(grep -c ': option cold: ' "$out/options.report")" -eq 5 ] &&
	[ "$(grep -c ': option candidate in the init_on_alloc form: ' "$out/options.report")" -eq 1 ] &&
	[ "$(grep -c ': option refused: ' "$out/options.report")" -eq 33 ] &&
	[ "$(grep -c ', set by no boot parameter; ' "$out/options.report")" -eq 75 ]
ok $? "--rule options: no hot candidate, 5 cold, 1 init_on_alloc form, 33 refusals, 75 set by no parameter" "$out/options.report"
$cc --rule options --with-cold --mode patch "$src" >"$out/options.patch" 2>/dev/null
perl "$src/scripts/checkpatch.pl" --no-tree --strict --no-signoff --quiet \
	"$out/options.patch" >"$out/checkpatch" 2>&1
ok $? "--rule options: the patch passes checkpatch.pl --strict" "$out/checkpatch"
oobjs="arch/x86/kernel/pci-dma.o arch/x86/kernel/amd_gart_64.o drivers/iommu/intel/iommu.o kernel/resource.o"
obuild() {	# obuild on|off LABEL: the objects of the options patch, W=1
	local o=$out/opt-$1 e=--enable d=--disable
	[ "$1" = off ] && e=--disable d=--enable
	if [ ! -f "$o/.config" ]; then
		mkdir -p "$o"
		make -s -C "$src" O="$o" defconfig >"$o.log" 2>&1 &&
		"$src/scripts/config" --file "$o/.config" -e DEBUG_KERNEL -e GART_IOMMU \
			-e INTEL_IOMMU -e DEVMEM $e IOMMU_DEBUG $e INTEL_IOMMU_DEFAULT_ON \
			-d INTEL_IOMMU_DEFAULT_ON_INTGPU_OFF $d INTEL_IOMMU_DEFAULT_OFF \
			$e STRICT_DEVMEM &&
		make -s -C "$src" O="$o" olddefconfig >>"$o.log" 2>&1 || return 1
	fi
	# shellcheck disable=SC2086
	(cd "$o" && rm -f $oobjs)
	# shellcheck disable=SC2086
	make -s -C "$src" O="$o" -j"$J" W=1 $oobjs >"$o.$2.log" 2>&1 || return 1
	# grep -c exits 1 when it counts none: no warning is no failure.
	grep -c 'warning:' "$o.$2.log" >"$o.$2.warnings" || true
}
for state in on off; do
	want="# CONFIG_STRICT_DEVMEM is not set"
	[ $state = on ] && want="CONFIG_STRICT_DEVMEM=y"
	obuild $state orig && grep -qx "$want" "$out/opt-$state/.config" &&
		(cd "$src" && git apply "$out/options.patch") && obuild $state conv &&
		cmp -s "$out/opt-$state.orig.warnings" "$out/opt-$state.conv.warnings"
	ok $? "options $state: the objects of --rule options build before and after, no new warning" \
		"$out/opt-$state.conv.log"
	(cd "$src" && git apply -R "$out/options.patch") 2>/dev/null
	grep -qx "$want" "$out/opt-$state/.config"
	ok $? "options $state: IOMMU_DEBUG, INTEL_IOMMU_DEFAULT_ON, STRICT_DEVMEM are $state" \
		"$out/opt-$state.log"
done

(cd "$src" && git apply "$out/full.patch")
# Exit status 1 stays: the refusals (x32_enabled_skey, lru_gen_caps).
$cc --mode patch "$src" >"$out/second.patch" 2>/dev/null
[ $? -le 1 ] && [ ! -s "$out/second.patch" ]
ok $? "a second run over the converted tree changes nothing" "$out/second.patch"

[ "$n" -eq "$plan" ] || echo "# ran $n checks, planned $plan"
echo "# check-kernel: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
