# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# What an entry pays for randomize_kstack_offset, as compiled: one site of
# the key per entry (the dispatcher branches once, so "off" costs one NOP
# or jump), and an allocation that is a single subtraction from the stack
# pointer (the offset is a multiple of 16 already: nothing to realign).
. "$srctree/selftests/lib/tap.sh"
READELF=${READELF:-${CROSS_COMPILE}readelf}
OBJDUMP=${OBJDUMP:-${CROSS_COMPILE}objdump}

tap_plan 3
if ! grep -q '^#define CONFIG_RANDOMIZE_KSTACK_OFFSET 1' \
		"$objtree/include/generated/autoconf.h"; then
	for i in 1 2 3; do tap_skip "CONFIG_RANDOMIZE_KSTACK_OFFSET=n" "sites $i"; done
	tap_exit
fi

# Sites of the key in the entry code: relocations of __jump_table entries
# against it (the key field of an entry names the key's symbol).
objs="$objtree/kernel/entry.o $(ls "$objtree"/arch/"$SRCARCH"/entry/*.o)"
sites=0 jl=$SK_JUMP_LABEL
for o in $objs; do
	n=$($READELF -rW "$o" 2>/dev/null | awk '
		/^Relocation section/ { on = ($3 ~ /__jump_table/) ; next }
		on && /randomize_kstack_offset/ { n++ }
		END { print n + 0 }')
	sites=$((sites + n))
done
# shellcheck disable=SC2086 # CC may carry options (clang --target=...)
case $($CC --version 2>/dev/null | head -n 1) in
*clang*) clang=y ;;
*) clang=n ;;
esac
if [ "$jl" = y ] && [ "$clang" = y ] && [ "$sites" -ne 1 ]; then
	# clang 14 duplicates the dispatcher's asm goto into its callers' paths.
	tap_skip "clang emits $sites sites here; the one-site goal is GCC's (make bench-kstack)" \
		"one site of randomize_kstack_offset in the entry code ($sites)"
elif [ "$jl" = y ]; then
	tap_ok $([ "$sites" -eq 1 ]; echo $?) \
		"one site of randomize_kstack_offset in the entry code ($sites)"
else
	tap_skip "CONFIG_JUMP_LABEL=n: no jump table" "one site of the key ($sites)"
fi

obj=$objtree/arch/$SRCARCH/entry/common.o
dis=$($OBJDUMP -dr --no-show-raw-insn "$obj" 2>&1 |
	awk '/<sk_do_syscall>:/ { on = 1; next } on && /^$/ { exit } on')
tap_ok $([ -n "$dis" ]; echo $?) "sk_do_syscall disassembled from $obj"
case $SRCARCH in
x86)	realign='and[q]?[[:space:]]+\$0xf+0,%r|and[q]?[[:space:]]+\$0x7f0' ;;
arm64)	realign='and[[:space:]]+x[0-9]+, x[0-9]+, #0xf+0$|add[[:space:]]+x[0-9]+, x[0-9]+, #0x1[0-9a-f]$' ;;
esac
echo "$dis" | grep -Eq "$realign"
tap_ok $((! $?)) "the offset is allocated as it is, without rounding or realignment"
[ "$tap_failed" -ne 0 ] && echo "$dis" | tap_diag
tap_exit
