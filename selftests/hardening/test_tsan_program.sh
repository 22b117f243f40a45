# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A program built with -fsanitize=thread, linked against the library as
# built (not instrumented): ThreadSanitizer's own thread, which blocks
# every signal, must not make every key change a refusal.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 1

what="a ThreadSanitizer program with a thread changes its keys"
if [ "$SK_JUMP_LABEL" != y ] || [ "$SRCARCH" != x86 ] || [ -n "${RUNNER:-}" ]; then
	tap_skip "x86 with CONFIG_JUMP_LABEL=y, natively: only there do sites trap" "$what"
	tap_exit
fi
if [ -n "${SANITIZE:-}" ]; then
	tap_skip "SANITIZE=$SANITIZE: the library itself is instrumented" "$what"
	tap_exit
fi
# A ThreadSanitizer program must run here at all (musl: it does not).
printf 'int main(void) { return 0; }\n' > "$tmp/nop.c"
if [ "$SK_LIBC" != glibc ] || ! $CC -fsanitize=thread "$tmp/nop.c" -o "$tmp/nop" \
	> "$tmp/cc.log" 2>&1 || ! "$tmp/nop" >> "$tmp/cc.log" 2>&1; then
	tap_diag < "$tmp/cc.log"
	tap_skip "no ThreadSanitizer program runs with $CC and $SK_LIBC here" "$what"
	tap_exit
fi
if ! $CC -fsanitize=thread -O1 -g $SK_CPPFLAGS "$srctree/selftests/hardening/tsan_program.c" \
	-o "$tmp/prog" -L"$objtree" -Wl,-rpath,"$objtree" -lstatickeys -pthread > "$tmp/cc.log" 2>&1; then
	tap_diag < "$tmp/cc.log"
	tap_skip "$CC cannot build with -fsanitize=thread here" "$what"
	tap_exit
fi
"$tmp/prog" > "$tmp/out" 2> "$tmp/err"
rc=$?
tap_diag < "$tmp/out"
[ $rc -eq 0 ] || head -n 5 "$tmp/err" | tap_diag
tap_ok $rc "$what: 20 of 20 go through, each seen by executing the site"
tap_exit
