#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Any kernel tree, not one (issue 29, items 8 and 9).  fixtures/arches/in
# is a small tree of another layout: x86 and ia64 each define their own
# bool force_iommu (and iommu_pass, which generic code also reads), and
# zarch, an architecture no list knows, calls jump_label_init() before
# parse_early_param() from arch/zarch/boot/start.c.  Names are scoped per
# architecture (x86's force_iommu converts, ia64's stays a bool and is not
# counted as x86's), and which architectures set up keys before early
# parameters is read from the tree.  Then the kernel's own make coccicheck
# MODE=patch path: spatch alone on static_key_maybe.cocci leaves no #if
# block whose two branches became the same line.  And MODE=lint does not
# take the place a tree is kept in for an architecture.  RULE=keys scopes
# key names per architecture too.  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
fix=$srctree/selftests/coccinelle/fixtures/arches
cc="python3 $srctree/scripts/coccicheck --rule options"
work=$objtree/cocci/arches
export GIT_CEILING_DIRECTORIES=$work
rm -rf "$work"
mkdir -p "$work"

plan=9
echo "TAP version 13"
echo "1..$plan"

$cc "$fix/in" >"$work/report" 2>"$work/report.err"
rc=$?
diff -u "$fix/report" "$work/report" >"$work/report.diff" && [ "$rc" -eq 1 ]
ok $? "report: each architecture's force_iommu on its own, zarch read from the tree (exit $rc)" "$work/report.diff" "$work/report.err"

$cc --mode patch "$fix/in" >"$work/patch" 2>"$work/patch.err"
rc=$?
cp -r "$fix/in" "$work/tree"
{ diff -u "$fix/expected.patch" "$work/patch" &&
	(cd "$work/tree" && git apply --check "$work/patch"); } >"$work/apply.err" 2>&1
ok $? "patch: x86's and zarch's options convert, exactly fixtures/arches/expected.patch, git apply --check (exit $rc)" "$work/apply.err" "$work/patch.err"

# ia64's force_iommu stays a bool: no ia64 file in the patch, and no
# x86 change counts an ia64 read.
! grep -q '^+++ b/arch/ia64/' "$work/patch" &&
	grep -q '^+DEFINE_STATIC_KEY_MAYBE(CONFIG_FIXTURE_IOMMU_ON, force_iommu);' "$work/patch" &&
	grep -q '^arch/x86/kernel/pci-dma.c:.*1 read, hot: arch/x86/kernel/iommu-map.c:iommu_map_one() (iommu_map_one() is called in a loop in iommu_map_all() (arch/x86/' "$work/report"
ok $? "ia64's force_iommu is left a bool and none of its reads is x86's" "$work/patch" "$work/report"

# The architectures that set up keys before early parameters come from
# the tree: zarch (setup code in boot/) is one, ia64 is not.
grep -q '^arch/zarch/mm/fast.c:6:13: zfast: option candidate: ' "$work/report" &&
	grep -q 'early_param("iommu") runs before jump_label_init() outside x86/zarch:' "$work/report"
ok $? "an unknown architecture's setup code is read: zarch converts, ia64 is the init_on_alloc form" "$work/report"

# M=arch/x86 alone: the architecture is still known from the path.
$cc "$fix/in/arch/x86" >"$work/m.report" 2>&1
grep -q '^kernel/pci-dma.c:7:6: force_iommu: option candidate: ' "$work/m.report"
ok $? "M=arch/x86: the same x86 candidate from a scan of the directory alone" "$work/m.report"

# The kernel's make coccicheck MODE=patch: spatch alone, no finisher,
# with the options the kernel's scripts/coccicheck gives it (srctree
# exported, --patch and --dir at the tree, the script's Options line).
sp=$srctree/coccinelle/static_key_maybe.cocci
(cd "$fix/ifdef" && env srctree=. spatch -D patch --very-quiet \
	--no-includes --include-headers --patch . --dir . --sp-file "$sp") \
	>"$work/spatch.patch" 2>"$work/spatch.err"
cp -r "$fix/ifdef" "$work/ifdef"
{ diff -u "$fix/ifdef.patch" "$work/spatch.patch" &&
	(cd "$work/ifdef" && git apply "$work/spatch.patch") &&
	! grep -rn '^#\(if\|ifdef\|else\)\b' "$work/ifdef"; } >"$work/spatch.diff" 2>&1
ok $? "spatch alone on static_key_maybe.cocci: no #if left around identical lines, git apply" "$work/spatch.diff" "$work/spatch.err"

# MODE=lint reads a file's architecture from its path in the tree, not
# from wherever the tree is kept: under some /arch/ directory, generic
# code is still generic (fixtures/arches/lintpos: a generic DECLARE
# against x86's DEFINE of the other initial state).
mkdir -p "$work/arch"
cp -r "$fix/lintpos" "$work/arch/pos"
python3 "$srctree/scripts/coccicheck" --mode lint "$work/arch/pos" >"$work/lintpos" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q '^include/linux/k.h:5:1: pos_key: DECLARE_STATIC_KEY_FALSE, but DEFINE_STATIC_KEY_TRUE at arch/x86/kernel/k.c:5' "$work/lintpos"
ok $? "lint: a tree kept under an arch/ directory still pairs generic and x86 code (exit $rc)" "$work/lintpos"

# RULE=keys scopes names the same way (fixtures/archkeys): x86's
# fastmap_key is converted although ia64 declares one of its own, no
# ia64 test of a name x86 defines changes, generic code's test of an
# x86-only key does, and a key generic code names while x86 and ia64
# each define one is refused.
ak=$srctree/selftests/coccinelle/fixtures/archkeys
kc="python3 $srctree/scripts/coccicheck --jobs ${J:-1}"
$kc "$ak/in" >"$work/keys.report" 2>"$work/keys.err"
rc=$?
(echo '# SPDX-License-Identifier: GPL-2.0-only'; cat "$work/keys.report") |
	diff -u "$ak/report" - >"$work/keys.diff" && [ "$rc" -eq 1 ]
ok $? "RULE=keys report: each architecture's keys on their own (exit $rc)" "$work/keys.diff" "$work/keys.err"

$kc --mode patch "$ak/in" >"$work/keys.patch" 2>"$work/keys.perr"
rc=$?
cp -r "$ak/in" "$work/keys.tree"
{ diff -u "$ak/expected.patch" "$work/keys.patch" &&
	! grep -q '^+++ b/arch/ia64/' "$work/keys.patch" &&
	(cd "$work/keys.tree" && git apply --check "$work/keys.patch"); } >"$work/keys.apply" 2>&1
ok $? "RULE=keys patch: no ia64 file, exactly fixtures/archkeys/expected.patch (exit $rc)" "$work/keys.apply" "$work/keys.perr"

cocci_done
