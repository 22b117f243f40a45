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
# Standard input from /dev/null: gdb never waits on a terminal.
sk_gdb() { timeout 600 gdb -batch -nx -x "$script" "$@" < /dev/null 2>&1; }

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

if [ "$SK_JUMP_LABEL" != y ]; then
	tap_skip "CONFIG_JUMP_LABEL=n: no instruction is patched" "software breakpoint at a site"
	tap_skip "CONFIG_JUMP_LABEL=n: no instruction is patched" "hardware breakpoint at a site"
	tap_exit
fi

# The site in tt_unlikely(): its 5-byte NOP (where the compiler put it),
# as an offset into the function.
site_off=$(${OBJDUMP:-objdump} -d "$prog" | awk '
	/<tt_unlikely>:/ { on = 1; print $1; next }
	on && /^$/ { exit }
	on && $2 $3 $4 $5 $6 == "0f1f440000" { sub(":", "", $1); print $1; exit }' |
	{ read -r start; read -r site && echo $((0x$site - 0x$start)); })

# at_site BREAK: run 4 toggles with BREAK (break or hbreak) on the site's
# instruction, passed over silently.  Not with `commands`: given in an -ex
# argument, gdb (13.1) takes only its first line from the argument and reads
# the body from standard input, so the breakpoint stopped the run.  A
# condition that counts the hits and is never true passes over it instead.
at_site() {
	sk_gdb -ex 'set $hits = 0' -ex 'break main' -ex run \
		-ex "$1 *((char *)&tt_unlikely + $site_off)" \
		-ex 'condition $bpnum ($hits = $hits + 1) < 0' \
		-ex continue -ex 'printf "breakpoint hits %d\n", $hits' \
		--args "$prog" 4
}
hits() { echo "$1" | sed -n 's/^breakpoint hits \([0-9]*\)$/\1/p'; }
if [ -z "$site_off" ]; then
	tap_ok 1 "software breakpoint at a site: no 5-byte NOP found in tt_unlikely() (objdump -d $prog)"
	tap_ok 1 "hardware breakpoint at a site: no 5-byte NOP found in tt_unlikely()"
	tap_exit
fi

out=$(at_site break)
echo "$out" | grep -q 'toggles 4 errors [1-9]' && [ "$(hits "$out")" -gt 0 ]
tap_ok $? "a software breakpoint at a site, hit $(hits "$out") times: the key changes are refused"
[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag

out=$(at_site hbreak)
# A machine (or a VM) without debug registers for gdb cannot hold one; on
# some VMs gdb inserts it and it never fires.  The same breakpoint on the
# entry of tt_unlikely() (which the program calls, and no key change
# touches) must be hit.  CHECK_SIMULATE=no-hw-breakpoints takes it as
# never hit.
nohw=$(echo "$out" | grep -m1 -i 'hardware breakpoint support\|could not insert hardware\|hardware breakpoints used exceeds')
probe=$(sk_gdb -ex 'set $hits = 0' -ex 'break main' -ex run \
	-ex 'hbreak tt_unlikely' -ex 'condition $bpnum ($hits = $hits + 1) < 0' \
	-ex continue -ex 'printf "breakpoint hits %d\n", $hits' --args "$prog" 4)
case " ${CHECK_SIMULATE:-} " in
*" no-hw-breakpoints "*)
	probe="breakpoint hits 0 (simulated: CHECK_SIMULATE=no-hw-breakpoints)" ;;
esac
if [ -z "$nohw" ] && ! [ "$(hits "$probe")" -gt 0 ] 2> /dev/null; then
	nohw="a hardware breakpoint on tt_unlikely() was hit ${probe##*breakpoint hits } times: the debug registers do not fire here"
fi
if [ -n "$nohw" ]; then
	tap_skip "no hardware breakpoint here: gdb says \"$nohw\"" \
		"a hardware breakpoint at a site: the key changes go through"
else
	# Some VMs fire debug registers only now and then (this check has seen
	# the probe hit and the site's breakpoint not, in one run): up to three
	# runs for one that hits.  A run in which the breakpoint never fired
	# says nothing of the library, unless its key changes failed.
	tries=1
	while [ "$(hits "$out")" = 0 ] && [ $tries -lt 3 ] &&
	      echo "$out" | grep -q 'toggles 4 errors 0 bad 0$'; do
		out=$(at_site hbreak)
		tries=$((tries + 1))
	done
	if [ "$(hits "$out")" = 0 ] && echo "$out" | grep -q 'toggles 4 errors 0 bad 0$'; then
		tap_skip "the hardware breakpoint at the site was hit 0 times in $tries runs (the probe's on tt_unlikely() was hit $(hits "$probe") times): the debug registers fire only now and then here" \
			"a hardware breakpoint at a site: the key changes go through"
	else
		echo "$out" | grep -q 'toggles 4 errors 0 bad 0$' && [ "$(hits "$out")" -gt 0 ]
		tap_ok $? "a hardware breakpoint at a site, hit $(hits "$out") times in run $tries: the key changes go through"
		[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
	fi
fi
tap_exit
