# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The core library knows nothing of the kstack consumer: no kstack or entry
# symbol in libstatickeys.so (exported or not) nor in libstatickeys.a.  Where
# this configuration builds libstatickeys-kstack, that library has them,
# names the core as what it needs, and carries its own soname.
. "$srctree/selftests/lib/tap.sh"
NM=${NM:-nm}
READELF=${READELF:-readelf}
so=$objtree/libstatickeys.so
a=$objtree/libstatickeys.a
# What kernel/kstack.c, kernel/entry.c and arch/*/entry define.
pat='kstack|statickeys_entry_|sk_syscall_gate|sk_invoke_syscall|sk_do_syscall|sk_call_on_stack|sk_arch_regs_|sk_arch_audit|sk_sigsys'

tap_plan 5
bad=$($NM -D --defined-only "$so" 2>&1 | grep -E "$pat")
echo "$bad" | grep . | sed 's/^/exported: /' | tap_diag
tap_ok $([ -e "$so" ] && [ -z "$bad" ]; echo $?) "nm -D libstatickeys.so: no kstack/entry symbol"
bad=$($NM "$so" 2>&1 | grep -E "$pat")
echo "$bad" | grep . | sed 's/^/symtab: /' | tap_diag
tap_ok $([ -e "$so" ] && [ -z "$bad" ]; echo $?) "nm libstatickeys.so (.symtab too): no kstack/entry symbol"
bad=$($NM --defined-only "$a" 2>&1 | grep -E "$pat")
echo "$bad" | grep . | sed 's/^/archive: /' | tap_diag
tap_ok $([ -e "$a" ] && [ -z "$bad" ]; echo $?) "nm libstatickeys.a: no kstack/entry symbol"

# The consumer's library, where the configuration offers it.
if grep -qx 'CONFIG_RANDOMIZE_KSTACK_OFFSET=y' "$objtree/.config" 2>/dev/null; then
	kso=$objtree/libstatickeys-kstack.so
	syms=$($NM -D --defined-only "$kso" 2>&1)
	echo "$syms" | grep -E "$pat" | tap_diag
	tap_ok $(echo "$syms" | grep -q ' statickeys_randomize_kstack_offset' &&
		echo "$syms" | grep -q ' statickeys_entry_install'; echo $?) \
		"libstatickeys-kstack.so exports the key and the entry path"
	dyn=$($READELF -d "$kso" 2>&1)
	echo "$dyn" | grep -E 'NEEDED|SONAME' | tap_diag
	tap_ok $(echo "$dyn" | grep -q 'SONAME.*\[libstatickeys-kstack\.so\.1\]' &&
		echo "$dyn" | grep -q 'NEEDED.*\[libstatickeys\.so\.1\]'; echo $?) \
		"libstatickeys-kstack.so: soname libstatickeys-kstack.so.1, needs libstatickeys.so.1"
else
	tap_skip "CONFIG_RANDOMIZE_KSTACK_OFFSET is not set" "libstatickeys-kstack.so exports the key and the entry path"
	tap_skip "CONFIG_RANDOMIZE_KSTACK_OFFSET is not set" "libstatickeys-kstack.so: soname and needs"
fi
tap_exit
