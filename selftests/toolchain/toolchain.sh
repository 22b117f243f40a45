# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Compilers and linkers the toolchain tests try, for the configured
# architecture.  Sourced after selftests/lib/tap.sh.

# The cross prefix of a build for another architecture, if any.
case ${BUILDARCH:-$SRCARCH} in
arm64)	sk_triple=aarch64-linux-gnu ;;
i386)	sk_triple=i686-linux-gnu ;;
riscv)	sk_triple=riscv64-linux-gnu ;;
arm)	sk_triple=arm-linux-gnueabihf ;;
ppc64le) sk_triple=powerpc64le-linux-gnu ;;
*)	sk_triple=x86_64-linux-gnu ;;
esac
case $(uname -m) in
aarch64) sk_native=arm64 ;;
i?86)	 sk_native=i386 ;;
riscv64) sk_native=riscv ;;
armv7*)	 sk_native=arm ;;
*)	 sk_native=x86 ;;
esac
# ARCH=generic is this machine's architecture built without a patcher.
case ${BUILDARCH:-$SRCARCH} in
"$sk_native"|generic) sk_prefix= ;;
*)	sk_prefix=$sk_triple- ;;
esac

# musl (make CC=musl-gcc) has its own C driver and no C++ library or clang
# set-up in Debian: its one compiler is CC.
sk_compilers() {
	if [ "$SK_LIBC" = musl ]; then echo "$CC"; else echo gcc g++ clang clang++; fi
}
# The C compiler of the build's C library.
sk_c_compiler() { set -- $(sk_compilers); echo "$1"; }

# sk_compiler NAME: the command line of gcc, g++, clang or clang++ that
# builds for SRCARCH.
sk_compiler() {
	if [ "$SK_LIBC" = musl ]; then echo "$CC"; return; fi
	case $1 in
	gcc|g++) echo "$sk_prefix$1 $ARCH_CFLAGS" ;;
	clang|clang++)
		if [ -n "$sk_prefix" ]; then echo "$1 --target=$sk_triple $ARCH_CFLAGS"
		else echo "$1 $ARCH_CFLAGS"; fi ;;
	esac
}

# sk_old_compiler: a compiler without asm goto, as a command line, and its
# name on the next line: clang 8, or for musl its gcc posing as gcc 4.4.
sk_old_compiler() {
	if [ "$SK_LIBC" = musl ]; then
		echo "$CC -U__GNUC__ -D__GNUC__=4 -U__GNUC_MINOR__ -D__GNUC_MINOR__=4 -Wno-builtin-macro-redefined"
		echo "gcc 4.4"
	else
		echo "$(sk_compiler clang) -U__clang_major__ -D__clang_major__=8 -Wno-builtin-macro-redefined"
		echo "clang 8"
	fi
}

# How a program links the library of this build (no linker script).
SK_LIBS="-L$objtree -Wl,-rpath,$objtree -lstatickeys"

# gold has no riscv target, and lld 14 no riscv linker relaxation: it
# cannot link Debian's own Scrt1.o (R_RISCV_ALIGN), let alone a site.
sk_linkers() {
	case ${BUILDARCH:-$SRCARCH} in
	riscv)	echo bfd ;;
	*)	echo bfd gold lld ;;
	esac
}

# sk_linker_flags NAME: the driver flags that link with bfd, gold or lld.
# A cross gcc looks for ld.lld only under its own prefix: show it lld's
# directory.
sk_linker_flags() {
	local lld
	echo "-fuse-ld=$1"
	if [ "$1" = lld ] && [ -n "$sk_prefix" ]; then
		lld=$(readlink -f "$(command -v ld.lld)")
		echo "-B${lld%/*}/"
	fi
}

# sk_linked_by FILE: bfd, gold or lld, from the marks each leaves.
sk_linked_by() {
	local sections
	sections=$(${READELF:-readelf} -SW "$1")
	if ${READELF:-readelf} -p .comment "$1" 2>/dev/null | grep -q 'LLD'; then
		echo lld
	elif echo "$sections" | grep -q '\.note\.gnu\.gold-version'; then
		echo gold
	else
		echo bfd
	fi
}

