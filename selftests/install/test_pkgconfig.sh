# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# `make install` of this build into a DESTDIR, a program built outside the
# tree with pkg-config against it and run, then `make uninstall` leaves nothing.
# As distribution packaging does it: `make` first (default prefix), then
# `make install DESTDIR= PREFIX=/usr`, and again with a multiarch LIBDIR.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

# A make of our own, not a sub-make of the one running the tests.
sk_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
		make -s -C "$srctree" O="$objtree" ARCH="${ARCH:-$SRCARCH}" "$@"
}

# libstatickeys-kstack, where the configuration builds it.
kstack=$(grep -qx 'CONFIG_HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET=y' "$objtree/.config" 2>/dev/null && echo y)
tap_plan 14
# The build a packager runs first writes the .pc for the default prefix.
sk_make all > "$tmp/install.log" 2>&1 &&
	sk_make install DESTDIR="$dest" PREFIX=/usr >> "$tmp/install.log" 2>&1
rc=$?
tap_diag < "$tmp/install.log"
pc=$dest/usr/lib/pkgconfig/statickeys.pc
tap_ok $(( rc != 0 )) "make install DESTDIR=... PREFIX=/usr"
missing=""
# An architecture without a patcher (ARCH=generic) has no <asm/jump_label.h>.
asm_jl=
[ -e "$srctree/arch/$SRCARCH/include/asm/jump_label.h" ] &&
	asm_jl=usr/include/statickeys/asm/jump_label.h
for f in usr/lib/libstatickeys.so usr/lib/libstatickeys.so.1 usr/lib/libstatickeys.a \
	usr/lib/pkgconfig/statickeys.pc \
	usr/include/statickeys/linux/jump_label.h $asm_jl \
	usr/include/statickeys/statickeys/statickeys.h usr/include/statickeys/statickeys/config.h; do
	[ -e "$dest/$f" ] || missing="$missing $f"
done
tap_ok $([ -z "$missing" ]; echo $?) "library, headers and .pc installed${missing:+ (missing:$missing)}"
if [ -n "$kstack" ]; then
	missing=""
	for f in usr/lib/libstatickeys-kstack.so usr/lib/libstatickeys-kstack.so.1 \
		usr/lib/libstatickeys-kstack.a usr/lib/pkgconfig/statickeys-kstack.pc \
		usr/include/statickeys/linux/randomize_kstack.h; do
		[ -e "$dest/$f" ] || missing="$missing $f"
	done
	tap_ok $([ -z "$missing" ]; echo $?) \
		"libstatickeys-kstack and statickeys-kstack.pc installed${missing:+ (missing:$missing)}"
else
	tap_skip "no HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET" "libstatickeys-kstack installed"
fi

# Every path in the .pc file is relative to ${prefix}.
bad=$(grep -E '^(exec_prefix|libdir|includedir)=' "$pc" 2>/dev/null | grep -v '=\${\(prefix\|exec_prefix\)}')
grep -E '^[a-z_]+=' "$pc" 2>/dev/null | tap_diag
tap_ok $([ -f "$pc" ] && [ -z "$bad" ] && grep -q '^prefix=/usr$' "$pc"; echo $?) \
	"statickeys.pc: prefix=/usr, every other path relative to \${prefix}${bad:+ (not: $bad)}"

export PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig
export PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$dest
cflags=$($PKG_CONFIG --cflags statickeys 2>&1)
libs=$($PKG_CONFIG --libs statickeys 2>&1)
echo "cflags: $cflags" | tap_diag
echo "libs: $libs" | tap_diag
version=$($PKG_CONFIG --modversion statickeys 2>/dev/null)
if [ -n "$kstack" ]; then
	klibs=$($PKG_CONFIG --libs statickeys-kstack 2>&1)
	echo "statickeys-kstack libs: $klibs" | tap_diag
	tap_ok $(echo " $klibs " | grep -q ' -lstatickeys-kstack .*-lstatickeys '; echo $?) \
		"pkg-config --libs statickeys-kstack: the consumer, then the core it requires"
