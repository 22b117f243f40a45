# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The installed tree from outside, as three kinds of project use it: a plain
# Makefile with pkg-config (examples/, each example built and run), CMake's
# find_package(statickeys CONFIG) with the shared and the static imported
# target (their flags exactly pkg-config's), and Meson's
# dependency('statickeys'), shared and static.  Each program flips a key and
# is run.  Also: a fully static program (-static) links, with no warning
# but glibc's two about dlopen() (statickeys(7), NOTES, says why), and
# the man pages as installed render without a warning.  Installed as a distribution stages it (DESTDIR, PREFIX=/usr,
# the multiarch LIBDIR), into a directory of the build.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"

# Where these programs cannot run, one skip says why.
skip_all() {
	tap_plan 1
	tap_skip "$1" "outside projects (Makefile, CMake, Meson) against the installed tree"
	tap_exit
}
host=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/^i[3-6]86$/i386/' -e 's/riscv64/riscv/' -e 's/^armv7.*/arm/')
[ -n "${SANITIZE:-}" ] &&
	skip_all "SANITIZE=$SANITIZE: the installed library needs the sanitizer runtime in the program"
[ "${BUILDARCH:-$SRCARCH}" = "$host" ] ||
	skip_all "ARCH=${BUILDARCH:-$SRCARCH} is not this machine's (CMake and Meson build natively)"
tap_plan 19

tmp=$objtree/selftests/install/consumers.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
: "${READELF:=readelf}"

# A make of our own, not a sub-make of the one running the tests.
sk_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
		make -s -C "$srctree" O="$objtree" ARCH="${ARCH:-$SRCARCH}" "$@"
}
# Runs "$@" with its output in $tmp/log, shown as diagnostics.
logged() {
	"$@" > "$tmp/log" 2>&1
	local rc=$?
	tap_diag < "$tmp/log"
	return $rc
}
# What flip.c prints when its key flipped.
flipped() {
	grep -q 'branch not taken, after static_branch_enable() taken$' "$tmp/log"
}

# Debian's multiarch directory is glibc's: a musl build installs in /usr/lib
# (where CMake also looks when the compiler names no multiarch, as
# musl-gcc does).
triplet=""
if [ "$SK_LIBC" = glibc ]; then
	triplet=$($CC -print-multiarch 2>/dev/null)
	triplet=${triplet:-$(gcc -print-multiarch 2>/dev/null)}
fi
dest=$tmp/dest
libdir=/usr/lib${triplet:+/$triplet}
logged sk_make install DESTDIR="$dest" PREFIX=/usr LIBDIR="$libdir"
rc=$?
cm=$dest$libdir/cmake/statickeys
tap_ok $([ $rc -eq 0 ] && [ -f "$cm/statickeysConfig.cmake" ] &&
	[ -f "$cm/statickeysConfigVersion.cmake" ]; echo $?) \
	"make install puts statickeysConfig.cmake and its version file in \$(LIBDIR)/cmake/statickeys"

export PKG_CONFIG_LIBDIR=$dest$libdir/pkgconfig PKG_CONFIG_PATH=
export PKG_CONFIG_SYSROOT_DIR=$dest
export LD_LIBRARY_PATH=$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cp "$srctree/samples/flip/flip.c" "$tmp/"

# 2-6: the examples, installed with the documentation, built by their own
# Makefile with pkg-config and run by its check target.
ex=$dest/usr/share/doc/statickeys/examples
missing=""
for f in Makefile plain.c maybe.c batch.c plugin.c plugin-host.c daemon.c; do
	[ -f "$ex/$f" ] || missing="$missing $f"
done
tap_ok $([ -z "$missing" ]; echo $?) \
	"the examples are installed in /usr/share/doc/statickeys/examples${missing:+ (missing:$missing)}"
