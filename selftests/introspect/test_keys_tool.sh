# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# statickeys-keys against the table a program prints of itself
# (statickeys_print_keys()): its own keys, a shared object's loaded at
# start-up and one dlopen()ed later, after toggles, and after a failed
# write; the process is left as it was; a process the caller may not read
# is refused with its pid and the reason.  STATICKEYS_DEBUG=keys prints the
# table at start-up and at exit.
. "$srctree/selftests/lib/tap.sh"
dir=$objtree/selftests/introspect
tool=$objtree/tools/statickeys-keys
tmp=$(mktemp -d)
trap 'exec 3>&- 4<&-; rm -rf "$tmp"' EXIT

# serve PROG ARGS... / unserve: the process statickeys-keys reads.
. "$srctree/selftests/introspect/serve.sh"

tap_plan 10

# ---- STATICKEYS_DEBUG (runs anywhere, qemu-aarch64 included) ----
out=$(STATICKEYS_DEBUG=keys ${RUNNER:-} "$dir/test_introspect" --serve "$tmp/self" \
	< /dev/null 2>&1 >/dev/null)
start=$(echo "$out" | sed -n '/keys at start-up/,/keys at exit/p')
atexit=$(echo "$out" | sed -n '/keys at exit/,$p')
if [ "$SK_JUMP_LABEL" = y ]; then
	echo "$start" | grep -q '^key .* k_exe symtab .* FALSE count 0 off sites 2$' &&
		echo "$atexit" | grep -q '^key .* k_exe symtab .* FALSE count 1 on sites 2$' &&
		echo "$atexit" | grep -q '^key .* intro_late_key .*/libintro_late.so TRUE count 1 on sites 1$'
	tap_ok $? "STATICKEYS_DEBUG=keys: the table at start-up (k_exe off) and at exit (on, the late object's key too)"
else
	echo "$start" | grep -q '^statickeys: [1-9][0-9]* of them have no site (built with CONFIG_JUMP_LABEL=n, or without keys): their keys are not listed$' &&
		! echo "$out" | grep -q ' k_exe '
	tap_ok $? "STATICKEYS_DEBUG=keys, CONFIG_JUMP_LABEL=n: says which objects have no site to list keys by"
fi
[ "$tap_failed" -ne 0 ] && echo "$out" | tap_diag
out=$(STATICKEYS_DEBUG=keys,bogus ${RUNNER:-} "$dir/test_introspect" --serve "$tmp/self" \
	< /dev/null 2>&1 >/dev/null)
echo "$out" | grep -q "STATICKEYS_DEBUG=keys,bogus: unknown word 'bogus' (known: keys): ignored" &&
	echo "$out" | grep -q 'keys at exit'
tap_ok $? "an unknown word of STATICKEYS_DEBUG is named, the known one still acts"

# ---- the tool ----
if [ -n "${RUNNER:-}" ]; then
	# Under qemu-aarch64 the target's /proc/<pid>/maps and mem are the
	# emulator's own, not the guest's: nothing to read from outside.
	for i in 3 4 5 6 7 8 9 10; do
		tap_skip "the tool reads a native process; under $RUNNER the target's /proc files are the emulator's" "tool $i"
	done
	tap_exit
fi

serve "$dir/test_introspect" --serve "$tmp/self"
"$tool" -a "$pid" > "$tmp/tool" 2> "$tmp/tool.err"
rc=$?
cp "$tmp/self" "$tmp/self.before"
unserve
if [ "$SK_JUMP_LABEL" = y ]; then
	[ $rc -eq 0 ] && [ -s "$tmp/tool" ] && cmp -s "$tmp/self" "$tmp/tool"
	tap_ok $? "the tool's table is the program's own: its keys, the start-up and the dlopen()ed object's, after toggles"
	[ "$tap_failed" -ne 0 ] && diff "$tmp/self" "$tmp/tool" | tap_diag
	grep -q '^key .* intro_dso_key dynsym .*/libintro_dso.so FALSE count 2 on sites 2$' "$tmp/tool" &&
		grep -q '^key .* - none .*/libintro_dso.so FALSE count 0 off sites 1$' "$tmp/tool" &&
		grep -q '^key .* k_ro symtab .* FALSE,RO count 0 off sites 1$' "$tmp/tool" &&
		grep -q '^key .* k_def symtab .* FALSE,DEFERRED count 0 off sites 1$' "$tmp/tool" &&
		[ "$(grep -c '^  site .* JMP$' "$tmp/tool")" -ge 3 ]
	tap_ok $? "and what the keys are: objects, types, counts, directions, sites"
else
	[ $rc -eq 0 ] && cmp -s "$tmp/self" "$tmp/tool" && ! grep -q ' k_exe ' "$tmp/tool"
	tap_ok $? "CONFIG_JUMP_LABEL=n: the tool lists what the program does, the library's own keys, none of the program's"
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "the keys' state"
fi

