# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A plugin host that does not link the library loads a plugin that does,
# late: dlopen(), dlmopen(LM_ID_NEWLM) and Python's ctypes, with the plugin
# linked against libstatickeys.so and with libstatickeys.a linked in
# privately.  Thread-local storage of the initial-exec model lives in the
# static TLS block, sized at start-up: a library that has any cannot be
# loaded late once that block is full (glibc: "cannot allocate memory in
# static TLS block"), so neither object may have any.
. "$srctree/selftests/lib/tap.sh"
dir=$objtree/selftests/hosts
host=$dir/host
: "${READELF:=readelf}"

tap_plan 11

# Initial-exec TLS shows as the STATIC_TLS flag and as TPOFF/TPREL relocations
# (DTPOFF/DTPREL are the dynamic models' offsets within the module's block).
for so in "$objtree/libstatickeys.so" "$dir/libhost_static.so"; do
	flags=$("$READELF" -dW "$so" | grep -E '\(FLAGS\)')
	relocs=$("$READELF" -rW "$so" | grep -E 'TPOFF|TPREL' | grep -vE 'DTPOFF|DTPREL' | awk '{print $3}' | sort | uniq -c | tr '\n' ' ')
	! echo "$flags" | grep -q STATIC_TLS
	tap_ok $? "$(basename "$so"): no STATIC_TLS flag (${flags:-no FLAGS})"
	[ -z "$relocs" ]
	tap_ok $? "$(basename "$so"): no initial-exec TLS relocation (${relocs:-none})"
done

for so in libhost_shared.so libhost_static.so; do
	for how in dlopen dlmopen; do
		if [ "$how" = dlmopen ] && [ -n "${SANITIZE:-}" ]; then
			tap_skip "a sanitizer's runtime does not load twice (a new namespace)" \
				"a host without the library: $how($so)"
			continue
		fi
		out=$(${RUNNER:-} "$host" "$how" "$dir/$so" 2>&1)
		st=$?
		if [ $st -eq 77 ]; then
			tap_skip "$out" "a host without the library: $how($so)"
			continue
		fi
		tap_ok $st "a host without the library: $how($so), a key changed and its site run ($out)"
	done
done

# Two copies of the library in one process (dlopen() and dlmopen() of the
# same plugin): neither stacks the other's SIGTRAP handler nor says so.
if [ -n "${SANITIZE:-}" ]; then
	tap_skip "a sanitizer's runtime does not load twice (a new namespace)" \
		"two copies of the library, dlopen() and dlmopen()"
else
	out=$(${RUNNER:-} "$host" twins "$dir/libhost_shared.so" 2>&1)
	st=$?
	if [ $st -eq 77 ]; then
		tap_skip "$out" "two copies of the library, dlopen() and dlmopen()"
	else
		[ $st -eq 0 ] && ! echo "$out" | grep -q 'statickeys:'
		tap_ok $? "two copies of the library, dlopen() and dlmopen() of one plugin, 100 changes each: all worked, nothing said ($(echo "$out" | tail -n 1))"
	fi
fi

# Python loads plugins of its own ELF class only: an i386 build run natively
# on x86-64 has none to load them.
py_class() {
	$READELF -h "$(python3 -c 'import sys, os; print(os.path.realpath(sys.executable))')" 2>/dev/null |
		sed -n 's/^ *Class: *//p'
}
so_class() {
	$READELF -h "$dir/libhost_shared.so" 2>/dev/null | sed -n 's/^ *Class: *//p'
}
if [ -n "${RUNNER:-}" ] || [ "$SK_LIBC" != glibc ] || [ -n "${SANITIZE:-}" ] ||
   ! command -v python3 > /dev/null || [ "$(py_class)" != "$(so_class)" ]; then
	why="needs python3 of the build machine's C library and the plugins' ELF class, run natively, and no sanitizer"
	tap_skip "$why" "Python ctypes.CDLL(libhost_shared.so)"
	tap_skip "$why" "Python ctypes.CDLL(libhost_static.so)"
	tap_exit
fi
for so in libhost_shared.so libhost_static.so; do
	out=$(python3 -c 'import ctypes, sys
r = ctypes.CDLL(sys.argv[1]).host_plugin_run()
print("host_plugin_run() returned", r)
sys.exit(1 if r else 0)' "$dir/$so" 2>&1)
	tap_ok $? "Python ctypes.CDLL($so): a key changed and its site run ($out)"
done
tap_exit
