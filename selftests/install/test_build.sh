# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The build's own habits: one ARCH per output directory (a switch stops with
# what to do), ARCH=x86_64 as the kernel takes it, `make -s` silent, and
# every target that needs Debian packages asking scripts/install-deps.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A make of our own, not a sub-make of the one running the tests.
sk_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u ARCH -u SRCARCH -u CROSS_COMPILE \
		-u CC -u CXX -u OBJDUMP -u NM -u READELF -u RUNNER -u Q -u objtree \
		make -C "$srctree" --no-print-directory "$@"
}

tap_plan 7

# 1-2: an arm64 configuration, then a plain (native) make in the same O=.
o=$tmp/switch
sk_make -s O="$o" ARCH=arm64 defconfig > "$tmp/log" 2>&1
sk_make O="$o" lib > "$tmp/switch.log" 2>&1
rc=$?
tap_diag < "$tmp/switch.log"
tap_ok $([ $rc -ne 0 ] && grep -q 'holds an ARCH=arm64 build' "$tmp/switch.log" &&
	grep -q 'mrproper' "$tmp/switch.log"; echo $?) \
	"make after make ARCH=arm64 in one O= stops and says what to do"
objs=$(find "$o" -name '*.o' | wc -l)
tap_ok $([ "$objs" -eq 0 ] && grep -q '^CONFIG_ARM64=y' "$o/.config"; echo $?) \
	"and it built nothing ($objs objects), the arm64 .config is left as it was"

# 3: mrproper is what the message offers; it must get past the check.
sk_make -s O="$o" mrproper > "$tmp/log" 2>&1
tap_ok $([ $? -eq 0 ] && [ ! -e "$o" ]; echo $?) "make mrproper in that O= still works"

# 4-5: ARCH=x86_64 names the x86 tree; make -s prints nothing.
o=$tmp/x86_64
sk_make -s -j2 O="$o" ARCH=x86_64 lib > "$tmp/x86_64.log" 2>&1
rc=$?
tap_diag < "$tmp/x86_64.log"
tap_ok $([ $rc -eq 0 ] && grep -q '^CONFIG_X86_64=y' "$o/.config" &&
	[ -e "$o/libstatickeys.so.1" ]; echo $?) "make ARCH=x86_64 builds the x86 library"
tap_ok $([ ! -s "$tmp/x86_64.log" ]; echo $?) "make -s prints nothing ($(wc -l < "$tmp/x86_64.log") lines)"

# 6-7: the targets that need packages ask install-deps for the right groups.
sk_make O="$tmp/deps" INSTALL_DEPS='echo install-deps' defconfig > "$tmp/deps.log" 2>&1
sk_make O="$tmp/deps" INSTALL_DEPS='echo install-deps' -n install > "$tmp/deps-n.log" 2>&1
grep install-deps "$tmp/deps.log" "$tmp/deps-n.log" | tap_diag
tap_ok $(grep -q '^install-deps build *$' "$tmp/deps.log" &&
	grep -q '^echo install-deps build *$' "$tmp/deps-n.log"; echo $?) \
	"make defconfig and make install ask install-deps for the build group"
sk_make -n O="$tmp/deps-arm64" ARCH=arm64 C=1 INSTALL_DEPS='echo install-deps' lib \
	> "$tmp/deps.log" 2>&1
grep install-deps "$tmp/deps.log" | tap_diag
tap_ok $(grep -q 'install-deps build  *arm64  *sparse' "$tmp/deps.log"; echo $?) \
	"make ARCH=arm64 C=1 asks for the build, arm64 and sparse groups"
tap_exit
