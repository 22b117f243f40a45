# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Sites build and patch with gcc and clang, as C and as C++, at -O0 and -O2,
# for the configured architecture (clang cross-compiles arm64 with
# --target=aarch64-linux-gnu): a program flips its own keys and a key of a
# shared object, and its read-only key is refused and write-protected.
. "$srctree/selftests/lib/tap.sh"
. "$srctree/selftests/toolchain/toolchain.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compilers=$(sk_compilers)
set -- $compilers
tap_plan $(($# * 2 * 2))
sk_skip_if_sanitized $(($# * 2 * 2))

for name in $compilers; do
	cc=$(sk_compiler "$name")
	case $name in *++) lang="-x c++ -std=gnu++17" ;; *) lang="-std=gnu11" ;; esac
	for opt in -O0 -O2; do
		d=$tmp/$name$opt
		what="$name $opt (${BUILDARCH:-$SRCARCH})"
		tc_build "$d" "$cc" "$lang $opt -Wall $SK_CPPFLAGS" "$SK_LIBS"
		rc=$?
		if [ $rc -eq 0 ] && [ "$SK_JUMP_LABEL" = y ]; then
			${READELF:-readelf} -S "$d/tc_prog" | grep -q __jump_table
			rc=$?
			[ $rc -ne 0 ] && echo "no __jump_table in tc_prog" >> "$d/cc.log"
		fi
		tap_diag < "$d/cc.log"
		tap_ok $rc "$what: a program and a shared object with sites build (CONFIG_JUMP_LABEL=$SK_JUMP_LABEL)"
		tc_run "$d" "$what: sites flip with their keys, across objects; the _RO key is sealed"
	done
done
tap_exit
