# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Kernel code that uses pr_debug() builds against the library unchanged:
# Linux 6.1's lib/asn1_decoder.c (eleven pr_debug() sites), taken from
# Debian's linux-source-6.1 tarball at test time (never kept in this
# tree), with kshim/ standing in for the kernel headers it includes that
# have nothing to do with debugging.  Its sites are then switched by
# run-time and boot-time queries like any other.
. "$srctree/selftests/lib/tap.sh"
here=$srctree/selftests/dyndbg
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
cache=$objtree/selftests/dyndbg/linux-6.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files="lib/asn1_decoder.c include/linux/asn1.h include/linux/asn1_decoder.h
	include/linux/asn1_ber_bytecode.h"
plan=6
tap_plan $plan

if [ ! -r "$tarball" ]; then
	for i in $(seq $plan); do
		tap_skip "no $tarball (scripts/install-deps kernel)" "Linux 6.1 lib/asn1_decoder.c"
	done
	exit 0
fi
# Extracting reads the whole tarball: once per build directory.
if [ ! -s "$cache/lib/asn1_decoder.c" ]; then
	mkdir -p "$cache.new"
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$cache.new" --strip-components=1 \
		$(for f in $files; do echo "linux-source-6.1/$f"; done) &&
		rm -rf "$cache" && mv "$cache.new" "$cache"
fi

cflags="-std=gnu11 -O2 -Wall -Werror $ARCH_CFLAGS -I$here/kshim -I$cache/include $SK_CPPFLAGS"
# shellcheck disable=SC2086
$CC $cflags -DKBUILD_MODNAME='"asn1_decoder"' -fPIE -c "$cache/lib/asn1_decoder.c" \
	-o "$tmp/asn1_decoder.o" >"$tmp/err" 2>&1
tap_ok $? "lib/asn1_decoder.c builds unchanged against <linux/printk.h>, -Wall -Werror"
tap_diag <"$tmp/err"
# shellcheck disable=SC2086
$CC $cflags -fPIE "$here/asn1_run.c" "$tmp/asn1_decoder.o" -o "$tmp/asn1_run" -pie \
	-L"$objtree" -Wl,-rpath,"$objtree" -lstatickeys -ldl -pthread >"$tmp/err" 2>&1
tap_ok $? "it links with a driver and the library"
tap_diag <"$tmp/err"

# run QUERY: stdout in $tmp/out, stderr (the debug output) in $tmp/dbg.
# shellcheck disable=SC2086
run() { $RUNNER "$tmp/asn1_run" "$@" >"$tmp/out" 2>"$tmp/dbg"; }

run
[ "$(cat "$tmp/out")" = "matched 0 decoded 0" ] && [ ! -s "$tmp/dbg" ]
tap_ok $? "it decodes, and its sites print nothing while they are off"

sites=$(grep -c 'pr_debug(' "$cache/lib/asn1_decoder.c")
run "file lib/asn1_decoder.c +p"
[ "$(cat "$tmp/out")" = "matched $sites decoded 0" ] &&
	grep -qx 'next_op: .*' "$tmp/dbg" && grep -qx -- '- LEAF: 1' "$tmp/dbg"
tap_ok $? "'file lib/asn1_decoder.c +p' switches its $sites sites on, and they print"
cat "$tmp/out" "$tmp/dbg" | tap_diag

run "module asn1_decoder func asn1_ber_decoder format '^- ' +pmf"
grep -qx -- 'asn1_decoder:asn1_ber_decoder: - LEAF: 1' "$tmp/dbg" &&
	! grep -qv '^asn1_decoder:asn1_ber_decoder: - ' "$tmp/dbg"
tap_ok $? "module (KBUILD_MODNAME), func and an anchored format select, m and f prefix"
tap_diag <"$tmp/dbg"

STATICKEYS_CMDLINE='asn1_decoder.dyndbg="format LEAF +pl"' run
grep -qx -- '[0-9]*: - LEAF: 1' "$tmp/dbg" && [ "$(wc -l <"$tmp/dbg")" -eq 1 ]
tap_ok $? "asn1_decoder.dyndbg= on the command line switches it at start-up"
tap_diag <"$tmp/dbg"
tap_exit
