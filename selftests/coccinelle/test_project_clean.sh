# SPDX-License-Identifier: GPL-2.0-only
#
# `make coccicheck MODE=report` over this project finds nothing: our own
# semantic patches hold for our own code, as CI requires.
echo "TAP version 13"
echo "1..1"
out=$(make -s -C "$srctree" O="$objtree" coccicheck MODE=report 2>&1)
rc=$?
# make exits 0 when the run completed; the driver's 0 (nothing found) is
# in the status file.
[ "$rc" -eq 0 ] && rc=$(cat "$objtree/cocci/coccicheck.status")
if [ "$rc" -eq 0 ]; then
	echo "ok 1 - make coccicheck MODE=report is clean on the project"
else
	echo "not ok 1 - make coccicheck MODE=report on the project (exit $rc)"
	echo "$out" | sed 's/^/# /'
	exit 1
fi
