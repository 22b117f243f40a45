# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The dispatcher as compiled: the random alloca is there, with no stack
# canary and no stack-clash probes around it (arch/*/entry/Makefile.flags).
. "$srctree/selftests/lib/tap.sh"
OBJDUMP=${OBJDUMP:-${CROSS_COMPILE}objdump}
obj=$objtree/arch/$SRCARCH/entry/common.o
dis=$($OBJDUMP -dr --no-show-raw-insn "$obj" 2>&1 |
	awk '/<sk_do_syscall>:/ { on = 1; next } on && /^$/ { exit } on')

tap_plan 4
if ! grep -q '^#define CONFIG_RANDOMIZE_KSTACK_OFFSET 1' \
		"$objtree/include/generated/autoconf.h"; then
	for i in 1 2 3 4; do tap_skip "CONFIG_RANDOMIZE_KSTACK_OFFSET=n" "codegen $i"; done
	tap_exit
fi
tap_ok $([ -n "$dis" ]; echo $?) "sk_do_syscall disassembled from $obj"
case $SRCARCH in
# gcc subtracts from the stack pointer; clang computes the new one in
# another register and moves it there.
x86)	alloca='sub[[:space:]]+%r[a-z0-9]+,%rsp|mov[[:space:]]+%r([a-d]x|[sd]i|[89]|1[0-5]),%rsp'
	probe='or[q]?[[:space:]]+\$0x0,.*\(%rsp\)'
	canary='%fs:0x28|__stack_chk' ;;
arm64)	alloca='sub[[:space:]]+sp, sp, x[0-9]+|mov[[:space:]]+sp, x([0-9]|1[0-9]|2[0-8])$'
	probe='str[[:space:]]+xzr, \[sp'
	canary='__stack_chk' ;;
esac
echo "$dis" | grep -Eq "$alloca"
tap_ok $? "the offset is allocated on the stack ($alloca)"
echo "$dis" | grep -Eq "$probe"
tap_ok $((! $?)) "no stack-clash probe"
echo "$dis" | grep -Eq "$canary"
tap_ok $((! $?)) "no stack-protector canary"
[ "$tap_failed" -ne 0 ] && echo "$dis" | tap_diag
tap_exit