cp -r "$ex" "$tmp/examples" 2>/dev/null || mkdir -p "$tmp/examples"
logged make -C "$tmp/examples" CC="$CC" PKG_CONFIG="$PKG_CONFIG" all check
tap_ok $? "plain Makefile + pkg-config: every example builds outside the tree, and its make check passes"
for t in plain:'work(2) traced' batch:'8 of 8 probes on' \
	 daemon:'debug logging off'; do
	p=${t%%:*}
	( cd "$tmp/examples" && ./"$p" ${p/#daemon/--demo} ) > "$tmp/log" 2>&1
	rc=$?
	tap_diag < "$tmp/log"
	tap_ok $([ $rc -eq 0 ] && grep -q "^${t#*:}" "$tmp/log"; echo $?) \
		"examples/$p runs and its key flips"
done
(
	cd "$tmp/examples" && ./maybe && STATICKEYS_CMDLINE="fast_path=off" ./maybe &&
	make -s CC="$CC" -B maybe FAST_PATH_DEFAULT_ON=n && ./maybe &&
	STATICKEYS_CMDLINE="fast_path=on" ./maybe && ./plugin-host ./plugin.so
) > "$tmp/log" 2>&1
rc=$?
tap_diag < "$tmp/log"
expect="default on, path fast
default on, path slow
default off, path slow
default off, path fast
plugin quiet, after plugin_set_verbose(1) verbose"
tap_ok $([ $rc -eq 0 ] && [ "$(grep -v '^cc\|^gcc\|^clang' "$tmp/log")" = "$expect" ]; echo $?) \
	"examples/maybe follows its Kconfig default and the boot parameter; examples/plugin-host loads plugin.so"

# 8-12: CMake, both imported targets.
if command -v cmake >/dev/null; then
	cp "$srctree/selftests/install/consumers/CMakeLists.txt" "$tmp/"
	logged cmake -S "$tmp" -B "$tmp/cmake" -DCMAKE_C_COMPILER="$CC" \
		-DCMAKE_PREFIX_PATH="$dest/usr" &&
		logged cmake --build "$tmp/cmake" -- VERBOSE=1
	rc=$?
	tap_ok $rc "CMake: find_package(statickeys 1.0 CONFIG) and both targets build"
	logged "$tmp/cmake/flip_shared"
	tap_ok $([ $? -eq 0 ] && flipped && $READELF -d "$tmp/cmake/flip_shared" |
		grep -q 'NEEDED.*libstatickeys\.so\.1'; echo $?) \
		"CMake: statickeys::statickeys links the shared library, and the program flips its key"
	logged "$tmp/cmake/flip_static"
	tap_ok $([ $? -eq 0 ] && flipped && ! $READELF -d "$tmp/cmake/flip_static" |
		grep -q 'NEEDED.*libstatickeys'; echo $?) \
		"CMake: statickeys::statickeys_static links libstatickeys.a, and the program flips its key"
	# The targets' flags against pkg-config's.
	tg=$tmp/cmake/targets.txt
	[ -f "$tg" ] || : > "$tg"
	tap_diag < "$tg"
	prop() { sed -n "s|^statickeys::$1 $2=||p" "$tg" | tr ';' ' '; }
	pc_inc=$($PKG_CONFIG --cflags-only-I statickeys | sed 's/-I//g')
	pc_opt=$($PKG_CONFIG --cflags-only-other statickeys)
	pc_priv=$($PKG_CONFIG --static --libs statickeys | tr ' ' '\n' |
		grep -v '^-L\|^-lstatickeys$\|^$' | tr '\n' ' ')
	cm_priv="$(prop statickeys_static INTERFACE_LINK_OPTIONS) $(prop statickeys_static INTERFACE_LINK_LIBRARIES | sed 's/\([^ ]\+\)/-l\1/g')"
	bad=""
	for t in statickeys statickeys_static; do
		[ "$(realpath -m "$(prop $t INTERFACE_INCLUDE_DIRECTORIES)/")" = "$(echo $pc_inc)" ] ||
			bad="$bad $t:include"
		[ "$(echo $(prop $t INTERFACE_COMPILE_OPTIONS))" = "$(echo $pc_opt)" ] ||
			bad="$bad $t:cflags"
	done
	[ "$(echo $cm_priv)" = "$(echo $pc_priv)" ] || bad="$bad statickeys_static:link"
	[ -z "$(prop statickeys INTERFACE_LINK_LIBRARIES)$(prop statickeys INTERFACE_LINK_OPTIONS)" ] ||
		bad="$bad statickeys:link"
	echo "pkg-config: -I$pc_inc [$pc_opt] static extras [$pc_priv]; cmake static extras [$cm_priv]" | tap_diag
	tap_ok $([ -z "$bad" ]; echo $?) \
		"CMake: the targets carry exactly pkg-config's include path, cflags and Libs.private${bad:+ (differ:$bad)}"
	logged cmake -S "$tmp" -B "$tmp/cmake2" -DCMAKE_C_COMPILER="$CC" \
		-DCMAKE_PREFIX_PATH="$dest/usr" -DSK_WANT=2.0
	tap_ok $([ $? -ne 0 ] && grep -q 'statickeysConfig.cmake, version: 1\.' "$tmp/log"; echo $?) \
		"CMake: find_package(statickeys 2.0) finds 1.x and its version file refuses it"
else
	for d in "find_package builds" "shared target" "static target" "flags" "version"; do
		tap_skip "cmake is not installed (scripts/install-deps check)" "CMake: $d"
	done
fi

# 13-15: Meson, through pkg-config.
if command -v meson >/dev/null && command -v ninja >/dev/null; then
	mkdir -p "$tmp/meson"
	cp "$srctree/selftests/install/consumers/meson.build" "$tmp/flip.c" "$tmp/meson/"
	CC=$CC logged meson setup "$tmp/meson" "$tmp/meson/build" &&
		logged ninja -C "$tmp/meson/build"
	tap_ok $? "Meson: dependency('statickeys'), shared and static: true, builds"
	logged "$tmp/meson/build/flip_shared"
	tap_ok $([ $? -eq 0 ] && flipped && $READELF -d "$tmp/meson/build/flip_shared" |
		grep -q 'NEEDED.*libstatickeys\.so\.1'; echo $?) \
		"Meson: the shared program flips its key"
	logged "$tmp/meson/build/flip_static"
	tap_ok $([ $? -eq 0 ] && flipped && ! $READELF -d "$tmp/meson/build/flip_static" |
		grep -q 'NEEDED.*libstatickeys'; echo $?) \
		"Meson: the static program (libstatickeys.a) flips its key"
else
	for d in "builds" "shared program" "static program"; do
		tap_skip "meson or ninja is not installed (scripts/install-deps check)" "Meson: $d"
	done
fi

# 16-17: the man pages, as installed (the ".so" pages of the other names
# included), render without a warning.
mandir=$dest/usr/share/man
pages=$(cd "$mandir" 2>/dev/null && ls man1/statickeys-keys.1 man3/*.3 man7/*.7 2>/dev/null)
missing=""
for p in man3/static_branch_enable.3 man3/static_branch_disable.3 man3/static_key_enabled.3 \
	 man3/static_branch_likely.3 man3/DEFINE_STATIC_KEY_FALSE.3 man3/DEFINE_STATIC_KEY_MAYBE.3 \
	 man3/static_branch_maybe.3 man3/statickeys_batch_begin.3 man3/early_param.3 \
	 man7/statickeys.7; do
	[ -f "$mandir/$p" ] || missing="$missing $p"
done
tap_ok $([ -z "$missing" ]; echo $?) \
	"make install puts the API's man pages in \$(MANDIR)/man3 and man7 ($(echo "$pages" | wc -w) pages)${missing:+ (missing:$missing)}"
bad=""
if command -v man >/dev/null; then
	for p in $pages; do
		w=$(cd "$mandir" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
		out=$(cd "$mandir" && LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$p" 2>/dev/null | grep -c .)
		[ -z "$w" ] && [ "$out" -gt 5 ] || { bad="$bad $p"; echo "$p: $w" | tap_diag; }
	done
	tap_ok $([ -n "$pages" ] && [ -z "$bad" ]; echo $?) \
		"man --warnings -l renders every installed page without a warning${bad:+ (not:$bad)}"
else
	tap_skip "man is not installed (scripts/install-deps check)" "the installed man pages render"
fi

# 18-19: a fully static program, the way pkg-config --static says.  With
# glibc the linker warns about dlopen() and dlmopen() in a static program:
# glibc's startup code always links their object, and any reference to them
# (the library needs both, statickeys(7), NOTES) gets the warning.  Those
# two and nothing else; none with musl.
cflags=$($PKG_CONFIG --cflags statickeys)
slibs=$($PKG_CONFIG --static --libs statickeys)
(cd "$tmp" && $CC $cflags flip.c -o flip_allstatic -static $slibs) > "$tmp/link.log" 2>&1
rc=$?
tap_diag < "$tmp/link.log"
if [ $rc -ne 0 ] && grep -q 'cannot find -l' "$tmp/link.log"; then
	tap_skip "no static C library for $CC" "-static with pkg-config --static links"
	tap_skip "no static C library for $CC" "the static program flips its key"
else
	other=$(grep -i 'warning' "$tmp/link.log" |
		grep -v "warning: Using 'dl[m]*open' in statically linked applications requires at runtime the shared libraries from the glibc version used for linking$")
	known=$(grep -c "warning: Using 'dl[m]*open' in statically linked" "$tmp/link.log")
	[ "$SK_LIBC" = glibc ] && want="at most 2" || want=0
	tap_ok $([ $rc -eq 0 ] && [ -z "$other" ] &&
		if [ "$SK_LIBC" = glibc ]; then [ "$known" -le 2 ]; else [ "$known" -eq 0 ]; fi &&
		grep -q "Using 'dlopen' in statically linked applications" "$srctree/Documentation/man/statickeys.7"
		echo $?) \
		"-static with pkg-config --static links; its only warnings are the $known of glibc's dlopen()/dlmopen() that statickeys(7) explains ($want with $SK_LIBC)"
	logged "$tmp/flip_allstatic"
	tap_ok $([ $? -eq 0 ] && flipped; echo $?) "the static program flips its key"
fi
tap_exit
