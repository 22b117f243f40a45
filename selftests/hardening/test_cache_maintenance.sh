# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Sites of one 32-bit instruction (arm64, riscv, arm): each site store is
# followed by the architecture's instruction-cache synchronisation.
# qemu-user runs patched code correctly without it, so only the code shows
# whether it is there: the store loop of the library as built calls
# arch_insn32_sync_icache() (or has its body, joined by LTO), and
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
# The disassembly of function $2 in $1, with its relocations, and of the
# copies the compiler made of it (store_sites.constprop.0, ...).
fn() {
	$OBJDUMP -dr --no-show-raw-insn "$1" 2>/dev/null |
		awk -v f="$2" '/^[0-9a-f]+ </ {
			n = $2; sub(/^</, "", n); sub(/>:$/, "", n)
			on = n == f || index(n, f ".") == 1; next }
			on'
}
# The code as it runs: the library, linked with LTO where GCC builds it,
# which may join arch_insn32_sync_icache() into the store loop
# (store_sites() is noinline: the apply step around it holds the probe's
# own cache synchronisation, which would answer for the loop's).
so=$objtree/libstatickeys.so.1.0.0
stores="$(fn "$so" store_sites)"
sync="$(fn "$so" arch_insn32_sync_icache)"
tap_ok $(echo "$stores" | grep -q '[a-z]'; echo $?) "the store loop disassembled"
# What the synchronisation calls, in the loop itself once joined to it.
case $arch in
arm64)	own='__(clear_cache|aarch64_sync_cache_range)' ;;
riscv)	own='li[[:space:]]+a0,259$' ;;
arm)	own='#983042|#0xf0002|movt[[:space:]]+[a-z0-9]+, #15$' ;;
esac
echo "$stores" | grep -Eq "arch_insn32_sync_icache|$own"
tap_ok $? "each site store is followed by the cache synchronisation (arch_insn32_sync_icache(), or its body joined to the loop)"
sync="$sync
$stores"
case $arch in
arm64)
	# libgcc's __clear_cache may only branch to __aarch64_sync_cache_range.
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
	# 0xf0002 whole, or as mov #2 then movt #15 (the high half), into r0
	# or, the loop's constant held out of it, another register.
	{ echo "$sync" | grep -Eq '#983042|#0xf0002' ||
	  { echo "$sync" | grep -Eq 'movs?(\.w)?[[:space:]]+[a-z0-9]+, #2$' &&
	    echo "$sync" | grep -Eq 'movt[[:space:]]+[a-z0-9]+, #15$'; }; } &&
		echo "$sync" | grep -q 'syscall'
	tap_ok $? "it makes the cacheflush system call (0xf0002)" ;;
esac
[ "$tap_failed" -ne 0 ] && { echo "$stores"; echo "$sync"; echo "${cc:-}"; } | tap_diag
tap_exit
