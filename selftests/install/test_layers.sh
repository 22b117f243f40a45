# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Calls go down only (Documentation/static-keys.rst, "Architecture"):
# scripts/check-layers reads what each object file of this configuration
# defines and leaves undefined, and the level scripts/layers gives it.
# First the checker is shown to catch an up-call, a loop and an
# unmapped file in objects made for the purpose; then this build.
. "$srctree/selftests/lib/tap.sh"
NM=${NM:-nm}
export NM
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 4

# Three files: low (level 0) calls high (level 1): an up-call.
mkdir -p "$tmp/o/lib" "$tmp/o/kernel" "$tmp/src"
printf 'int high(void);\nint low(void) { return high(); }\n' > "$tmp/low.c"
printf 'int low(void);\nint high(void) { return 1; }\nint peer(void);\nint other(void) { return peer(); }\n' > "$tmp/high.c"
printf 'int other(void);\nint peer(void) { return other(); }\n' > "$tmp/peer.c"
printf '0 lib/*.o\n1 kernel/high.o kernel/peer.o\n' > "$tmp/layers"
ok=0
cc -c "$tmp/low.c" -o "$tmp/o/lib/low.o" &&
	cc -c "$tmp/high.c" -o "$tmp/o/kernel/high.o" &&
	cc -c "$tmp/peer.c" -o "$tmp/o/kernel/peer.o" || ok=1
out=$(SK_LAYERS_SRCTREE=$tmp/src NM=nm "$srctree/scripts/check-layers" "$tmp/o" "$tmp/layers" 2>&1)
rc=$?
echo "$out" | tap_diag
tap_ok $([ $ok = 0 ] && [ $rc = 1 ] &&
	echo "$out" | grep -q 'lib/low.o (layer 0) calls high of kernel/high.o (layer 1)'; echo $?) \
	"check-layers names an up-call and fails"
tap_ok $(echo "$out" | grep -q 'loop in layer 1: kernel/high.o <-> kernel/peer.o'; echo $?) \
	"check-layers names a loop inside one layer"
cp "$tmp/o/lib/low.o" "$tmp/o/kernel/stray.o"
out=$(SK_LAYERS_SRCTREE=$tmp/src NM=nm "$srctree/scripts/check-layers" "$tmp/o" "$tmp/layers" 2>&1)
tap_ok $(echo "$out" | grep -q 'kernel/stray.o: in no layer'; echo $?) \
	"check-layers names an object file scripts/layers does not place"

# This configuration's objects, with the cross nm.
out=$("$srctree/scripts/check-layers" "$objtree" 2>&1)
rc=$?
echo "$out" | tap_diag
tap_ok $rc "$(echo "$out" | tail -1) (scripts/layers)"
tap_exit
