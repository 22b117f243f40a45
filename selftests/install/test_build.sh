# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The build's own habits: one ARCH per output directory (a switch stops with
# what to do), ARCH=x86_64 as the kernel takes it, `make -s` silent, and
# the test targets asking scripts/install-deps for Debian packages, and the
# build (make, make install) asking nothing: without kconfig-conf it takes
# the committed defaults, and what needs a missing tool says which.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A make of our own, not a sub-make of the one running the tests.
sk_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u ARCH -u SRCARCH -u BUILDARCH \
		-u CROSS_COMPILE -u CC -u CXX -u OBJDUMP -u NM -u READELF -u RUNNER \
		-u Q -u objtree -u ARCH_CFLAGS -u SK_LIBC -u KCONFIG_FRAGMENT -u LLVM \
		make -C "$srctree" --no-print-directory "$@"
}

tap_plan 16

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

# 6-7: the build never asks install-deps; the test targets do, for the
# right groups.
sk_make -n O="$tmp/deps" INSTALL_DEPS='echo install-deps' lib install defconfig \
	> "$tmp/deps-n.log" 2>&1
grep '^echo install-deps' "$tmp/deps-n.log" | tap_diag
tap_ok $(! grep -q '^echo install-deps' "$tmp/deps-n.log"; echo $?) \
	"make lib, make install and make defconfig never run install-deps"
sk_make -n O="$tmp/deps-arm64" ARCH=arm64 C=1 INSTALL_DEPS='echo install-deps' selftests \
	> "$tmp/deps.log" 2>&1
grep '^echo install-deps' "$tmp/deps.log" | tap_diag
tap_ok $(grep -q '^echo install-deps build  *arm64  *sparse' "$tmp/deps.log"; echo $?) \
	"make ARCH=arm64 C=1 selftests asks for the build, arm64 and sparse groups"

# 8-10: no kconfig-conf (a name that is not installed), and an install-deps
# that would fail if asked: make and make install still work, with the
# committed defaults, the same configuration kconfig-conf made in 4.
nokc="KCONFIG_CONF=$tmp/none/kconfig-conf KCONFIG_MCONF=$tmp/none/kconfig-mconf INSTALL_DEPS=false"
o=$tmp/nokconfig
# shellcheck disable=SC2086
sk_make -s -j2 O="$o" ARCH=x86_64 $nokc > "$tmp/nokc.log" 2>&1 &&
	sk_make -s O="$o" ARCH=x86_64 $nokc install DESTDIR="$tmp/stage" PREFIX=/usr \
	>> "$tmp/nokc.log" 2>&1
rc=$?
tap_diag < "$tmp/nokc.log"
tap_ok $([ $rc -eq 0 ] && [ -e "$o/libstatickeys.so.1" ] &&
	[ -e "$tmp/stage/usr/include/statickeys/statickeys/config.h" ]; echo $?) \
	"without kconfig-conf and install-deps, make and make install DESTDIR= work"
tap_ok $(cmp -s "$o/.config" "$srctree/scripts/kconfig-defaults/x86/config" &&
	cmp -s "$o/include/generated/autoconf.h" "$srctree/scripts/kconfig-defaults/x86/autoconf.h"; echo $?) \
	"and take .config and autoconf.h from scripts/kconfig-defaults/x86"
diff <(grep '^#define' "$tmp/x86_64/include/generated/autoconf.h") \
	<(grep '^#define' "$o/include/generated/autoconf.h") > "$tmp/defines.diff"
rc=$?
tap_diag < "$tmp/defines.diff"
tap_ok $rc "the same #defines as kconfig-conf made for make ARCH=x86_64 (4)"

