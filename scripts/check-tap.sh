# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# TAP for the long checks outside make check (check-fresh, check-package):
# a failed check shows the tail of its log, and the run ends with the plain
# line "N passed, N failed".  Sourced.

n=0 failed=0

ok() {		# ok STATUS TEXT [LOG]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 40 "$3" | sed 's/^/# /'
	fi
}

skip() {	# skip TEXT REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

finish() {
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

bail() {
	echo "Bail out! $*"
	echo "$((n - failed)) passed, $((failed + 1)) failed"
	exit 1
}
