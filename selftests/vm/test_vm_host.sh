# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The host half of make check-vm, without booting: how a console becomes
# TAP (a missing end-of-run marker is a failure naming the running test),
# and the message when the pinned kernel is gone from the archive.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=$srctree/scripts/vm/report

tap_plan 10

# A complete run, with the serial console's CRLF line ends.
printf '%s\r\n' '[    1.0] boot noise' 'STATICKEYS-VM-BEGIN x86_64 6.1.0, 1 CPU, up 2.00 s' \
	'# ---- vm-x86/jly test_vm' '1..2' 'ok 1 - a' '# vm: text_poke method procmem' \
	'ok 2 - b # SKIP c' '# suite vm-x86/jly : 1 passed, 0 failed, 1 skipped' \
	'TOTALS 1 0 1' 'STATICKEYS-VM-END up 9.00 s' 'reboot: Power down' > "$tmp/full"
"$report" "$tmp/full" x86 0 300 > "$tmp/out"
grep -qx 'TOTALS 1 0 1' "$tmp/out" && ! grep -q 'not ok\|TOTALS 0 1' "$tmp/out"
tap_ok $? "a complete run: the guest's totals, and no failure added"
! grep -q 'boot noise\|Power down' "$tmp/out"
tap_ok $? "a complete run: nothing of the console outside the markers"
grep -qx '# vm-x86/jly: text_poke method procmem' "$tmp/out"
tap_ok $? "a complete run: what ran in the guest is summed up per suite"

# Stopped at the time limit in the second test of a suite.
head -n 5 "$tmp/full" > "$tmp/cut"
printf '%s\r\n' '# ---- vm-x86/jly test_threads' 'TAP version 13' >> "$tmp/cut"
"$report" "$tmp/cut" x86 124 300 > "$tmp/out"
grep -qx 'not ok - vm x86: no end-of-run marker: stopped after the 300 s time limit while running vm-x86/jly test_threads' "$tmp/out"
tap_ok $? "a timeout is a failure that names the running test"
grep -qx 'TOTALS 1 1 0' "$tmp/out"
tap_ok $? "a timeout: the tests that finished before it still count"

# A kernel that never reached /init.
printf '%s\n' '[    2.8] Kernel panic - not syncing: No working init found.' > "$tmp/panic"
"$report" "$tmp/panic" arm64 0 300 > "$tmp/out"
grep -qx 'TOTALS 0 1 0' "$tmp/out" &&
	grep -q '^not ok - vm arm64: no end-of-run marker: the guest stopped (qemu status 0)$' "$tmp/out"
tap_ok $? "a guest that never ran the tests is one failure"
grep -q '^#   .*Kernel panic' "$tmp/out"
tap_ok $? "and its console's last lines are shown"

# Both markers but no suite (the guest could not find the test runner, as
# when a tmpfs hid a build tree under /tmp): a failure, never 0 passed.
printf '%s\n' 'STATICKEYS-VM-BEGIN x86_64 6.1.0, 1 CPU, up 2.00 s' \
	"sh: can't open '/tmp/x/scripts/run-tests': No such file or directory" \
	'STATICKEYS-VM-END up 2.10 s' > "$tmp/empty"
"$report" "$tmp/empty" x86 0 300 > "$tmp/out"
grep -qx 'TOTALS 0 1 0' "$tmp/out" &&
	grep -q '^not ok - vm x86: the guest ran no suite' "$tmp/out"
tap_ok $? "a guest that reached its end without running a suite is one failure"

# The pinned kernel gone: apt answers from its lists, no download starts.
STATICKEYS_CACHE=$tmp/cache VM_KERNEL_VERSION=0.0-gone \
	"$srctree/scripts/vm/fetch" x86 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q 'the pinned linux-image-6.1.0-[0-9]*-amd64:amd64 0.0-gone is not in the Debian archive' "$tmp/err"
tap_ok $? "a pinned version that is gone: status 1 and a message naming it (status $rc)"
[ -z "$(find "$tmp/cache" -type f 2>/dev/null)" ]
tap_ok $? "and nothing is left in the cache"
tap_exit
