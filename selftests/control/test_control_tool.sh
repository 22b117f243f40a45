# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# statickeys-keys --set, --dyndbg and --sites against the sample daemon
# (samples/control/ctl_daemon): STATICKEYS_CONTROL=1 opens its channel,
# a key and a query change what its next unit of work does, a read-only
# and a private key are refused, a user who may not ptrace it is refused,
# a daemon that did not opt in has no channel, bad arguments change nothing.
. "$srctree/selftests/lib/tap.sh"
daemon=$objtree/samples/control/ctl_daemon
tool=$objtree/tools/statickeys-keys
tmp=$(mktemp -d)
trap 'exec 3>&- 4<&-; kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
keys() { ${RUNNER:-} "$tool" "$@"; }

# start VAR=VALUE [PROG [ARG]]: the daemon, fed a line per unit of work;
# $pid is its.
start() {
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in" "$tmp/out"
	env "$1" ${RUNNER:-} "${2:-$daemon}" $3 < "$tmp/in" > "$tmp/out" 2> "$tmp/err" &
	exec 3> "$tmp/in" 4< "$tmp/out"
	read -r _ _ pid <&4
}
stop() { exec 3>&-; wait; exec 4<&-; }
# work: one unit of work; its line in $line.
work() { echo >&3; read -r line <&4; }

tap_plan 10

start STATICKEYS_CONTROL=1
work
[ "$line" = "work 1: verbose off, fast path on, secret off" ]
tap_ok $? "ctl_daemon runs with STATICKEYS_CONTROL=1 (pid $pid)"

if [ "$SK_JUMP_LABEL" = y ]; then
	out=$(keys "$pid" --set ctl_verbose=on 2>&1) && work &&
		[ "$out" = "$pid: ok ctl_verbose on" ] &&
		[ "$line" = "work 2: verbose on, fast path on, secret off" ]
	tap_ok $? "--set ctl_verbose=on: the daemon's next work takes the new path"
	[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
	out=$(keys "$pid" --set ctl_fast_path=off --set ctl_secret=on 2>&1)
	st=$?
	work
	[ $st = 1 ] && echo "$out" | grep -q "process $pid: error: key ctl_fast_path is read-only" &&
		echo "$out" | grep -q "process $pid: error: key ctl_secret is private" &&
		[ "$line" = "work 3: verbose on, fast path on, secret off" ]
	tap_ok $? "a read-only and a private key: refused (status 1), unchanged"
	[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
else
	work; work
	tap_skip "CONFIG_JUMP_LABEL=n: keys are found by their sites" "--set"
	tap_skip "CONFIG_JUMP_LABEL=n: keys are found by their sites" "--set refused"
fi

if grep -qx 'CONFIG_DYNAMIC_DEBUG=y' "$objtree/.config"; then
	out=$(keys "$pid" --dyndbg 'func do_work +p' 2>&1) && work &&
		[ "$out" = "$pid: ok 1 sites matched" ] && grep -qx 'work 4 done' "$tmp/err"
	tap_ok $? "--dyndbg 'func do_work +p': the daemon's pr_debug() prints"
	out=$(keys "$pid" --sites 2>&1) &&
		echo "$out" | grep -q '^samples/control/ctl_daemon.c:[0-9]* \[ctl_daemon\]do_work =p "work %u done\\n"$\|ctl_daemon.c:[0-9]* \[ctl_daemon\]do_work =p "work %u done\\n"$'
	tap_ok $? "--sites: the site, as the kernel's control file shows it"
	[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
else
	work
	tap_skip "CONFIG_DYNAMIC_DEBUG=n" "--dyndbg"
	tap_skip "CONFIG_DYNAMIC_DEBUG=n" "--sites"
fi

grep -q "^statickeys: control: pid [0-9]* uid 0: set ctl_secret on: refused$" "$tmp/err" ||
	[ "$SK_JUMP_LABEL" != y ]
tap_ok $? "every change is logged on the daemon's stderr with who asked"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# The other user runs copies of the tool and of the runner: the tree
	# may sit in a directory only its owner enters (/root on a fresh
	# machine).  The tool needs nothing else of the tree.
	chmod 755 "$tmp"
	cp "$tool" "$tmp/statickeys-keys"
	runner=
	if [ -n "${RUNNER:-}" ]; then
		set -- $RUNNER
		cp "$1" "$tmp/runner"
		shift
		runner="$tmp/runner $*"
	fi
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		$runner "$tmp/statickeys-keys" "$pid" --set ctl_verbose=off 2>&1)
	st=$?
	work
	[ $st = 1 ] && echo "$out" | grep -q "error: permission denied: uid 65534" &&
		{ [ "$SK_JUMP_LABEL" != y ] || [ "${line#work 5: verbose on}" != "$line" ]; }
	tap_ok $? "a user who may not ptrace the daemon is refused, nothing changed"
	[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
else
	work
	tap_skip "needs root and setpriv" "another user"
fi
out=$(keys "$pid" --set 'ctl_verbose=maybe' 2>&1)
st1=$?
out2=$(keys "$pid" --dyndbg "$(printf 'func x +p\nfunc y +p')" 2>&1)
st2=$?
[ $st1 = 2 ] && [ $st2 = 2 ] && echo "$out2" | grep -q "one line" && echo "$out" | grep -q "not NAME=on or NAME=off"
tap_ok $? "bad --set and --dyndbg arguments: status 2, nothing sent"
stop

start STATICKEYS_CONTROL=0
out=$(keys "$pid" --sites 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "process $pid has no control channel" &&
	! grep -qx sk-control /proc/"$pid"/task/*/comm
tap_ok $? "without STATICKEYS_CONTROL=1 the daemon has no channel and no thread"
stop

start STATICKEYS_CONTROL=0 "$daemon" -c
out=$(keys "$pid" --sites 2>&1)
st=$?
work
{ [ $st = 0 ] || echo "$out" | grep -q "no dynamic debug"; } &&
	grep -qx sk-control /proc/"$pid"/task/*/comm && [ "${line#work 1:}" != "$line" ]
tap_ok $? "ctl_daemon -c: statickeys_control_start() opens the channel"
[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
stop
tap_exit
