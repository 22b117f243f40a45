# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# README's "Using it from another program", as root: make install
# PREFIX=/usr/local, a program built with pkg-config, and it starts at once
# (make install ran ldconfig).  In a private mount namespace: /usr/local is
# a tmpfs and /etc an overlay, so the machine's own are left untouched.
#
# run-tests: serial (it runs make in the shared $objtree: two such makes
# at once would race on the same targets)
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 1
if [ -n "${SANITIZE:-}" ]; then
	tap_skip "SANITIZE=$SANITIZE: the installed library needs the sanitizer runtime in the program" \
		"make install into /usr/local runs ldconfig"
	tap_exit
fi
host=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/^i[3-6]86$/i386/' -e 's/riscv64/riscv/' -e 's/^armv7.*/arm/')
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "not root" "make install into /usr/local runs ldconfig"
	tap_exit
fi
if [ "${BUILDARCH:-$SRCARCH}" != "$host" ]; then
	tap_skip "ARCH=${BUILDARCH:-$SRCARCH} is not this machine's" "make install into /usr/local runs ldconfig"
	tap_exit
fi
cat > "$tmp/run.sh" <<'EOS'
set -e
mount -t tmpfs tmpfs /usr/local
mkdir -p "$tmp/etc-up" "$tmp/etc-work"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$tmp/etc-up",workdir="$tmp/etc-work" /etc
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$srctree" O="$objtree" \
	ARCH="$SRCARCH" install PREFIX=/usr/local
cd "$tmp"
env -u PKG_CONFIG_PATH -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_SYSROOT_DIR \
	sh -c 'cc "$srctree/samples/flip/flip.c" $(pkg-config --cflags --libs statickeys) -o flip'
env -u LD_LIBRARY_PATH ./flip
EOS
if ! unshare -m --propagation private true 2>/dev/null; then
	tap_skip "no private mount namespace here (in a chroot, / is no mount point)" "make install into /usr/local runs ldconfig"
	tap_exit
fi
if [ "$SK_LIBC" = musl ]; then
	# musl's loader has no cache for ldconfig to refresh: it searches the
	# directories of /etc/ld-musl-<arch>.path, which on Debian name only
	# musl's own.  A program finds the library by its rpath (README).
	tap_skip "musl's loader does not search /usr/local/lib on Debian" \
		"make install into /usr/local runs ldconfig"
	tap_exit
fi
out=$(tmp=$tmp unshare -m --propagation private bash "$tmp/run.sh" 2>&1)
rc=$?
echo "$out" | tap_diag
tap_ok $([ $rc -eq 0 ] && echo "$out" | grep -q 'after static_branch_enable() taken'; echo $?) \
	"as root, make install PREFIX=/usr/local: the program starts without a manual ldconfig"
tap_exit
