# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The gdb command statickeys-keys (scripts/gdb/statickeys.gdb) against the
# table the program prints of itself, stopped where it has printed it: the
# same keys, objects, types, counts, directions and sites.  The name's
# source column says "gdb" there, and is left out of the comparison.
. "$srctree/selftests/lib/tap.sh"
prog=$objtree/selftests/introspect/test_introspect
script=$srctree/scripts/gdb/statickeys.gdb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 2
if [ -n "${RUNNER:-}" ] || ! command -v gdb > /dev/null; then
	reason="gdb runs native programs only"
	command -v gdb > /dev/null || reason="gdb is not installed (scripts/install-deps tools)"
	tap_skip "$reason" "gdb statickeys-keys"
	tap_skip "$reason" "gdb statickeys-keys"
	tap_exit
fi
out=$(timeout 600 gdb -batch -nx -x "$script" -ex 'break intro_served' \
	-ex "run --serve $tmp/self < /dev/null > /dev/null" -ex 'statickeys-keys' \
	--args "$prog" 2>&1)
echo "$out" | grep '^\(key\|  site\) ' > "$tmp/gdb"
# key ADDR NAME SOURCE ...: without the source.
sed 's/^\(key [^ ]* [^ ]*\) [^ ]*/\1/' "$tmp/gdb" > "$tmp/a"
sed 's/^\(key [^ ]* [^ ]*\) [^ ]*/\1/' "$tmp/self" > "$tmp/b"
# Empty only where the program has no site at all (ARCH=generic: not even
# the library's probe site), and gdb must say so.
if [ -s "$tmp/b" ]; then
	[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
else
	[ ! -s "$tmp/a" ] && echo "$out" | grep -q '^no static-key site'
fi
tap_ok $? "gdb's table is the program's own$([ -s "$tmp/b" ] || echo ' (no site: both empty)')"
[ "$tap_failed" -ne 0 ] && { echo "$out" | tail -30; diff "$tmp/a" "$tmp/b"; } | tap_diag
if [ "$SK_JUMP_LABEL" = y ]; then
	grep -q '^key .* k_exe gdb .* FALSE count 1 on sites 2$' "$tmp/gdb" &&
		grep -q '^key .* k_ro gdb .* FALSE,RO count 0 off sites 1$' "$tmp/gdb" &&
		grep -q '^key .* k_def gdb .* FALSE,DEFERRED count 0 off sites 1$' "$tmp/gdb" &&
		grep -q '^key .* intro_late_key gdb .*/libintro_late.so TRUE count 1 on sites 1$' "$tmp/gdb"
	tap_ok $? "it names the keys, their objects and types"
else
	tap_skip "CONFIG_JUMP_LABEL=n: the program's keys have no site" "gdb names the keys"
fi
tap_exit