# The test program of selftests/toolchain: what tc_prog prints when every
# site, across objects, followed its key and the _RO key is sealed.
tc_src=$srctree/selftests/toolchain
tc_expect="start true=1 false=0 arr=0 lib=0 libsite=0
flipped true=0 false=1 arr=1 lib=1 libsite=1
err=0 param=1
ro refused=1 site=0 store=fault"

# tc_build DIR CC CFLAGS LIBS [HOW]: build DIR/libtc.so and DIR/tc_prog
# with the compiler command CC; CFLAGS go before the sources, LIBS after
# them (as a Makefile's CFLAGS/LDFLAGS and LDLIBS).  The log is DIR/cc.log.
# HOW builds them another way:
#   partial  tc_prog.o goes through a relocatable link (cc -r, ld -r) first
#   archive  tc_lib.c is a member of the static archive libtc.a, next to
#            tc_unused.c, which the program does not pull in
#   versions libtc.so exports its symbols under a version (TC_1)
tc_build() {
	local d=$1 cc=$2 cflags=$3 libs=$4 how=${5:-}
	local prog="$tc_src/tc_prog.c" lib="-L$d -Wl,-rpath,$d -ltc" so=
	mkdir -p "$d"
	{ case $how in
	  partial)
		$cc $cflags -fPIE -I"$tc_src" -I"$srctree/selftests/lib" \
			-c "$prog" -o "$d/tc_prog.o" &&
		# Only the linker choice: the rest is for the final link.
		$cc $(printf '%s\n' $cflags | grep -E '^-(fuse-ld=|B)') -r \
			-nostdlib "$d/tc_prog.o" -o "$d/tc_prog_r.o" &&
		prog=$d/tc_prog_r.o ;;
	  archive)
		$cc $cflags -fPIE -I"$tc_src" -c "$tc_src/tc_lib.c" -o "$d/tc_lib.o" &&
		$cc $cflags -fPIE -I"$tc_src" -c "$tc_src/tc_unused.c" -o "$d/tc_unused.o" &&
		${AR:-ar} rcs "$d/libtc.a" "$d/tc_lib.o" "$d/tc_unused.o" &&
		lib=$d/libtc.a ;;
	  versions)
		printf 'TC_1 { global: tc_lib_key; tc_lib_site; local: *; };\n' \
			> "$d/tc.map"
		so=-Wl,--version-script="$d/tc.map" ;;
	  esac &&
	  { [ "$how" = archive ] ||
	    $cc $cflags -fPIC -shared $so -I"$tc_src" "$tc_src/tc_lib.c" \
		-o "$d/libtc.so" $libs; } &&
	  $cc $cflags -fPIE -pie -I"$tc_src" -I"$srctree/selftests/lib" \
		"$prog" -o "$d/tc_prog" $lib $libs; } > "$d/cc.log" 2>&1
}

# tc_run DIR WHAT: run DIR/tc_prog (under RUNNER) and check what it prints.
tc_run() {
	local d=$1 out rc
	out=$(STATICKEYS_CMDLINE=tc_param=1 $RUNNER "$d/tc_prog" 2>"$d/err.log")
	rc=$?
	if [ $rc -ne 0 ] || [ "$out" != "$tc_expect" ]; then
		echo "$out" | tap_diag
		tap_diag < "$d/err.log"
	fi
	tap_ok $([ $rc -eq 0 ] && [ "$out" = "$tc_expect" ]; echo $?) "$2"
}

# sk_skip_if_sanitized N: under SANITIZE=, skip the N checks and exit.  The
# library then needs its sanitizer's runtime loaded first, which the
# programs these tests build with other compilers and flags do not have.
sk_skip_if_sanitized() {
	local i
	[ -n "${SANITIZE:-}" ] || return 0
	for i in $(seq "$1"); do
		tap_skip "SANITIZE=$SANITIZE: the library needs the sanitizer runtime in the program" "toolchain $i"
	done
	tap_exit
}
