# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The C++ tier with every compiler and linker: test_cxx and libcxx.so built
# by g++ and clang++, linked by bfd, gold and lld, at -O0 and -O2 (the
# header's functions out of line in each translation unit, as COMDAT
# copies), and at -O2 the way large C++ projects link: function and data
# sections, --gc-sections and (gold, lld) --icf=all.  Each program must
# link and pass its own checks.
. "$srctree/selftests/lib/tap.sh"
. "$srctree/selftests/toolchain/toolchain.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$srctree/selftests/cxx

set -- $(sk_linkers)
tap_plan $((2 * 3 * $# * 2))
sk_skip_if_sanitized $((2 * 3 * $# * 2))
if [ "$SK_LIBC" = musl ]; then
	for i in $(seq $((2 * 3 * $# * 2))); do
		tap_skip "musl: Debian has no C++ compiler or library for it" "C++ $i"
	done
	tap_exit
fi
for name in g++ clang++; do
	cxx=$(sk_compiler "$name")
	for variant in O0 O2 gc; do
		for ld in $(sk_linkers); do
			case $variant in
			gc) opt="-O2 -ffunction-sections -fdata-sections -Wl,--gc-sections"
			    [ "$ld" = bfd ] || opt="$opt -Wl,--icf=all" ;;
			*) opt=-$variant ;;
			esac
			d=$tmp/$name-$variant-$ld
			what="$name $opt $ld ($SRCARCH, CONFIG_JUMP_LABEL=$SK_JUMP_LABEL)"
			flags="-std=gnu++17 $opt -Wall $SK_CPPFLAGS -I$srctree/selftests/lib $(sk_linker_flags "$ld")"
			mkdir -p "$d"
			{ $cxx $flags -fPIC -shared "$src/cxx_lib.cc" -o "$d/libcxx.so" \
				$SK_LIBS &&
			  $cxx $flags -fPIE -pie "$src/test_cxx.cc" "$src/cxx_a.cc" \
				"$src/cxx_b.cc" -o "$d/test_cxx" -L"$d" \
				-Wl,-rpath,"$d" -lcxx $SK_LIBS; } > "$d/cc.log" 2>&1
			rc=$?
			tap_diag < "$d/cc.log"
			tap_ok $rc "$what: sites in inline functions, templates, methods and lambdas of two translation units and a shared object link"
			$RUNNER "$d/test_cxx" > "$d/run.log" 2>&1
			rc=$?
			grep -q '^not ok' "$d/run.log" && rc=1
			[ $rc -ne 0 ] && tap_diag < "$d/run.log"
			tap_ok $rc "$what: every copy flips with its key"
		done
	done
done
tap_exit
