# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# scripts/run-tests' counting rules, pinned with fake tests: a crash, a
# short plan, a non-zero exit without "not ok" each count as one more
# failure; SKIP lines count as skipped, not passed; the per-suite line and
# the TOTALS line scripts/check adds up; the RUNNER prefix for programs.
# Run once by make check (the source tree suites), with prove and without.
. "$srctree/selftests/lib/tap.sh"

run_tests=$srctree/scripts/run-tests
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# fake NAME BODY: a test script; NAME without .sh is run as a program
# (through the prefix), with .sh by bash, as run-tests tells them apart.
fake() {
	{ echo '#!/bin/bash'; printf '%s\n' "$2"; } > "$tmp/$1"
	chmod +x "$tmp/$1"
}
fake pass.sh	'echo "1..2"; echo "ok 1 - one"; echo "ok 2 - two"'
fake skip.sh	'echo "1..2"; echo "ok 1 - ran"; echo "ok 2 - not here # SKIP no such thing"'
fake crash	'echo "1..3"; echo "ok 1 - before"; kill -SEGV $$'
fake short.sh	'echo "1..3"; echo "ok 1 - a"; echo "ok 2 - b"'
fake exit3.sh	'echo "1..1"; echo "ok 1 - fine"; exit 3'
fake fail.sh	'echo "1..2"; echo "ok 1 - a"; echo "not ok 2 - b"; exit 1'
fake noplan.sh	'echo "ok 1 - a"'
# Run through the prefix: passes only when the prefix ran it.
fake prefixed	'echo "1..1"; [ "${RT_PREFIX:-}" = yes ]; r=$?; [ $r -eq 0 ] && echo "ok 1 - prefix ran me" || echo "not ok 1 - no prefix"; exit $r'
fake stderr.sh	'echo "1..1"; echo "a diagnostic" >&2; echo "ok 1 - quiet"'
# Two tests that each wait for the other: they pass only when run at once.
for n in 1 2; do
	fake meet$n.sh "echo 1..1; touch '$tmp/here.$n'; i=0
