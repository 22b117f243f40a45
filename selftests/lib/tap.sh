# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
# TAP helpers for shell selftests, and the compiler flags the tree uses.
# Sourced; expects srctree, objtree, SRCARCH, CC (and CXX) in the environment.

tap_n=0
tap_failed=0

tap_plan() { echo "TAP version 13"; echo "1..$1"; }

# tap_ok STATUS DESCRIPTION: STATUS 0 is a pass.
tap_ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $2 # SKIP $1"
}

tap_diag() { sed 's/^/# /'; }

tap_exit() { [ "$tap_failed" -eq 0 ]; exit $?; }

: "${CC:=gcc}" "${CXX:=g++}" "${SRCARCH:=x86}"
# glibc or musl: the C library CC builds for (scripts/Makefile.uapi).
: "${SK_LIBC:=glibc}"
# What a compiler needs for sites on this architecture (the Makefile's
# ARCH_CFLAGS, also in statickeys.pc's Cflags).
: "${ARCH_CFLAGS:=}"
SK_CPPFLAGS="-I$objtree/include -I$srctree/include -I$srctree/arch/$SRCARCH/include -include $objtree/include/generated/autoconf.h"
# The configuration's own answer, for tests whose expectations depend on it.
if grep -q '^#define CONFIG_JUMP_LABEL 1' "$objtree/include/generated/autoconf.h" 2>/dev/null; then
	SK_JUMP_LABEL=y
else
	SK_JUMP_LABEL=n
fi
