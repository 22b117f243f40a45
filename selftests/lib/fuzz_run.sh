# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Sourced by make check's bounded fuzz runs (make fuzz-check,
# scripts/Makefile.fuzz).  fuzz_run WHAT BIN CORPUS PREFIX MAX_LEN: one TAP
# check, FUZZRUNS inputs mutated from CORPUS (in $FUZZ_DIR) with a fixed
# seed, under AddressSanitizer and UBSan; a crashing input is left in
# $FUZZ_DIR/PREFIX-crash-*.  A count of runs, not a time: the same work on
# every machine.
fuzz_run() {
	echo "TAP version 13"
	echo "1..1"
	cd "$FUZZ_DIR" || exit 1
	out=$("$2" -runs="$FUZZRUNS" -seed=1 -max_len="$5" \
		-artifact_prefix="$FUZZ_DIR/$4-" "$3" 2>&1)
	rc=$?
	done_=$(echo "$out" | sed -n 's/^Done \([0-9]*\) runs.*/\1/p')
	if [ $rc -eq 0 ] && [ -n "$done_" ]; then
		echo "ok 1 - $1: $done_ fuzzed inputs, no crash, no promise broken"
	else
		echo "not ok 1 - $1 under libFuzzer (exit $rc; the input is in $FUZZ_DIR/$4-crash-*)"
		echo "$out" | tail -n 40 | sed 's/^/# /'
	fi
}
