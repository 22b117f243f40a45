#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# scripts/kconfig-defaults/ is what a build without kconfig-conf takes for
# its configuration: it must be exactly what kconfig-conf makes of the
# Kconfig files now, for every ARCH (`make kconfig-defaults` writes it).
# Run once by make check, not per configuration.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
committed=$srctree/scripts/kconfig-defaults
arches="x86 i386 arm64 riscv arm generic ppc64le"
# The ARCHes with a patcher have CONFIG_JUMP_LABEL=y by default; the generic
# ones (no patcher: the portable fallback) cannot select it at all.
patchers="x86 i386 arm64 riscv arm"

tap_plan 8
if ! command -v "${KCONFIG_CONF:-kconfig-conf}" > /dev/null; then
	for a in $arches; do
		tap_skip "no kconfig-conf (kconfig-frontends)" "scripts/kconfig-defaults/$a is what kconfig-conf makes"
	done
	tap_skip "no kconfig-conf (kconfig-frontends)" "scripts/kconfig-defaults holds the ARCHes only"
	tap_exit
fi

"$srctree/scripts/gen-kconfig-defaults" "$tmp/now" > "$tmp/gen.log" 2>&1 ||
	{ tap_diag < "$tmp/gen.log"; }
for a in $arches; do
	diff -u "$committed/$a" "$tmp/now/$a" > "$tmp/$a.diff" 2>&1
	rc=$?
	tap_diag < "$tmp/$a.diff"
	case " $patchers " in
	*" $a "*) jl='^CONFIG_JUMP_LABEL=y$' ;;
	*) jl='^CONFIG_ARCH_GENERIC=y$' ;;
	esac
	tap_ok $([ $rc -eq 0 ] && [ -s "$committed/$a/autoconf.h" ] &&
		grep -q "$jl" "$committed/$a/config" &&
		{ [ "$jl" = '^CONFIG_JUMP_LABEL=y$' ] ||
		  ! grep -q '^CONFIG_JUMP_LABEL=y$' "$committed/$a/config"; }
		echo $?) \
		"scripts/kconfig-defaults/$a is what kconfig-conf makes now$([ $rc -ne 0 ] && echo ' (run make kconfig-defaults)')"
done
extra=$(cd "$committed" 2>/dev/null && find . -mindepth 1 | sed 's|^\./||' |
	grep -vxE "($(echo $arches | tr ' ' '|'))(/(config|autoconf\.h))?")
tap_ok $([ -d "$committed" ] && [ -z "$extra" ]; echo $?) \
	"scripts/kconfig-defaults holds config and autoconf.h of each ARCH only${extra:+ (also: $(echo $extra))}"
tap_exit
