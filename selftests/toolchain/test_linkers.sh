# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Against an installed library (make install DESTDIR=...): pkg-config's
# output is repeatable and order-independent; a program and a shared object
# linked with bfd, gold and lld, the pkg-config flags given twice as in an
# ordinary Makefile, patch their sites and seal their read-only key; the
# same in every linker mode of tc_modes below (garbage collection,
# identical code folding, partial links, archives, versions...); and the
# installed configuration leaves a compiler without asm goto or without
# SHF_GNU_RETAIN the fallback instead of forcing CONFIG_JUMP_LABEL on it.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
. "$srctree/selftests/toolchain/toolchain.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

# Linker modes: NAME, the linkers that have it, then the flags (or, after
# "how=", a tc_build way).  Documentation/tools.rst has the table.
tc_modes='gc	bfd gold lld	-ffunction-sections -fdata-sections -Wl,--gc-sections
icf	gold lld	-ffunction-sections -Wl,--icf=all
as-needed	bfd gold lld	-Wl,--as-needed
separate-code	bfd lld	-Wl,-z,separate-code
relro-now	bfd gold lld	-Wl,-z,relro,-z,now
hidden	bfd gold lld	-fvisibility=hidden
no-plt	bfd gold lld	-fno-plt
ld-r	bfd gold lld	how=partial
ld-r-gc	bfd gold lld	-ffunction-sections -Wl,--gc-sections how=partial
archive	bfd gold lld	-ffunction-sections -Wl,--gc-sections how=archive
versions	bfd gold lld	how=versions'
# Each mode with the linkers of its row that this architecture has.  lld 14
# does not know ppc64's -fno-plt call sequence (R_PPC64_PLTSEQ, PLTCALL).
avail=" $(sk_linkers) "
tc_modes=$(echo "$tc_modes" | while IFS='	' read -r mode lds mflags; do
	have=
	for ld in $lds; do
		[ "$mode:$ld:${BUILDARCH:-$SRCARCH}" = no-plt:lld:ppc64le ] && continue
		case $avail in *" $ld "*) have="$have $ld" ;; esac
	done
	[ -n "$have" ] && printf '%s\t%s\t%s\n' "$mode" "${have# }" "$mflags"
done)
nmodes=$(echo "$tc_modes" | awk -F'\t' '{ n += split($2, l, " ") } END { print n }')
set -- $(sk_linkers)

tap_plan $((4 + 2 * $# + 2 * nmodes + 5))
sk_skip_if_sanitized $((4 + 2 * $# + 2 * nmodes + 5))
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

# The compiler of this configuration: gcc, or clang when it is LLVM=1's.
case $CC in *clang*) cc=$(sk_compiler clang) ;; *) cc=$(sk_compiler gcc) ;; esac
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

# Every mode, with each linker that has it.
while IFS='	' read -r mode lds mflags; do
	how=
	case $mflags in *how=*) how=${mflags##*how=}; mflags=${mflags%how=*} ;; esac
	for ld in $lds; do
		d=$tmp/$mode-$ld
		tc_build "$d" "$cc" "-O2 $mflags $flags $(sk_linker_flags "$ld")" "$flags" "$how"
		rc=$?
		tap_diag < "$d/cc.log"
		tap_ok $rc "$mode, $ld (${cc%% *}): links ($mflags${how:+how=$how})"
		tc_run "$d" "$mode, $ld: sites flip, boot parameters run, the _RO key is sealed"
	done
done <<EOF
$tc_modes
EOF

# A compiler without asm goto (clang before 9, gcc before 4.5): the
# installed configuration must not define CONFIG_JUMP_LABEL for it, and
# the fallback must work.
{ read -r old; read -r old_name; } < <(sk_old_compiler)
printf '#include <linux/jump_label.h>\n#ifdef CONFIG_JUMP_LABEL\n#error forced\n#endif\n' \
	> "$tmp/old.c"
$old $a -c "$tmp/old.c" -o "$tmp/old.o" > "$tmp/old.log" 2>&1
tap_ok $? "the installed config.h leaves CONFIG_JUMP_LABEL off for $old_name"
tap_diag < "$tmp/old.log"
# clang 9 to 12 have asm goto but no SHF_GNU_RETAIN: the fallback too
# (musl has no clang set-up in Debian: nothing to ask it).
if [ "$SK_LIBC" = musl ]; then
	tap_skip "musl: no clang to build with" "the fallback for clang 12"
	tap_skip "musl: no clang to build with" "clang 12 forced on stops the build"
else
	c12=$(sk_compiler clang)
	c12="$c12 -U__clang_major__ -D__clang_major__=12 -Wno-builtin-macro-redefined"
	$c12 $a -c "$tmp/old.c" -o "$tmp/old.o" > "$tmp/old.log" 2>&1
	tap_ok $? "and for clang 12, which cannot keep __jump_table from --gc-sections"
	tap_diag < "$tmp/old.log"
	# Forced on for clang 12, the build must stop and say why.
	printf '#include <linux/jump_label.h>\n' > "$tmp/forced.c"
	$c12 -DCONFIG_JUMP_LABEL=1 $a -c "$tmp/forced.c" -o "$tmp/old.o" > "$tmp/old.log" 2>&1
	rc=$?
	tap_ok $([ $rc -ne 0 ] && grep -q 'needs clang 13.*--gc-sections' "$tmp/old.log"; echo $?) \
		"CONFIG_JUMP_LABEL forced on for clang 12 stops the build, naming --gc-sections"
	tap_diag < "$tmp/old.log"
fi
d=$tmp/old
tc_build "$d" "$old" "$flags" "$flags"
rc=$?
[ $rc -eq 0 ] && ${READELF:-readelf} -S "$d/tc_prog" | grep -q __jump_table && rc=1
tap_diag < "$d/cc.log"
tap_ok $rc "$old_name builds the program with the fallback (no __jump_table)"
tc_run "$d" "the fallback program runs against the installed library: same results"
tap_exit
