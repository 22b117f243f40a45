# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# sparse over every library source of this configuration (`make C=2`):
# one check a file, failed by any warning sparse prints for it.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
if ! command -v "${SPARSE:-sparse}" >/dev/null; then
	tap_plan 1; tap_skip "sparse is not installed" "sparse"; tap_exit
fi
out=$(make -s -C "$srctree" O="$objtree" ARCH="$SRCARCH" sparse 2>&1)
files=$(echo "$out" | sed -n 's/^  CHECK   //p')
set -- $files
tap_plan $#
for f in $files; do
	# The lines between this file's CHECK line and the next one.
	msgs=$(echo "$out" | awk -v f="$f" '/^  CHECK   /{on = ($2 == f); next} on')
	[ -z "$msgs" ]
	tap_ok $? "sparse: $f"
	[ -n "$msgs" ] && echo "$msgs" | tap_diag
done
tap_exit
