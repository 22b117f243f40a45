# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make install puts the gdb script where gdb's auto-load finds it for the
# shared library (<datadir>/gdb/auto-load/<libdir>/libstatickeys.so.V-gdb.gdb,
# as libstdc++ does), and gdb -batch on a program built against the
# installed tree then has the statickeys-keys command without a "source".
# gdb looks in its own datadir (/usr/share/gdb): a PREFIX=/usr install needs
# nothing more; this one, under a scratch prefix, names that prefix's
# auto-load folder to gdb, as a user of PREFIX=/usr/local would.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

sk_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
		make -s -C "$srctree" O="$objtree" ARCH="${ARCH:-$SRCARCH}" "$@"
}
ver=$(sed -n 's/^#define STATICKEYS_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
	"$srctree/include/statickeys/statickeys.h" | paste -sd. -)

tap_plan 5
sk_make install PREFIX="$prefix" > "$tmp/install.log" 2>&1
rc=$?
auto=$prefix/share/gdb/auto-load$prefix/lib/libstatickeys.so.$ver-gdb.gdb
[ $rc -eq 0 ] && [ -f "$auto" ] && cmp -s "$auto" "$srctree/scripts/gdb/statickeys.gdb"
tap_ok $? "make install PREFIX=...: the script at <datadir>/gdb/auto-load<libdir>/libstatickeys.so.$ver-gdb.gdb"
[ "$tap_failed" -ne 0 ] && { tap_diag < "$tmp/install.log"; find "$prefix/share" | tap_diag; }

# The package's layout: PREFIX=/usr, a multiarch LIBDIR, staged in DESTDIR.
sk_make install DESTDIR="$tmp/dest" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu \
	> "$tmp/install2.log" 2>&1 &&
	[ -f "$tmp/dest/usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstatickeys.so.$ver-gdb.gdb" ]
tap_ok $? "PREFIX=/usr LIBDIR=/usr/lib/<triplet>: under /usr/share/gdb/auto-load, which gdb reads by default"
sk_make uninstall PREFIX="$prefix" > /dev/null 2>&1 && [ ! -e "$auto" ]
r=$?
sk_make install PREFIX="$prefix" > /dev/null 2>&1
tap_ok $r "make uninstall removes it"

if [ -n "${RUNNER:-}" ] || ! command -v gdb > /dev/null || ! command -v python3 > /dev/null; then
	reason="gdb runs native programs only"
	command -v gdb > /dev/null || reason="gdb is not installed (scripts/install-deps tools)"
	tap_skip "$reason" "gdb auto-loads the script"
	tap_skip "$reason" "without the auto-load folder, no command"
	tap_exit
fi

cat > "$tmp/prog.c" <<'EOF'
#include <linux/jump_label.h>

DEFINE_STATIC_KEY_FALSE(auto_key);

__attribute__((noinline)) void stop_here(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	static_branch_enable(&auto_key);
	if (static_branch_unlikely(&auto_key))
		stop_here();
	return 0;
}
EOF
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs statickeys)
# shellcheck disable=SC2086
${CC:-cc} -g -O2 $flags "$tmp/prog.c" -o "$tmp/prog" $flags -Wl,-rpath,"$prefix/lib" \
	> "$tmp/cc.log" 2>&1 || tap_diag < "$tmp/cc.log"
gdb_run() {
	timeout 300 gdb -batch -nx "$@" -ex 'break stop_here' -ex run \
		-ex 'statickeys-keys' --args "$tmp/prog" 2>&1
}
out=$(gdb_run -iex "add-auto-load-scripts-directory $prefix/share/gdb/auto-load" \
	-iex "add-auto-load-safe-path $prefix/share/gdb/auto-load")
if [ "$SK_JUMP_LABEL" = y ]; then
	echo "$out" | grep -q '^key .* auto_key gdb .* FALSE count 1 on sites 1$'
else
	# The program's key has no site; the library's own probe key may.
	echo "$out" | grep -q '^key \|no static keys' &&
		! echo "$out" | grep -q 'Undefined command'
fi
tap_ok $? "gdb -batch on an installed program: statickeys-keys works, no source command"
[ "$tap_failed" -ne 0 ] && echo "$out" | tail -20 | tap_diag
out=$(gdb_run)
echo "$out" | grep -q 'Undefined command: "statickeys-keys"'
tap_ok $? "the command comes from the auto-loaded file: without its folder, gdb has no such command"
tap_exit
