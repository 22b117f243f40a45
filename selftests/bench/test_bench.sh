# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make bench, small: every benchmark program builds against this
# configuration and runs, the programs' own checks hold (every site
# flipped), and bench/run-bench prints its goals without an error of its
# own.  The figures are not judged (make bench is for that); a bench that
# no longer builds or whose report breaks is found here, not by the next
# make bench.  Natively only: under an emulator make bench has no
# instruction counts and the programs take minutes.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 4

if [ -n "${RUNNER:-}" ] || [ "$SK_JUMP_LABEL" != y ] || [ -n "${SANITIZE:-}" ]; then
	for i in 1 2 3 4; do
		tap_skip "natively with CONFIG_JUMP_LABEL=y and no sanitizer only" "make bench, small, $i"
	done
	tap_exit
fi
# make bench is glibc's: its counting pwrite() wrappers are glibc's pair
# (musl has one function under both names), and valgrind runs no musl
# program here.
if [ "$SK_LIBC" != glibc ]; then
	for i in 1 2 3 4; do
		tap_skip "make bench needs glibc (valgrind, the pwrite() wrappers); $SK_LIBC here" "make bench, small, $i"
	done
	tap_exit
fi

# The sizes of make bench, shrunk; the output in a directory of its own.
small="bench_dir=$tmp/bench BENCH_SITES=1\ 10\ 100 BENCH_KEYS=50 BENCH_DD_SITES=100 REG_SITES=1000 REG_KEYS=4"
make -s -C "$srctree" O="$objtree" ARCH="$ARCH" CC="$CC" CXX="$CXX" \
	ARCH_CFLAGS="$ARCH_CFLAGS" bench_dir="$tmp/bench" BENCH_SITES="1 10 100" \
	BENCH_KEYS=50 BENCH_DD_SITES=100 REG_SITES=1000 REG_KEYS=4 bench-build > "$tmp/build.log" 2>&1
rc=$?
tail -n 20 "$tmp/build.log" | tap_diag
tap_ok $rc "every benchmark program builds ($small)"

BENCH_DIR=$tmp/bench BENCH_SITES="1 10 100" BENCH_LAYOUT_SITES=100 \
	SRCARCH=$SRCARCH RUNNER= CC=$CC REG_SITES=1000 REG_KEYS=4 \
	READELF=${READELF:-readelf} BENCH_CALLS=2000 BENCH_TIME_CALLS=2000 \
	BENCH_TIME_REPS=2 BENCH_IDLE_MS=300 "$srctree/bench/run-bench" > "$tmp/out" 2> "$tmp/err"
rc=$?
# valgrind 3.19 cannot read the DWARF 5 that clang 14 writes ("unhandled
# dwarf2 abbrev form code"): where it cannot read this configuration's
# library, callgrind's figures are missing and run-bench says so, rightly.
nocg=
if cat "$tmp/bench/raw/"*.err 2>/dev/null | grep -q 'unhandled dwarf2 abbrev form'; then
	nocg="valgrind cannot read the debug information $CC writes"
fi
[ $rc -eq 0 ] && { [ ! -s "$tmp/err" ] ||
	{ [ -n "$nocg" ] && ! grep -qv 'failed under callgrind\|callgrind run failed' "$tmp/err"; }; }
rc2=$?
head -n 20 "$tmp/err" | tap_diag
but=
[ -n "$nocg" ] && but=" but the failures of callgrind ($nocg)"
tap_ok $rc2 "bench/run-bench exits 0 (status $rc) and prints nothing on stderr$but"

# Every goal line says PASS, FAIL or n/a, and the ones this configuration
# measures are there: three are callgrind's (the pr_debug() one falls back
# to a count in objdump).
goals=$(sed -n '/^== Goals/,$p' "$tmp/out" | sed 1d)
bad=$(printf '%s\n' "$goals" | grep -v '^   \(PASS\|FAIL\|n/a \)  ')
n=$(printf '%s\n' "$goals" | grep -c '^   \(PASS\|FAIL\)  ')
want=16
[ -n "$nocg" ] && want=12
[ -z "$bad" ] && [ "$n" -ge $want ]
rc=$?
printf '%s\n' "$goals" | tap_diag
tap_ok $rc "the goals: $n measured (at least $want), each PASS, FAIL or n/a"

# The programs check themselves: every enabled site jumped, every toggle
# flipped every site, every key of a batch flipped.
wrong=$(grep -n 'NOT FLIPPED\|WRONG' "$tmp/out")
[ -z "$wrong" ] && grep -q 'all flipped' "$tmp/out"
rc=$?
[ -n "$wrong" ] && printf '%s\n' "$wrong" | tap_diag
tap_ok $rc "every site flipped as its key did (no NOT FLIPPED, no WRONG)"
tap_exit
