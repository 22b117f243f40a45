# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make check's bounded fuzz run of the control channel's request parser
# (make fuzz-check, scripts/Makefile.fuzz): FUZZRUNS inputs mutated from
# selftests/control/corpus, a fixed seed, under AddressSanitizer and UBSan.
echo "TAP version 13"
echo "1..1"
cd "$FUZZ_DIR" || exit 1
out=$("$FUZZ_CONTROL" -runs="$FUZZRUNS" -seed=1 -max_len=8192 \
	-artifact_prefix="$FUZZ_DIR/control-" check-control 2>&1)
rc=$?
done_=$(echo "$out" | sed -n 's/^Done \([0-9]*\) runs.*/\1/p')
if [ $rc -eq 0 ] && [ -n "$done_" ]; then
	echo "ok 1 - the control request parser: $done_ fuzzed inputs, no crash, no promise broken"
else
	echo "not ok 1 - the control request parser under libFuzzer (exit $rc; the input is in $FUZZ_DIR/control-crash-*)"
	echo "$out" | tail -n 40 | sed 's/^/# /'
fi
