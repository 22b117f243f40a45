#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Check that the tools the Coccinelle targets run are on PATH.  Tools are
# looked for as commands, not as Debian packages, so a system without dpkg
# that has spatch works.  When one is missing and apt-get exists,
# scripts/install-deps GROUP installs the packages; otherwise the missing
# tools are named and the exit status is 2.
#
# usage: cocci-need.sh GROUP TOOL...
group=$1
shift
missing=""
for t in "$@"; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
	"$(dirname "$0")/install-deps" "$group" || exit 2
	for t in $missing; do
		command -v "$t" >/dev/null 2>&1 || {
			echo "coccicheck: $t still missing after scripts/install-deps $group" >&2
			exit 2
		}
	done
	exit 0
fi
echo "coccicheck: missing tools:$missing (Debian: apt-get install coccinelle python3; elsewhere install Coccinelle 1.1 and Python 3)" >&2
exit 2
