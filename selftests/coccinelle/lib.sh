# SPDX-License-Identifier: GPL-2.0-only
# TAP helpers of the Coccinelle tests, sourced.  The checks of a test
# call ok; the test ends with cocci_done.

n=0
failed=0

# ok STATUS TEXT [FILE]...: STATUS 0 passes; on a failure the first lines
# of each non-empty FILE are printed as diagnostics.
ok() {
	local rc=$1 t=$2 f
	n=$((n + 1))
	shift 2
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - $t"
	else
		echo "not ok $n - $t"
		failed=$((failed + 1))
		for f in "$@"; do
			[ -s "$f" ] && head -n 40 "$f" | sed 's/^/# /'
		done
	fi
}

cocci_done() {
	[ "$n" -eq "$plan" ] || echo "# ran $n checks, planned $plan"
	[ "$failed" -eq 0 ]
}
