# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The writer's hooks in a static link: a program linked with
# libstatickeys.a, with function and data sections and --gc-sections, by
# each linker, changes a key with each write method.  The hooks are
# pointers in sections of their own that nothing names but the writer's
# __start_ symbols (kernel/internal.h, SK_WRITER_HOOK()); a link that
# dropped one would refuse every change.
. "$srctree/selftests/lib/tap.sh"
. "$srctree/selftests/toolchain/toolchain.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

set -- $(sk_linkers)
tap_plan $((3 * $#))
sk_skip_if_sanitized $((3 * $#))
if [ "$SK_JUMP_LABEL" != y ]; then
	for i in $(seq $((3 * $#))); do
		tap_skip "CONFIG_JUMP_LABEL=n: no site is written, no hook is called" "static hooks $i"
	done
	tap_exit
fi
cc=$(sk_compiler "$(sk_c_compiler)")
for ld in $(sk_linkers); do
	what="libstatickeys.a, --gc-sections, $ld ($SRCARCH, CONFIG_JUMP_LABEL=$SK_JUMP_LABEL)"
	d=$tmp/$ld
	mkdir -p "$d"
	$cc -O2 -ffunction-sections -fdata-sections -Wl,--gc-sections \
		$SK_CPPFLAGS -I"$srctree/selftests/lib" $(sk_linker_flags "$ld") \
		"$srctree/selftests/hardening/static_hooks.c" -o "$d/prog" \
		"$objtree/libstatickeys.a" -ldl -pthread > "$d/cc.log" 2>&1
	rc=$?
	tap_diag < "$d/cc.log"
	tap_ok $rc "$what: links"
	for m in procmem mprotect; do
		if [ "$m" = procmem ] && [ -n "${RUNNER:-}" ]; then
			tap_skip "under $RUNNER: an emulator runs its old translation of bytes written through /proc/self/mem" \
				"$what: STATICKEYS_TEXT_POKE=$m"
			continue
		fi
		STATICKEYS_TEXT_POKE=$m ${RUNNER:-} "$d/prog" > "$d/$m.log" 2>&1
		rc=$?
		tap_diag < "$d/$m.log"
		tap_ok $rc "$what: STATICKEYS_TEXT_POKE=$m flips the site both ways"
	done
done
tap_exit