while [ ! -e '$tmp/here.$((3 - n))' ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
[ -e '$tmp/here.$((3 - n))' ] && echo 'ok 1 - met the other' || echo 'not ok 1 - alone'"
done
# Two tests marked serial that fail when they overlap (a lock directory
# held for a second each).
for n in 1 2; do
	fake alone$n.sh "# run-tests: serial (this fake test holds a lock)
echo 1..1
if mkdir '$tmp/lock'; then sleep 1; rmdir '$tmp/lock'; echo 'ok 1 - alone'
else echo 'not ok 1 - overlapped'; fi"
done
fake hang.sh	'echo "1..1"; sleep 30; echo "ok 1 - too late"'

# expect MODE TEXT WANT_STATUS SUITE_LINE TOTALS_LINE TEST...: run-tests in
# runner MODE (RUN_TESTS_HARNESS: empty is the default), check its exit
# status and its last two lines.
expect() {
	local mode=$1 text=$2 want=$3 suite=$4 totals=$5 out rc
	shift 5
	out=$(RUN_TESTS_HARNESS=$mode "$run_tests" -p "env RT_PREFIX=yes" -t fake "$@" 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && rc=1
	if [ "$rc" -eq "$want" ] &&
	   [ "$(printf '%s\n' "$out" | tail -n 2 | head -n 1)" = "$suite" ] &&
	   [ "$(printf '%s\n' "$out" | tail -n 1)" = "$totals" ]; then
		tap_ok 0 "$text${mode:+ ($mode)}"
	else
		tap_ok 1 "$text${mode:+ ($mode)}"
		{ echo "want status $want, \"$suite\", \"$totals\"; got status $rc:"
		  printf '%s\n' "$out" | tail -n 15; } | tap_diag
	fi
}

# Both runners: prove's, and the serial one of hosts without perl.
have_prove=y
command -v prove >/dev/null 2>&1 || have_prove=n
tap_plan 24
for m in prove serial; do
	if [ "$m" = prove ] && [ "$have_prove" = n ]; then
		for i in $(seq 1 10); do
			tap_skip "prove is not installed (Debian: perl)" "prove runner, $i"
		done
		continue
	fi
	expect "$m" "passing tests count as passed" 0 \
		"# suite fake : 2 passed, 0 failed, 0 skipped" "TOTALS 2 0 0" "$tmp/pass.sh"
	expect "$m" "a SKIP counts as skipped, not passed" 0 \
		"# suite fake : 1 passed, 0 failed, 1 skipped" "TOTALS 1 0 1" "$tmp/skip.sh"
	expect "$m" "a crashed program is one more failure" 1 \
		"# suite fake : 1 passed, 1 failed, 0 skipped" "TOTALS 1 1 0" "$tmp/crash"
	expect "$m" "fewer checks than planned is one more failure" 1 \
		"# suite fake : 2 passed, 1 failed, 0 skipped" "TOTALS 2 1 0" "$tmp/short.sh"
	expect "$m" "a non-zero exit without not ok is one more failure" 1 \
		"# suite fake : 1 passed, 1 failed, 0 skipped" "TOTALS 1 1 0" "$tmp/exit3.sh"
	expect "$m" "a not ok with its non-zero exit is one failure only" 1 \
		"# suite fake : 1 passed, 1 failed, 0 skipped" "TOTALS 1 1 0" "$tmp/fail.sh"
	expect "$m" "a missing plan is one more failure" 1 \
		"# suite fake : 1 passed, 1 failed, 0 skipped" "TOTALS 1 1 0" "$tmp/noplan.sh"
	expect "$m" "programs run through the prefix" 0 \
		"# suite fake : 1 passed, 0 failed, 0 skipped" "TOTALS 1 0 0" "$tmp/prefixed"
	expect "$m" "stderr is not TAP but does no harm" 0 \
		"# suite fake : 1 passed, 0 failed, 0 skipped" "TOTALS 1 0 0" "$tmp/stderr.sh"
	expect "$m" "a suite adds its tests up" 1 \
		"# suite fake : 11 passed, 5 failed, 1 skipped" "TOTALS 11 5 1" \
		"$tmp/pass.sh" "$tmp/skip.sh" "$tmp/crash" "$tmp/short.sh" "$tmp/exit3.sh" \
		"$tmp/fail.sh" "$tmp/noplan.sh" "$tmp/prefixed" "$tmp/stderr.sh"
done
# check-vm's guest runs run-tests with busybox sh, where prove is missing:
# the serial runner must be plain POSIX sh (dash stands in for busybox).
if command -v dash >/dev/null 2>&1; then
	out=$(RUN_TESTS_HARNESS=serial dash "$run_tests" -t fake "$tmp/pass.sh" \
		"$tmp/short.sh" 2>&1)
	[ "$(printf '%s\n' "$out" | tail -n 1)" = "TOTALS 4 1 0" ]
	r=$?
	tap_ok $r "under a POSIX sh (dash), the serial runner counts the same"
	[ $r -eq 0 ] || printf '%s\n' "$out" | tail -n 10 | tap_diag
else
	tap_skip "dash is not installed" "under a POSIX sh, the serial runner counts the same"
fi
if [ "$have_prove" = n ]; then
	tap_skip "prove is not installed (Debian: perl)" "two tests run at once"
	tap_skip "prove is not installed (Debian: perl)" "serial tests one after another"
	RUN_TESTS_TIMEOUT=1 expect serial "a test past its timeout is stopped and one more failure" 1 \
		"# suite fake : 0 passed, 1 failed, 0 skipped" "TOTALS 0 1 0" "$tmp/hang.sh"
	tap_exit
fi
CHECK_JOBS=2 expect prove "with CHECK_JOBS=2 two tests run at once" 0 \
	"# suite fake : 2 passed, 0 failed, 0 skipped" "TOTALS 2 0 0" "$tmp/meet1.sh" "$tmp/meet2.sh"
CHECK_JOBS=2 expect prove "tests marked serial run one after another" 0 \
	"# suite fake : 2 passed, 0 failed, 0 skipped" "TOTALS 2 0 0" "$tmp/alone1.sh" "$tmp/alone2.sh"
RUN_TESTS_TIMEOUT=1 expect prove "a test past its timeout is stopped and one more failure" 1 \
	"# suite fake : 0 passed, 1 failed, 0 skipped" "TOTALS 0 1 0" "$tmp/hang.sh"
tap_exit
