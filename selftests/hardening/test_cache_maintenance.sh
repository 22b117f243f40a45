# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Sites of one 32-bit instruction (arm64, riscv, arm): each site store is
# followed by the architecture's instruction-cache synchronisation.
# qemu-user runs patched code correctly without it, so only the code shows
# whether it is there: the store loop calls arch_insn32_sync_icache(), and
# that does what the architecture needs: on arm64 the __clear_cache linked
# into the library cleans the data cache and invalidates the instruction
# cache (dc cvau, ic ivau) with the barriers between; on riscv it makes the
# riscv_flush_icache system call (259), on arm cacheflush (0xf0002).
. "$srctree/selftests/lib/tap.sh"
OBJDUMP=${OBJDUMP:-${CROSS_COMPILE}objdump}
arch=${BUILDARCH:-$SRCARCH}

tap_plan 3
case $arch in
arm64|riscv|arm) ;;
*)	for i in 1 2 3; do tap_skip "arm64, riscv and arm only" "cache maintenance $i"; done
	tap_exit ;;
esac
fn() {	# the disassembly of function $2 in object $1, with its relocations
	$OBJDUMP -dr --no-show-raw-insn "$1" 2>/dev/null |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^[0-9a-f]+ <[^.]/ { exit } on'
}
# GCC keeps store_sites() apart; clang may inline it into the apply step.
o=$objtree/arch/insn32/insn32.o
stores="$(fn "$o" store_sites)
$(fn "$o" arch_jump_label_transform_apply)"
tap_ok $(echo "$stores" | grep -q '[a-z]'; echo $?) "the store loop disassembled"
echo "$stores" | grep -q 'arch_insn32_sync_icache'
tap_ok $? "each site store is followed by a call to arch_insn32_sync_icache()"
sync=$(fn "$objtree/arch/$SRCARCH/kernel/jump_label.o" arch_insn32_sync_icache)
case $arch in
arm64)
	# libgcc's __clear_cache may only branch to __aarch64_sync_cache_range.
	so=$objtree/libstatickeys.so.1.0.0
	cc="$(fn "$so" __clear_cache)
$(fn "$so" __aarch64_sync_cache_range)"
	echo "$sync" | grep -Eq '__(clear_cache|aarch64_sync_cache_range)' &&
	echo "$cc" | grep -q 'dc[[:space:]]*cvau' && echo "$cc" | grep -q 'ic[[:space:]]*ivau' &&
		echo "$cc" | grep -q 'isb'
	tap_ok $? "it calls __clear_cache, which does dc cvau, ic ivau and isb" ;;
riscv)
	echo "$sync" | grep -Eq 'li[[:space:]]+a0,259$' && echo "$sync" | grep -q 'syscall'
	tap_ok $? "it makes the riscv_flush_icache system call (259)" ;;
arm)
	# 0xf0002 whole, or as mov #2 then movt #15 (the high half).
	{ echo "$sync" | grep -Eq '#983042|#0xf0002' ||
	  { echo "$sync" | grep -Eq 'movs?[[:space:]]+r0, #2$' &&
	    echo "$sync" | grep -Eq 'movt[[:space:]]+r0, #15$'; }; } &&
		echo "$sync" | grep -q 'syscall'
	tap_ok $? "it makes the cacheflush system call (0xf0002)" ;;
esac
[ "$tap_failed" -ne 0 ] && { echo "$stores"; echo "$sync"; echo "${cc:-}"; } | tap_diag
tap_exit
