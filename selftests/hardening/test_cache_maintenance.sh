# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# arm64: a site store is followed by cache maintenance.  qemu-user runs
# patched code correctly without it, so only the code shows whether it is
# there: the store loop calls __clear_cache, and the __clear_cache linked
# into the library cleans the data cache and invalidates the instruction
# cache (dc cvau, ic ivau) with the barriers between.
. "$srctree/selftests/lib/tap.sh"
OBJDUMP=${OBJDUMP:-${CROSS_COMPILE}objdump}

tap_plan 3
if [ "$SRCARCH" != arm64 ]; then
	for i in 1 2 3; do tap_skip "arm64 only" "cache maintenance $i"; done
	tap_exit
fi
fn() {	# the disassembly of function $2 in object $1
	$OBJDUMP -d --no-show-raw-insn "$1" 2>/dev/null |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'
}
# GCC keeps store_sites() apart; clang may inline it into the apply step.
jl_o=$objtree/arch/arm64/kernel/jump_label.o
stores="$(fn "$jl_o" store_sites)
$(fn "$jl_o" arch_jump_label_transform_apply)"
tap_ok $(echo "$stores" | grep -q '[a-z]'; echo $?) "the store loop disassembled"
echo "$stores" | grep -Eq 'bl[[:space:]]+.*<__(clear_cache|aarch64_sync_cache_range)>'
tap_ok $? "each site store is followed by a call to __clear_cache"
# libgcc's __clear_cache may only branch to __aarch64_sync_cache_range.
so=$objtree/libstatickeys.so.1.0.0
cc="$(fn "$so" __clear_cache)
$(fn "$so" __aarch64_sync_cache_range)"
echo "$cc" | grep -q 'dc[[:space:]]*cvau' && echo "$cc" | grep -q 'ic[[:space:]]*ivau' &&
	echo "$cc" | grep -q 'isb'
tap_ok $? "the library's __clear_cache does dc cvau, ic ivau and isb"
[ "$tap_failed" -ne 0 ] && { echo "$stores"; echo "$cc"; } | tap_diag
tap_exit
