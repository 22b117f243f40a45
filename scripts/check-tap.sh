# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# TAP for the long checks outside make check (check-fresh, check-package),
# on top of selftests/lib/tap.sh: a failed check shows the tail of its log,
# and the run ends with the plain line "N passed, N failed".  Sourced.
. "$srctree/selftests/lib/tap.sh"

ok() {		# ok STATUS TEXT [LOG]
	tap_ok "$1" "$2"
	if [ "$1" -ne 0 ] && [ -n "${3:-}" ] && [ -s "$3" ]; then
		tail -n 40 "$3" | tap_diag
	fi
}

skip() { tap_skip "$2" "$1"; }	# skip TEXT REASON

finish() {
	echo "$((tap_n - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" -eq 0 ]
	exit
}

bail() {
	echo "Bail out! $*"
	echo "$((tap_n - tap_failed)) passed, $((tap_failed + 1)) failed"
	exit 1
}
