# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Sourced by the tests that point statickeys-keys at a waiting process
# (test_keys_tool.sh, test_keys_hostile.sh); $tmp is their scratch folder.
#
# serve [AS...] PROG ARGS...: start PROG (under $RUNNER, if set), wait until
# it says "ready <pid>"; $pid is its process.  unserve ends it (end of its
# standard input) and waits for it.
serve() {
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in" "$tmp/out"
	${RUNNER:-} "$@" < "$tmp/in" > "$tmp/out" &
	exec 3> "$tmp/in" 4< "$tmp/out"
	read -r _ pid <&4
}
unserve() {
	exec 3>&-
	wait
	exec 4<&-
}