else
	tap_skip "no HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET" "pkg-config statickeys-kstack"
fi
tap_ok $([ -n "$version" ] && case "$cflags $libs" in *"$dest"*) true ;; *) false ;; esac; echo $?) \
	"pkg-config finds statickeys $version in the DESTDIR"

# Built outside the tree: a copy of the source, nothing from $srctree on the path.
mkdir -p "$tmp/out"
cp "$srctree/selftests/install/sk_prog.c" "$tmp/out/"
(cd "$tmp/out" && $CC $cflags sk_prog.c -o sk_prog $libs -Wl,-rpath,"$dest/usr/lib") \
	> "$tmp/cc.log" 2>&1
rc=$?
tap_diag < "$tmp/cc.log"
tap_ok $rc "\$CC \$(pkg-config --cflags --libs statickeys) builds a program outside the tree"

out=$($RUNNER "$tmp/out/sk_prog" 2>"$tmp/err.log")
rc=$?
echo "$out" | tap_diag
tap_diag < "$tmp/err.log"
expect="version $version
start fast=1 trace=0
flipped fast=0 trace=1 err=0"
tap_ok $([ $rc -eq 0 ] && [ "$(echo "$out" | head -n 3)" = "$expect" ]; echo $?) \
	"it runs against the installed library: MAYBE keys start and flip as they should"
tap_ok $(echo "$out" | grep -qx 'ro refused=1 locked=0 store=fault'; echo $?) \
	"its _RO key is refused and write-protected (no linker script needed)"

# Debian's multiarch library directory, outside PREFIX/lib.
triplet=$($CC -print-multiarch 2>/dev/null)
triplet=${triplet:-x86_64-linux-gnu}
mdest=$tmp/multiarch
sk_make install DESTDIR="$mdest" PREFIX=/usr LIBDIR=/usr/lib/$triplet \
	> "$tmp/multiarch.log" 2>&1
rc=$?
tap_diag < "$tmp/multiarch.log"
mpc=$mdest/usr/lib/$triplet/pkgconfig/statickeys.pc
grep -E '^[a-z_]+=' "$mpc" 2>/dev/null | tap_diag
mpkg() {	# pkg-config reading the multiarch .pc only
	PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$mdest/usr/lib/$triplet/pkgconfig \
		PKG_CONFIG_SYSROOT_DIR= $PKG_CONFIG "$@" statickeys 2>&1
}
mlibdir=$(mpkg --variable=libdir)
tap_ok $([ $rc -eq 0 ] && [ -e "$mdest/usr/lib/$triplet/libstatickeys.so.1" ] &&
	grep -qx "libdir=\${prefix}/lib/$triplet" "$mpc" &&
	[ "$mlibdir" = "/usr/lib/$triplet" ]; echo $?) \
	"LIBDIR=/usr/lib/$triplet: library and .pc there, pkg-config says libdir=$mlibdir"
mincl=$(mpkg --cflags)
tap_ok $([ "$(echo $mincl)" = "-I/usr/include/statickeys${ARCH_CFLAGS:+ $ARCH_CFLAGS}" ]; echo $?) \
	"LIBDIR=/usr/lib/$triplet: cflags $mincl"
sk_make uninstall DESTDIR="$mdest" PREFIX=/usr LIBDIR=/usr/lib/$triplet \
	> "$tmp/multiarch.log" 2>&1
left=$(find "$mdest" ! -type d)
echo "$left" | grep . | sed 's/^/left: /' | tap_diag
tap_ok $([ -z "$left" ]; echo $?) "make uninstall LIBDIR=/usr/lib/$triplet leaves no file behind"

sk_make uninstall DESTDIR="$dest" PREFIX=/usr > "$tmp/uninstall.log" 2>&1
rc=$?
tap_diag < "$tmp/uninstall.log"
tap_ok $rc "make uninstall DESTDIR=... PREFIX=/usr"
left=$(find "$dest" ! -type d)
echo "$left" | grep . | sed 's/^/left: /' | tap_diag
tap_ok $([ -z "$left" ]; echo $?) "make uninstall leaves no file behind"
tap_exit
