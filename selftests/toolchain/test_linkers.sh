# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Against an installed library (make install DESTDIR=...): pkg-config's
# output is repeatable and order-independent; a program and a shared object
# linked with bfd, gold and lld, the pkg-config flags given twice as in an
# ordinary Makefile, patch their sites and seal their read-only key; and
# the installed configuration leaves a compiler without asm goto the
# fallback instead of forcing CONFIG_JUMP_LABEL on it.
. "$srctree/selftests/lib/tap.sh"
. "$srctree/selftests/toolchain/toolchain.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

set -- $(sk_linkers)
tap_plan $((4 + 2 * $# + 3))
sk_skip_if_sanitized $((4 + 2 * $# + 3))
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$srctree" O="$objtree" \
	ARCH="${ARCH:-$SRCARCH}" DESTDIR="$dest" PREFIX=/usr install \
	> "$tmp/install.log" 2>&1
tap_ok $? "make install DESTDIR=... PREFIX=/usr"
tap_diag < "$tmp/install.log"
tap_ok $([ -f "$dest/usr/share/statickeys/statickeys.gdb" ]; echo $?) \
	"the gdb script is installed as share/statickeys/statickeys.gdb"

export PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig
export PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$dest
a=$($PKG_CONFIG --cflags --libs statickeys)
b=$($PKG_CONFIG --cflags --libs statickeys)
c=$($PKG_CONFIG --libs --cflags statickeys)
echo "pkg-config --cflags --libs: $a" | tap_diag
tap_ok $([ -n "$a" ] && [ "$a" = "$b" ]; echo $?) "pkg-config --cflags --libs is repeatable"
sorted() { tr ' ' '\n' | grep . | sort; }
tap_ok $([ "$(echo "$a" | sorted)" = "$(echo "$c" | sorted)" ]; echo $?) \
	"pkg-config --libs --cflags gives the same flags"

cc=$(sk_compiler "$(sk_c_compiler)")
flags="$a -Wl,-rpath,$dest/usr/lib"
for ld in $(sk_linkers); do
	d=$tmp/$ld
	# $flags twice: LDFLAGS and LDLIBS both carry pkg-config's output.
	tc_build "$d" "$cc" "$flags $(sk_linker_flags "$ld")" "$flags"
	rc=$?
	if [ $rc -eq 0 ]; then
		by="$(sk_linked_by "$d/libtc.so") $(sk_linked_by "$d/tc_prog")"
		[ "$by" = "$ld $ld" ] || { echo "linked by: $by" >> "$d/cc.log"; rc=1; }
	fi
	tap_diag < "$d/cc.log"
	tap_ok $rc "$ld: links a program and a shared object, pkg-config flags given twice"
	tc_run "$d" "$ld: sites flip, across objects; the _RO key is sealed and write-protected"
done

# A compiler without asm goto (clang before 9, gcc before 4.5): the
# installed configuration must not define CONFIG_JUMP_LABEL for it, and
# the fallback must work.
{ read -r old; read -r old_name; } < <(sk_old_compiler)
printf '#include <linux/jump_label.h>\n#ifdef CONFIG_JUMP_LABEL\n#error forced\n#endif\n' \
	> "$tmp/old.c"
$old $a -c "$tmp/old.c" -o "$tmp/old.o" > "$tmp/old.log" 2>&1
tap_ok $? "the installed config.h leaves CONFIG_JUMP_LABEL off for $old_name"
tap_diag < "$tmp/old.log"
d=$tmp/old
tc_build "$d" "$old" "$flags" "$flags"
rc=$?
[ $rc -eq 0 ] && ${READELF:-readelf} -S "$d/tc_prog" | grep -q __jump_table && rc=1
tap_diag < "$d/cc.log"
tap_ok $rc "$old_name builds the program with the fallback (no __jump_table)"
tc_run "$d" "the fallback program runs against the installed library: same results"
tap_exit