# Read-only: the process's table is the same after the tool read it.
serve "$dir/test_introspect" --serve "$tmp/self"
"$tool" -a "$pid" > /dev/null 2>&1
"$tool" -a "$pid" > "$tmp/tool2" 2>/dev/null
unserve
if [ "$SK_JUMP_LABEL" = y ]; then
	sed 's/^key 0x[0-9a-f]*/key/; s/0x[0-9a-f]*/A/g' "$tmp/tool2" > "$tmp/a"
	sed 's/^key 0x[0-9a-f]*/key/; s/0x[0-9a-f]*/A/g' "$tmp/self.before" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b"
	tap_ok $? "reading twice changes nothing: the same table, with the same states"
else
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "reading changes nothing"
fi

# After a failed write: the program says EMULATED, the bytes say INT3.
if [ "$SK_JUMP_LABEL" = y ] && [ "$SRCARCH" = x86 ]; then
	serve "$dir/test_introspect_stuck" --serve "$tmp/self"
	"$tool" -a "$pid" > "$tmp/tool" 2>&1
	unserve
	grep -q ' EMULATED$' "$tmp/self" &&
		sed 's/ EMULATED$/ INT3/' "$tmp/self" | cmp -s - "$tmp/tool"
	tap_ok $? "after a failed write: the tool sees the INT3 of each site the program emulates, the rest alike"
	[ "$tap_failed" -ne 0 ] && diff "$tmp/self" "$tmp/tool" | tap_diag
else
	tap_skip "x86-64 with CONFIG_JUMP_LABEL=y only: no site is left emulated elsewhere" "after a failed write"
fi

# A process it may not read.  As root, the tool runs as nobody against a
# root process; otherwise against one of ours made non-dumpable.
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
if [ "$(id -u)" -eq 0 ] && id nobody > /dev/null 2>&1; then
	chmod 755 "$tmp"
	cp "$tool" "$tmp/statickeys-keys"
	run_tool() { as_nobody "$tmp/statickeys-keys" "$@"; }
	serve "$dir/test_introspect" --serve "$tmp/self"
	how="as nobody, a root process"
else
	run_tool() { "$tool" "$@"; }
	serve "$dir/test_introspect" --serve "$tmp/self" undumpable
	how="a non-dumpable process"
fi
err=$(run_tool "$pid" 2>&1 >"$tmp/tool")
rc=$?
unserve
[ $rc -eq 1 ] && [ ! -s "$tmp/tool" ] &&
	echo "$err" | grep -q "^statickeys-keys: may not read process $pid: Permission denied (its memory needs the permission ptrace does"
tap_ok $? "$how: refused, naming the pid and the reason, nothing listed ($err)"

# The program's file behind a directory its reader may not search: the
# tool, as the program's own user, reads it through /proc/<pid>/exe.
if [ "$(id -u)" -ne 0 ] || ! id nobody > /dev/null 2>&1; then
	tap_skip "needs root, to run the program and the tool as nobody" "the program behind a closed directory"
elif ! as_nobody test -r "$objtree/libstatickeys.so" ||
	! as_nobody test -r "$dir/libintro_dso.so"; then
	tap_skip "nobody cannot read the build tree ($objtree): the program could not start as nobody" "the program behind a closed directory"
elif [ "$SK_JUMP_LABEL" != y ]; then
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "the program behind a closed directory"
else
	mkdir "$tmp/hid"
	cp "$dir/test_introspect" "$tmp/hid/"
	: > "$tmp/self3"
	chown -R nobody "$tmp/hid" "$tmp/self3"
	serve as_nobody "$tmp/hid/test_introspect" --serve "$tmp/self3"
	chmod 000 "$tmp/hid"
	err=$(run_tool "$pid" 2>&1 >"$tmp/tool3")
	rc=$?
	unserve
	chmod 755 "$tmp/hid"
	want=$(grep ' k_exe ' "$tmp/self3")
	[ $rc -eq 0 ] && [ -n "$want" ] && [ "$(grep ' k_exe ' "$tmp/tool3")" = "$want" ]
	tap_ok $? "as nobody, a process of nobody's whose directory nobody may no longer enter: its key named from /proc/<pid>/exe ($want)"
	[ "$tap_failed" -ne 0 ] && { echo "$err"; cat "$tmp/tool3"; } | tap_diag
fi

err=$("$tool" 2147483647 2>&1)
[ $? -eq 1 ] && [ "$err" = "statickeys-keys: no process 2147483647" ]
tap_ok $? "a process that does not exist: said so ($err)"
err=$("$tool" 12x 2>&1)
[ $? -eq 2 ] && [ "$err" = "statickeys-keys: '12x' is not a process ID" ]
tap_ok $? "a bad argument: named ($err)"
tap_exit
