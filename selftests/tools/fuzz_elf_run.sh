# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make check's bounded fuzz run of statickeys-keys' ELF reader (make
# fuzz-check, scripts/Makefile.fuzz): FUZZRUNS inputs mutated from the
# hostile corpus, a fixed seed, under AddressSanitizer and UBSan.  A count
# of runs, not a time: the same work on every machine.
echo "TAP version 13"
echo "1..1"
cd "$FUZZ_DIR" || exit 1
out=$("$FUZZ_ELF" -runs="$FUZZRUNS" -seed=1 -max_len=4096 \
	-artifact_prefix="$FUZZ_DIR/elf-" check-corpus 2>&1)
rc=$?
done_=$(echo "$out" | sed -n 's/^Done \([0-9]*\) runs.*/\1/p')
if [ $rc -eq 0 ] && [ -n "$done_" ]; then
	echo "ok 1 - the ELF reader: $done_ fuzzed inputs from the hostile corpus, no crash, no promise broken"
else
	echo "not ok 1 - the ELF reader under libFuzzer (exit $rc; the input is in $FUZZ_DIR/elf-crash-*)"
	echo "$out" | tail -n 40 | sed 's/^/# /'
fi
