# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# Compilers and linkers the toolchain tests try, for the configured
# architecture.  Sourced after selftests/lib/tap.sh.

# The cross prefix of a build for another architecture, if any.
case $SRCARCH in
arm64)	sk_triple=aarch64-linux-gnu ;;
*)	sk_triple=x86_64-linux-gnu ;;
esac
case $(uname -m) in
aarch64) sk_native=arm64 ;;
*)	 sk_native=x86 ;;
esac
if [ "$SRCARCH" = "$sk_native" ]; then sk_prefix=; else sk_prefix=$sk_triple-; fi

sk_compilers() { echo gcc g++ clang clang++; }

# sk_compiler NAME: the command line of gcc, g++, clang or clang++ that
# builds for SRCARCH.
sk_compiler() {
	case $1 in
	gcc|g++) echo "$sk_prefix$1" ;;
	clang|clang++)
		if [ -n "$sk_prefix" ]; then echo "$1 --target=$sk_triple"
		else echo "$1"; fi ;;
	esac
}

# How a program links the library of this build (no linker script).
SK_LIBS="-L$objtree -Wl,-rpath,$objtree -lstatickeys"
