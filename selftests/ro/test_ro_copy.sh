# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A read-only key defined in a shared object and used by a PIE through a
# plain DECLARE.  Where the program holds a copy of the key (a copy
# relocation, as on x86-64), the library must say so, and still refuse
# changes to it.
# On arm64 the program reaches the key itself: refused, and write-protected.
. "$srctree/selftests/lib/tap.sh"
prog=$objtree/selftests/ro/ro_copy_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 3
$RUNNER "$prog" > "$tmp/out" 2> "$tmp/err"
cat "$tmp/out" "$tmp/err" | tap_diag
copy=n
# Whatever the ARCH (a generic build on an x86-64 host gets one too).
if $READELF -rW "$prog" | grep -q 'R_[A-Z0-9_]*_COPY .*dso_ro_key'; then
	copy=y
fi

grep -q '^enabled=1 site=1 err=1$' "$tmp/out"
tap_ok $? "the change is refused: key and site stay on, EPERM (copy relocation: $copy)"

if [ $copy = y ]; then
	[ "$(grep -c 'read-only key dso_ro_key of .* is used through a copy' "$tmp/err")" -eq 1 ]
	tap_ok $? "the copy is reported once, naming the key and its object"
	grep -q '^write=allowed$' "$tmp/out"
	tap_ok $? "the copy is ordinary data (as reported): a store is not trapped"
else
	! grep -q 'used through a copy' "$tmp/err"
	tap_ok $? "no copy, no report"
	grep -q '^write=faulted$' "$tmp/out"
	tap_ok $? "a stray store to the key faults"
fi
tap_exit