# 11-13: what needs kconfig says so, naming the tool and its package, and
# writes nothing.
echo 'CONFIG_JUMP_LABEL=n' > "$tmp/frag"
# shellcheck disable=SC2086
sk_make O="$tmp/frag-o" ARCH=x86_64 $nokc KCONFIG_FRAGMENT="$tmp/frag" lib > "$tmp/frag.log" 2>&1
rc=$?
tap_diag < "$tmp/frag.log"
tap_ok $([ $rc -ne 0 ] && grep -q '^make: KCONFIG_FRAGMENT=.* needs .*kconfig-conf, which is not installed' "$tmp/frag.log" &&
	grep -q kconfig-frontends "$tmp/frag.log" && [ ! -e "$tmp/frag-o/.config" ]; echo $?) \
	"KCONFIG_FRAGMENT= without kconfig-conf stops, naming it and kconfig-frontends, no .config"
# shellcheck disable=SC2086
sk_make O="$tmp/menu-o" ARCH=x86_64 $nokc menuconfig > "$tmp/menu.log" 2>&1
rc=$?
tap_diag < "$tmp/menu.log"
tap_ok $([ $rc -ne 0 ] && grep -q '^make: make menuconfig needs .*kconfig-mconf, which is not installed' "$tmp/menu.log" &&
	grep -q kconfig-frontends "$tmp/menu.log"; echo $?) \
	"make menuconfig without kconfig-mconf stops, naming it and kconfig-frontends"
sed -i 's/^CONFIG_JUMP_LABEL=y$/# CONFIG_JUMP_LABEL is not set/' "$o/.config"
# shellcheck disable=SC2086
sk_make O="$o" ARCH=x86_64 $nokc lib > "$tmp/edited.log" 2>&1
rc=$?
tap_diag < "$tmp/edited.log"
tap_ok $([ $rc -ne 0 ] && grep -q 'is not the default configuration of ARCH=x86' "$tmp/edited.log" &&
	grep -q '^#define CONFIG_JUMP_LABEL 1' "$o/include/generated/autoconf.h"; echo $?) \
	"an edited .config without kconfig-conf stops, and autoconf.h is left as it was"

# 14: no compiler: the message names it and what the build needs.
sk_make O="$tmp/nocc" ARCH=x86_64 CC="$tmp/none/gcc" INSTALL_DEPS=false lib > "$tmp/nocc.log" 2>&1
rc=$?
tap_diag < "$tmp/nocc.log"
tap_ok $([ $rc -ne 0 ] && grep -q "needs $tmp/none/gcc, which is not installed: the build needs a C compiler, binutils and make" "$tmp/nocc.log"; echo $?) \
	"without the compiler, make names it and what the build needs"

# 15-16: install-deps where there is no dpkg (a PATH without it): it names
# the commands that are missing, not Debian packages, and fails; with them
# all there it lets the target run.
mkdir -p "$tmp/path"
for t in gcc g++ ld; do ln -s "$(command -v $t)" "$tmp/path/$t"; done
PATH=$tmp/path /bin/bash "$srctree/scripts/install-deps" build > "$tmp/nodpkg.log" 2>&1
rc=$?
tap_diag < "$tmp/nodpkg.log"
tap_ok $([ $rc -ne 0 ] && grep -q '^install-deps: no dpkg here' "$tmp/nodpkg.log" &&
	grep -qx 'install-deps: commands: make kconfig-conf kconfig-mconf' "$tmp/nodpkg.log" &&
	! grep -q 'apt-get\|kconfig-frontends\|not found' "$tmp/nodpkg.log"; echo $?) \
	"install-deps without dpkg names the missing commands and fails"
for t in make kconfig-conf kconfig-mconf; do
	printf '#!/bin/sh\nexit 0\n' > "$tmp/path/$t" && chmod +x "$tmp/path/$t"
done
PATH=$tmp/path /bin/bash "$srctree/scripts/install-deps" build > "$tmp/nodpkg2.log" 2>&1
rc=$?
tap_diag < "$tmp/nodpkg2.log"
tap_ok $([ $rc -eq 0 ] && [ ! -s "$tmp/nodpkg2.log" ]; echo $?) \
	"install-deps without dpkg, everything there: silent, success"
tap_exit
