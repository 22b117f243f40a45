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
src=$srctree/selftests/toolchain

compilers=$(sk_compilers)
set -- $compilers
tap_plan $(($# * 2 * 2))

expect="start true=1 false=0 arr=0 lib=0 libsite=0
flipped true=0 false=1 arr=1 lib=1 libsite=1
err=0
ro refused=1 site=0 store=fault"

# One compiler name from sk_compilers: gcc, g++, clang or clang++.
for name in $compilers; do
	cc=$(sk_compiler "$name")
	case $name in *++) lang="-x c++ -std=gnu++17" ;; *) lang="-std=gnu11" ;; esac
	for opt in -O0 -O2; do
		d=$tmp/$name$opt
		mkdir -p "$d"
		what="$name $opt ($SRCARCH)"
		{ $cc $lang $opt -Wall -fPIC -shared $SK_CPPFLAGS -I"$src" \
			"$src/tc_lib.c" -o "$d/libtc.so" $SK_LIBS &&
		  $cc $lang $opt -Wall -fPIE -pie $SK_CPPFLAGS -I"$src" \
			-I"$srctree/selftests/lib" "$src/tc_prog.c" -o "$d/tc_prog" \
			-L"$d" -Wl,-rpath,"$d" -ltc $SK_LIBS; } > "$d/cc.log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && [ "$SK_JUMP_LABEL" = y ]; then
			${READELF:-readelf} -S "$d/tc_prog" | grep -q __jump_table
			rc=$?
			[ $rc -ne 0 ] && echo "no __jump_table in tc_prog" >> "$d/cc.log"
		fi
		tap_diag < "$d/cc.log"
		tap_ok $rc "$what: a program and a shared object with sites build (CONFIG_JUMP_LABEL=$SK_JUMP_LABEL)"
		out=$($RUNNER "$d/tc_prog" 2>"$d/err.log")
		rc=$?
		if [ $rc -ne 0 ] || [ "$out" != "$expect" ]; then
			echo "$out" | tap_diag
			tap_diag < "$d/err.log"
		fi
		tap_ok $([ $rc -eq 0 ] && [ "$out" = "$expect" ]; echo $?) \
			"$what: sites flip with their keys, across objects; the _RO key is sealed"
	done
done
tap_exit
