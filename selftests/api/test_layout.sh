# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Code layout, read back from the disassembly: a disabled unlikely site is
# exactly one NOP on the fast path (then the function returns), and
# static_branch_maybe() lays the CONFIG-expected body inline.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OBJDUMP=${OBJDUMP:-${CROSS_COMPILE}objdump}

cat > "$tmp/l.c" <<'X'
#include <linux/jump_label.h>
#define CONFIG_LAYOUT_ON 1
DEFINE_STATIC_KEY_FALSE(kf);
DEFINE_STATIC_KEY_MAYBE(CONFIG_LAYOUT_ON, kon);
DEFINE_STATIC_KEY_MAYBE(CONFIG_LAYOUT_OFF, koff);
#ifdef __i386__
/* i386 PIC: a call through the PLT needs %ebx set up, before the site. */
__attribute__((visibility("hidden")))
#endif
void body(void);
void site_unlikely(void) { if (static_branch_unlikely(&kf)) body(); }
void site_maybe_on(void) { if (static_branch_maybe(CONFIG_LAYOUT_ON, &kon)) body(); }
void site_maybe_off(void) { if (static_branch_maybe(CONFIG_LAYOUT_OFF, &koff)) body(); }
X

# The first N instruction mnemonics of a function, one a line.  A local
# label the assembler kept (riscv: for the table's relocations) is not the
# function's end.  On riscv a site whose function starts only 2-aligned
# comes after a 2-byte c.nop of padding (.balign 4): not counted.
insns() {
	awk -v fn="<$1>:" '$2 == fn { on = 1; next }
		on && /^[0-9a-f]+ <\.L/ { next }
		on && /^[0-9a-f]+ </ { exit }
		on && NF >= 2 && $1 ~ /:$/ { print $2 }' "$tmp/l.dis" |
	if [ "${BUILDARCH:-$SRCARCH}" = riscv ]; then
		awk 'NR == 1 { first = $0; next }
		     NR == 2 && !(first == "nop" && $0 == "nop") { print first }
		     { print } END { if (NR == 1) print first }'
	else cat; fi | head -n "$2"
}

tap_plan 3
case ${SANITIZE:-} in
*thread*)
	# -fsanitize=thread adds a call at every function entry.
	for i in 1 2 3; do tap_skip "SANITIZE=$SANITIZE instruments the fast path" "layout $i"; done
	tap_exit ;;
esac
if [ "$SK_JUMP_LABEL" != y ]; then
	for t in "unlikely site is one NOP" "maybe(on) inline" "maybe(off) out of line"; do
		tap_skip "CONFIG_JUMP_LABEL=n: sites are a load and a branch" "$t"
	done
	tap_exit
fi
$CC $ARCH_CFLAGS -std=gnu11 $SK_CPPFLAGS -O2 -fPIC -c "$tmp/l.c" -o "$tmp/l.o" &&
	$OBJDUMP -d --no-show-raw-insn "$tmp/l.o" > "$tmp/l.dis"
case $SRCARCH in
x86)	nop=nopl; ret=ret; jump_body='^(call|jmp)$' ;;
arm64)	nop=nop; ret=ret; jump_body='^(bl|b)$' ;;
riscv)	nop=nop; ret=ret; jump_body='^(auipc|call|tail|jal|j)$' ;;
arm)	nop=nop.w; ret=bx; jump_body='^(b|b\.w|bl|blx)$' ;;	# Thumb-2
esac

u=$(insns site_unlikely 2 | tr '\n' ' ')
[ "$u" = "$nop $ret " ]
tap_ok $? "disabled static_branch_unlikely: the fast path is exactly '$nop; $ret' (got: $u)"

# maybe(CONFIG on): after the site comes the body (a call or tail jump).
on=$(insns site_maybe_on 2 | tail -n 1)
[ "$(insns site_maybe_on 1)" = "$nop" ] && echo "$on" | grep -Eq "$jump_body"
tap_ok $? "static_branch_maybe(CONFIG on): NOP, then the body inline (got: $(insns site_maybe_on 2 | tr '\n' ' '))"

# maybe(CONFIG off): after the site comes the return; the body is elsewhere.
off=$(insns site_maybe_off 2 | tr '\n' ' ')
[ "$off" = "$nop $ret " ]
tap_ok $? "static_branch_maybe(CONFIG off): NOP then return, body out of line (got: $off)"
tap_exit
