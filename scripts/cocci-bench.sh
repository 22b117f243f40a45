#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-cocci: time the whole-tree report run of coccinelle/*.cocci
# over Linux 6.1 with J jobs, once per way of choosing the files spatch
# parses, and print seconds and files per second (files of the tree, .c
# and .h, divided by the wall time).  Figures, not a test.
#
#   grep     scripts/coccicheck greps for the static-key API first (default)
#   gitgrep  spatch --use-gitgrep --dir . (the tree is made a git repo)
#   none     spatch --dir . with its own required-token test
#   nocheck  spatch parses every file (--disable-worth-trying-opt)
#
# The whole tree is timed with the default (grep) only: without the grep,
# spatch parses far more files (on mm/ "none" is 2x and "nocheck" 2.5x the
# time of "grep"; a whole-tree gitgrep collect pass had not ended after 9
# minutes).  The four ways are compared on mm/.
set -eu
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
out=$objtree/cocci/bench
src=$out/linux
cc="python3 $srctree/scripts/coccicheck --jobs $J --stats"

[ -r "$tarball" ] || { echo "bench-cocci: no $tarball: scripts/install-deps kernel" >&2; exit 1; }
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$out"
	mkdir -p "$out"
	tar -xJf "$tarball" -C "$out"
	mv "$out/linux-source-6.1" "$src"
	# Debian's tarball has a .gitignore that ignores everything: -f.
	(cd "$src" && git init -q && git add -f -A . &&
	 git -c user.name=bench -c user.email=bench@localhost commit -qm linux-6.1)
fi
total=$(find "$src" -name '*.[ch]' -not -path '*/.git/*' | wc -l)
sub=$(find "$src/mm" -name '*.[ch]' | wc -l)

run() {	# run LABEL PREFILTER DIR FILES
	local s e n
	s=$(date +%s.%N)
	$cc --prefilter "$2" --mode report "$3" >"$out/$1.report" 2>"$out/$1.err" || true
	e=$(date +%s.%N)
	n=$(grep -c . "$out/$1.report" || true)
	given=-
	[ "$2" = grep ] && given=$(sed -n 's/^coccicheck: \([0-9]*\) files given.*/\1/p' "$out/$1.err")
	printf '%-8s %-6s %8.1f s %6d files %8.1f files/s  grep kept %-6s findings %d\n' \
		"$1" "$(basename "$3")" "$(echo "$e - $s" | bc)" "$4" \
		"$(echo "$4 / ($e - $s)" | bc -l)" "${given:-?}" "$n"
}

echo "bench-cocci: Linux 6.1, $total .c/.h files, J=$J, $(nproc) CPUs, spatch $(spatch --version | head -n 1 | awk '{print $3}')"
run grep grep "$src" "$total"
for p in grep gitgrep none nocheck; do
	run "$p" "$p" "$src/mm" "$sub"
done
