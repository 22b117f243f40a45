# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The Kconfig tier of every architecture, selected the kernel's way: ARCH=
# picks the arch tree and its symbol, CONFIG_JUMP_LABEL defaults on, and
# only x86-64 and arm64 offer the kstack consumer (their entry code).  Also
# one output directory per architecture for ARCH=i386 inside the x86 tree,
# and each cross build's test targets asking install-deps for its own group.
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

arches="x86:X86_64 i386:X86_32 arm64:ARM64 riscv:RISCV arm:ARM"
tap_plan $((3 * 5 + 3 + 2 * 2 + 1))

for a in $arches; do
	arch=${a%%:*} sym=${a#*:} o=$tmp/$arch
	sk_make -s O="$o" ARCH="$arch" defconfig > "$tmp/$arch.log" 2>&1
	rc=$?
	tap_diag < "$tmp/$arch.log"
	tap_ok $([ $rc -eq 0 ] && grep -qx "CONFIG_$sym=y" "$o/.config" &&
		[ "$(grep -c '^CONFIG_\(X86_32\|X86_64\|ARM64\|RISCV\|ARM\)=y' "$o/.config")" -eq 1 ]
		echo $?) "make ARCH=$arch defconfig: CONFIG_$sym, no other architecture"
	tap_ok $(grep -qx 'CONFIG_JUMP_LABEL=y' "$o/.config"; echo $?) \
		"ARCH=$arch: CONFIG_JUMP_LABEL=y by default"
	case $arch in
	x86|arm64)
		tap_ok $(grep -qx 'CONFIG_RANDOMIZE_KSTACK_OFFSET=y' "$o/.config"; echo $?) \
			"ARCH=$arch: the kstack consumer is offered (and on)" ;;
	*)
		tap_ok $(! grep -q 'RANDOMIZE_KSTACK' "$o/.config"; echo $?) \
			"ARCH=$arch: the kstack consumer is not offered" ;;
	esac
done

# Without a patcher: arch/generic, the portable fallback, and a request for
# patching stops make with what to do.
for arch in generic ppc64le; do
	o=$tmp/$arch
	sk_make -s O="$o" ARCH="$arch" defconfig > "$tmp/$arch.log" 2>&1
	rc=$?
	tap_diag < "$tmp/$arch.log"
	tap_ok $([ $rc -eq 0 ] && grep -qx 'CONFIG_ARCH_GENERIC=y' "$o/.config" &&
		grep -qx "CONFIG_ARCH_GENERIC_NAME=\"$arch\"" "$o/.config" &&
		! grep -q '^CONFIG_\(X86_32\|X86_64\|ARM64\|RISCV\|ARM\)=y' "$o/.config"
		echo $?) "make ARCH=$arch defconfig: arch/generic, named $arch"
	tap_ok $(! grep -q '^CONFIG_JUMP_LABEL=y' "$o/.config"; echo $?) \
		"ARCH=$arch: CONFIG_JUMP_LABEL is not offered (no patcher)"
done
echo CONFIG_JUMP_LABEL=y > "$tmp/jl.fragment"
sk_make -s O="$tmp/generic-jl" ARCH=generic KCONFIG_FRAGMENT="$tmp/jl.fragment" \
	lib > "$tmp/jl.log" 2>&1
rc=$?
tap_diag < "$tmp/jl.log"
tap_ok $([ $rc -ne 0 ] && grep -q 'no instruction patcher: CONFIG_JUMP_LABEL=y cannot be built' "$tmp/jl.log"
	echo $?) "ARCH=generic with CONFIG_JUMP_LABEL=y stops and says what to do"

# An i386 directory is not an x86-64 one, although both are arch/x86.
sk_make O="$tmp/i386" ARCH=x86 lib > "$tmp/switch.log" 2>&1
rc=$?
tap_diag < "$tmp/switch.log"
tap_ok $([ $rc -ne 0 ] && grep -q 'holds an ARCH=i386 build' "$tmp/switch.log"; echo $?) \
	"make ARCH=x86 after make ARCH=i386 in one O= stops and says what to do"

# Each cross build's selftests ask for its own packages (the library alone
# asks nothing: it needs only the cross compiler).
ok=0
for arch in i386 riscv arm ppc64le; do
	sk_make -n O="$tmp/deps-$arch" ARCH="$arch" INSTALL_DEPS='echo install-deps' selftests \
		> "$tmp/deps.log" 2>&1
	grep -q "^echo install-deps build  *$arch\b" "$tmp/deps.log" || { ok=1; tap_diag < "$tmp/deps.log"; }
done
tap_ok $ok "make ARCH=i386|riscv|arm|ppc64le selftests asks install-deps for the build and that architecture's group"

# The installed Cflags carry what sites need on arm.
sk_make -s O="$tmp/arm" ARCH=arm "$tmp/arm/statickeys.pc" > "$tmp/pc.log" 2>&1
tap_diag < "$tmp/pc.log"
tap_ok $(grep -qx 'Cflags: -I${includedir}/statickeys -fdata-sections' "$tmp/arm/statickeys.pc"; echo $?) \
	"ARCH=arm: statickeys.pc's Cflags add -fdata-sections"
tap_exit
