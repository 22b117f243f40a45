# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# gdb -batch with scripts/gdb/statickeys.gdb (installed as
# <prefix>/share/statickeys/statickeys.gdb) on a program that toggles a key
# while threads run its sites: the library's traps pass silently, the
# program ends normally with every toggle done, and gdb's own breakpoints
# still stop.  At a site, a software breakpoint makes key changes refused
# (an int3 the library did not write); a hardware breakpoint does not.
. "$srctree/selftests/lib/tap.sh"
prog=$objtree/selftests/tools/toggle_threads
script=$srctree/scripts/gdb/statickeys.gdb
toggles=3000

tap_plan 5
if [ -n "${RUNNER:-}" ] || ! command -v gdb > /dev/null; then
	reason="gdb runs native programs only"
	command -v gdb > /dev/null || reason="gdb is not installed (scripts/install-deps tools)"
	for i in 1 2 3 4 5; do tap_skip "$reason" "gdb $i"; done
	tap_exit
fi
sk_gdb() { timeout 600 gdb -batch -nx -x "$script" "$@" 2>&1; }

out=$(sk_gdb -ex run -ex 'printf "traps passed over: %d\n", $_statickeys_traps' \
	--args "$prog" $toggles)
echo "$out" | grep -v '^\[\(New\|Switching to\) Thread\|^\[Thread .* exited' | tap_diag
echo "$out" | grep -q "toggles $toggles errors 0 bad 0$" &&
	echo "$out" | grep -q '^\[Inferior 1 (process [0-9]*) exited normally\]'
tap_ok $? "under gdb -batch: $toggles toggles while threads run the sites, no stop, no error"
echo "$out" | grep -q 'received signal'
tap_ok $((! $?)) "no 'received signal' stop on the way"

out=$(sk_gdb -ex 'break reader' -ex run -ex 'delete 2' -ex continue \
	--args "$prog" $toggles)
echo "$out" | grep -q 'hit Breakpoint 2, reader' &&
	echo "$out" | grep -q 'exited normally'
tap_ok $? "a gdb breakpoint still stops (then the run completes)"
[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag

# The site in tt_unlikely(): its 5-byte NOP (where the compiler put it),
# as an offset into the function.
site_off=$(${OBJDUMP:-objdump} -d "$prog" | awk '
	/<tt_unlikely>:/ { on = 1; print $1; next }
	on && /^$/ { exit }
	on && $2 $3 $4 $5 $6 == "0f1f440000" { sub(":", "", $1); print $1; exit }' |
	{ read -r start; read -r site; echo $((0x$site - 0x$start)); })

# at_site BREAK: run 4 toggles with BREAK (break or hbreak) on the site's
# instruction, passed over silently.
at_site() {
	sk_gdb -ex 'break main' -ex run -ex "$1 *((char *)&tt_unlikely + $site_off)" \
		-ex 'commands 3
silent
continue
end' -ex continue --args "$prog" 4
}
if [ "$SK_JUMP_LABEL" = y ]; then
	out=$(at_site break)
	echo "$out" | grep -q 'toggles 4 errors [1-9]'
	tap_ok $? "a software breakpoint at a site: the key changes are refused"
	[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
else
	tap_skip "CONFIG_JUMP_LABEL=n: no instruction is patched" "software breakpoint at a site"
fi
out=$(at_site hbreak)
echo "$out" | grep -q 'toggles 4 errors 0 bad 0$'
tap_ok $? "a hardware breakpoint at a site: the key changes go through"
[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
tap_exit
