# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A set-user-ID program: its caller's environment must not choose how the
# library writes code (STATICKEYS_TEXT_POKE, like STATICKEYS_CMDLINE, is
# read with secure_getenv()).  As root, a copy of a small program owned by
# nobody with the set-user-ID bit runs with AT_SECURE set.
. "$srctree/selftests/lib/tap.sh"
prog=$objtree/selftests/hardening/secure_env

tap_plan 4
if [ -n "${RUNNER:-}" ] || [ "$(id -u)" -ne 0 ] || ! id nobody > /dev/null 2>&1 ||
   [ "${SK_JUMP_LABEL:-y}" != y ] || [ -n "${SANITIZE:-}" ]; then
	why="needs root, a native run, user nobody, CONFIG_JUMP_LABEL=y and no sanitizer (a set-user-ID program)"
	for i in 1 2 3 4; do tap_skip "$why" "set-user-ID $i"; done
	tap_exit
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$prog" "$dir/prog"
chown nobody "$dir/prog"
chmod 4755 "$dir/prog"

# The set-user-ID copy loads the library through the build directory: a
# tree where nobody cannot read it (a clone in /root) cannot run it.
if "$dir/prog" 2>&1 | grep -q "error while loading shared libraries"; then
	for i in 1 2 3 4; do
		tap_skip "user nobody cannot read the build directory $objtree" "set-user-ID $i"
	done
	tap_exit
fi
plain=$(STATICKEYS_TEXT_POKE=mprotect "$prog" 2>&1)
echo "$plain" | grep -qx "method mprotect site 1"
tap_ok $? "an ordinary program: STATICKEYS_TEXT_POKE=mprotect chooses mprotect ($plain)"
# /proc/self/mem is not open to a set-user-ID process (it is not dumpable):
# the probe falls back to mprotect.  Were the environment read, procmem alone
# would be tried, and every change refused.
suid=$(STATICKEYS_TEXT_POKE=procmem "$dir/prog" 2>&1)
echo "$suid" | grep -q "^method mprotect site 1$"
tap_ok $? "set-user-ID: STATICKEYS_TEXT_POKE=procmem is ignored, the probe chooses what works ($suid)"
suid=$(STATICKEYS_TEXT_POKE=bogus "$dir/prog" 2>&1)
! echo "$suid" | grep -q "unknown method" && echo "$suid" | grep -q "site 1$"
tap_ok $? "set-user-ID: an unknown method in the environment is not even read ($suid)"
plain=$(STATICKEYS_DEBUG=keys "$prog" 2>&1)
suid=$(STATICKEYS_DEBUG=keys "$dir/prog" 2>&1)
echo "$plain" | grep -q '^statickeys: keys at start-up' &&
	! echo "$suid" | grep -q '^statickeys: keys'
tap_ok $? "STATICKEYS_DEBUG=keys prints the key table of an ordinary program, not of a set-user-ID one"
tap_exit
