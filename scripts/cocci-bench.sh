#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-cocci: the whole Linux 6.1 tree, side by side with J jobs:
#
#   plain    spatch --dir . with a one-token rule (DEFINE_STATIC_KEY_TRUE
#            declarations, context mode) and spatch's own prefilter: the
#            least any whole-tree spatch run costs
#   report   scripts/coccicheck --mode report (both scripts)
#   patch    scripts/coccicheck --mode patch (both scripts, the finisher)
#   prefilter  the driver's file walk and grep alone (--sp-file of a rule
#            that matches nothing, no file reaches spatch), and git grep
#            of the same tokens for comparison
#
# Each line gives wall seconds and CPU seconds (user + system, the
# children included) and the ratio to the plain run's CPU; the patch run's
# --stats lines follow (CPU of each spatch pass, of the grep and of the
# driver itself).  Figures, not a test.
set -eu
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
out=$objtree/cocci/bench
src=$out/linux
cc="python3 $srctree/scripts/coccicheck --jobs $J"

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
printf '@@\ndeclarer name DEFINE_STATIC_KEY_TRUE;\nidentifier k;\n@@\n* DEFINE_STATIC_KEY_TRUE(k);\n' >"$out/plain.cocci"
printf '@@\n@@\n- __statickeys_bench_no_such_token__();\n' >"$out/none.cocci"

# measure LABEL COMMAND...: wall and CPU of COMMAND and its children
measure() {
	local label=$1
	shift
	python3 - "$label" "${plain_cpu:-0}" "$@" <<'PY'
import os, resource, subprocess, sys, time
label, base, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
err = os.environ.get('MEASURE_STDERR')
t = time.monotonic()
with open(err or os.devnull, 'w') as e:
	subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=e)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r.ru_utime + r.ru_stime
ratio = ' %5.2fx plain' % (cpu / base) if base else ''
print('%-10s %7.1f s wall %7.1f s CPU%s' % (label, wall, cpu, ratio))
PY
}

echo "bench-cocci: Linux 6.1, J=$J, $(nproc) CPUs, spatch $(spatch --version | head -n 1 | awk '{print $3}')"
line=$(cd "$src" && measure plain spatch --very-quiet --no-includes \
	--include-headers -j "$J" --sp-file "$out/plain.cocci" --dir .)
echo "$line"
plain_cpu=$(echo "$line" | awk '{print $5}')
(cd "$src" && measure report $cc --mode report .)
(cd "$src" && MEASURE_STDERR=$out/patch.stats measure patch $cc --stats --mode patch .)
grep -v 'symbolic link\|: spatch: \|not converted' "$out/patch.stats" |
	sed 's/^coccicheck: /  patch: /'
(cd "$src" && measure prefilter $cc --sp-file "$out/none.cocci" --mode report .)
(cd "$src" && measure "git grep" git grep -l -E 'STATIC_KEY|static_branch_|static_key_' -- '*.c' '*.h')
