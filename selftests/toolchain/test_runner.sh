# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A program run under qemu-user gets the cross sysroot's C library, never
# the host's.  qemu -L alone hands the sysroot's loader a host libc.so.6
# where the host has one in a path the loader searches (/lib32 from
# libc6-i386, /lib/<triplet> from a foreign-architecture libc): a threaded
# program then hangs or crashes before main().  The check reads qemu's own
# system-call trace (QEMU_STRACE) of a small threaded program: every shared
# library the loader opens that the sysroot has must be the sysroot's file.
#
# In a configuration with a RUNNER (a cross tier) that RUNNER is checked
# with the configuration's compiler; natively, scripts/qemu-run is checked
# for each cross toolchain and emulator installed.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/threads.c" <<'C'
#include <pthread.h>
#include <stdio.h>
static void *run(void *arg) { return arg; }
int main(void)
{
	pthread_t t;
	void *ret = 0;

	if (pthread_create(&t, 0, run, (void *)42) || pthread_join(t, &ret))
		return 1;
	puts(ret == (void *)42 ? "joined" : "wrong");
	return ret == (void *)42 ? 0 : 1;
}
C

# resolve SYSROOT PATH: the host file qemu -L SYSROOT opens for the guest's
# PATH (SYSROOT's copy where it has one, else the host's).
resolve() {
	if [ -e "$1$2" ]; then echo "$1$2"; else echo "$2"; fi
}

# check LABEL CC RUNNER...: build the program with CC, run it under RUNNER
# with qemu's trace on, and judge the run and the libraries it loaded.
check() {
	local label=$1 cc=$2 d libdir sysroot out rc bad= n=0 p f
	shift 2
	d=$tmp/$label
	mkdir -p "$d"
	if ! $cc -pthread "$tmp/threads.c" -o "$d/prog" > "$d/cc.log" 2>&1; then
		tap_diag < "$d/cc.log"
		tap_ok 1 "$label: a threaded program builds with $cc"
		tap_skip "it did not build" "$label: libraries"
		return
	fi
	# The C library the program was linked against is the sysroot's.
	libdir=$(dirname "$(readlink -f "$($cc -print-file-name=libc.so.6)")")
	sysroot=$(dirname "$libdir")
	# A guard against the hang this test is about, not a timed check.
	out=$(QEMU_STRACE=1 timeout 120 "$@" "$d/prog" 2> "$d/trace")
	rc=$?
	[ "$rc" -ne 0 ] && tail -n 3 "$d/trace" | tap_diag
	tap_ok "$([ "$rc" -eq 0 ] && [ "$out" = joined ]; echo $?)" \
		"$label: a threaded program runs under $* (exit $rc, printed '$out')"
	# Every shared object opened with success: PID openat(...,"PATH",...) = FD
	for p in $(sed -n 's/^[0-9]* open[a-z]*([^"]*"\([^"]*\.so[.0-9]*\)".* = [0-9][0-9]*$/\1/p' "$d/trace"); do
		f=$(resolve "$sysroot" "$p")
		[ -e "$libdir/$(basename "$p")" ] || continue
		n=$((n + 1))
		if [ "$f" -ef "$libdir/$(basename "$p")" ]; then
			echo "# $label: $p is $f"
		else
			echo "# $label: $p is the host's $f, not $libdir/$(basename "$p")"
			bad=1
		fi
	done
	tap_ok "$([ -z "$bad" ] && [ "$n" -gt 0 ]; echo $?)" \
		"$label: the $n libraries the loader opened that $sysroot has are $sysroot's"
}

if [ -n "${RUNNER:-}" ]; then
	tap_plan 2
	case $RUNNER in
	*qemu*)	check "${BUILDARCH:-$SRCARCH}" "$CC" $RUNNER ;;
	*)	tap_skip "RUNNER=$RUNNER is not qemu-user" "runner"
		tap_skip "RUNNER=$RUNNER is not qemu-user" "runner libraries" ;;
	esac
	tap_exit
fi
set -- i386:i686-linux-gnu:qemu-i386 arm:arm-linux-gnueabihf:qemu-arm \
	arm64:aarch64-linux-gnu:qemu-aarch64 riscv:riscv64-linux-gnu:qemu-riscv64
tap_plan $(($# * 2 + 1))
# A sysroot with a lib/ but no loader nor C library of its own: refused
# (125, said why) before qemu could fall back to the host's.
mkdir -p "$tmp/half/lib"
out=$(sh "$srctree/scripts/qemu-run" "$(command -v qemu-aarch64 || echo qemu-aarch64)" \
	"$tmp/half" /bin/true 2>&1)
rc=$?
if command -v qemu-aarch64 > /dev/null; then
	[ $rc -eq 125 ] && echo "$out" | grep -q "not a complete cross sysroot"
	tap_ok $? "a sysroot without its loader and libc.so.6: refused with 125, said why (exit $rc: $out)"
else
	tap_skip "qemu-aarch64 is not installed (scripts/install-deps arches)" "incomplete sysroot"
fi
for t in "$@"; do
	IFS=: read -r arch triplet qemu <<-EOF
	$t
	EOF
	if ! command -v "$triplet-gcc" > /dev/null || ! command -v "$qemu" > /dev/null; then
		why="$triplet-gcc or $qemu is not installed (scripts/install-deps arches)"
		tap_skip "$why" "$arch runner"
		tap_skip "$why" "$arch runner libraries"
		continue
	fi
	check "$arch" "$triplet-gcc" "$srctree/scripts/qemu-run" "$qemu" "/usr/$triplet"
done
tap_exit
