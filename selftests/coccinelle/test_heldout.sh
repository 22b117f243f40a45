#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Held-out inputs that broke scripts/coccicheck once (issue 19): a series
# run with a relative output directory, spatch's work directories in the
# scanned tree (read-only tree, kill -9), Kconfig lines with a comment and
# options no Kconfig file defines, run-time defaults in boot-parameter
# handlers and comments that mention __init, parts of files spatch cannot
# parse, TRUE_RO/FALSE pairs, an old spatch, a series run killed in its
# git step.  Each check failed on the code before its fix.  TAP on stdout.
set -u
# shellcheck source=selftests/coccinelle/lib.sh
. "$(dirname "$0")/lib.sh"
: "${srctree:?srctree not set}" "${objtree:?objtree not set}"
J=${J:-$(nproc)}
[ "$J" -ge 2 ] || J=2	# the work directories appear with J >= 2 only
fix=$srctree/selftests/coccinelle/fixtures
cc="python3 $srctree/scripts/coccicheck --jobs $J"
work=$objtree/cocci/heldout
export GIT_CEILING_DIRECTORIES=$work
export GIT_AUTHOR_NAME="Coccinelle Test" GIT_AUTHOR_EMAIL=cocci@example.org
rm -rf "$work"
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp

plan=18
echo "TAP version 13"
echo "1..$plan"
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
pair() {	# pair KEY CFG: the template with KEY and CFG filled in
	sed "s/@KEY@/$1/g; s/@CFG@/$2/g" "$fix/awkward/pair.c.in"
}
# listing DIR: every path and mode under DIR, to see that a run wrote nothing
listing() { (cd "$1" && find . -printf '%p %m %s\n' | sort); }

# 2. MODE=series with a relative --output-dir, and with the default one
# ("series" in the working directory): the files are written there.
t=$work/relative
mkdir -p "$t/tree" "$t/cwd"
pair rel_key CONFIG_REL >"$t/tree/rel.c"
(cd "$t/cwd" && $cc --mode series --output-dir out ../tree) >"$t.list" 2>"$t.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(ls "$t/cwd/out" | grep -c '\.patch$')" -eq 2 ] &&
	[ "$(cat "$t.list")" = "$(ls -d "$t/cwd/out"/*.patch)" ]
ok $? "MODE=series --output-dir out (relative) writes the series there (exit $rc)" "$t.err" "$t.list"
(cd "$t/cwd" && $cc --mode series ../tree) >"$t.list" 2>"$t.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(ls "$t/cwd/series" | grep -c '\.patch$')" -eq 2 ]
ok $? "MODE=series with the default output directory writes ./series (exit $rc)" "$t.err"

# 3. A scan never writes into the tree it reads: with J >= 2 spatch's
# work directories go to the driver's temporary directory.  A read-only
# bind mount of the tree (when this system allows one) must work in every
# mode; without it, the tree's listing must not change.
t=$work/ro
mkdir -p "$t/src" "$t/mnt" "$t/out"
cp -r "$fix/init_on/in/." "$t/src"
before=$(listing "$t/src")
: >"$t.err"
for mode in report patch context org series; do
	$cc --mode $mode --output-dir "$t/out/$mode" "$t/src" >"$t.$mode" 2>>"$t.err"
	echo "$mode $?" >>"$t.status"
done
[ "$before" = "$(listing "$t/src")" ] && [ "$(awk '$2 != 1' "$t.status")" = "" ]
ok $? "J=$J: no mode writes into the tree it scans" "$t.err" "$t.status"
if unshare -m true 2>/dev/null; then
	unshare -m bash -c '
		mount --bind -o ro "$1/src" "$1/mnt" || exit 3
		for mode in report patch series; do
			'"$cc"' --mode $mode --output-dir "$1/out/ro-$mode" "$1/mnt" \
				>"$1/ro.$mode" 2>>"$1/ro.err"
			[ $? -eq 1 ] || exit 1
		done' _ "$t" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$t.report" "$t/ro.report" && cmp -s "$t.patch" "$t/ro.patch"
	ok $? "a read-only tree gives the same report, patch and series (rc $rc)" "$t/ro.err"
else
	skip "a read-only tree gives the same report, patch and series" "no unshare -m here"
fi
# kill -9 of the whole run while spatch works leaves nothing in the tree.
t=$work/kill
mkdir -p "$t"
pair kill_key CONFIG_KILL >"$t/small.c"
python3 - "$t/huge.c" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
	# A pair too, so that every pass parses this file.
	f.write('#ifdef CONFIG_KILL\nDECLARE_STATIC_KEY_TRUE(kill_key);\n#else\n'
		'DECLARE_STATIC_KEY_FALSE(kill_key);\n#endif\n')
	for i in range(8000):
		f.write('int g%d(int x)\n{\n\tif (x > %d && static_branch_unlikely(&kill_key))\n\t\treturn x;\n\treturn 0;\n}\n' % (i, i))
PY
before=$(listing "$t")
setsid $cc --mode patch "$t" >/dev/null 2>"$t.err" &
pid=$!
# Wait (no time limit is asserted) until spatch has made a work directory,
# wherever it puts it, then kill the whole session.
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null &&
      ! find "$t" "$TMPDIR" -mindepth 1 -type d -name '*static_key_maybe_*' | grep -q .; do
	sleep 0.1
	i=$((i + 1))
done
seen=$(find "$t" "$TMPDIR" -mindepth 1 -type d -name '*static_key_maybe_*' | head -n 1)
kill -9 -- -$pid 2>/dev/null
wait $pid 2>/dev/null
[ -n "$seen" ] && [ "$before" = "$(listing "$t")" ]
ok $? "kill -9 while spatch works leaves nothing in the tree (work dir: ${seen:-none seen})"
rm -rf "${TMPDIR:?}"/*

# 4. Kconfig: "config FOO # comment" is read (drivers/clk/Kconfig has it),
# and an option no Kconfig file of the tree defines is refused, not
# converted blind.
t=$work/kconfig
mkdir -p "$t"
printf '# SPDX-License-Identifier: GPL-2.0-only\nconfig KC_TRI # a comment after the name\n\ttristate "tristate"\n\nmenuconfig KC_BOOL\t# another\n\tbool "bool"\n' >"$t/Kconfig"
{ pair tri_key CONFIG_KC_TRI; pair bool_key CONFIG_KC_BOOL | tail -n +3; pair none_key CONFIG_KC_NOWHERE | tail -n +3; } >"$t/kc.c"
$cc --mode report "$t" >"$t.report" 2>"$t.err"
grep -q 'tri_key: CONFIG_KC_TRI is tristate (Kconfig:2): #ifdef is false for =m' "$t.report"
ok $? "config KC_TRI # comment: the tristate option is refused" "$t.report" "$t.err"
grep -q 'bool_key: DEFINE_STATIC_KEY_TRUE/FALSE chosen by CONFIG_KC_BOOL; use' "$t.report" &&
	grep -q 'none_key: CONFIG_KC_NOWHERE is defined by no Kconfig file of the tree' "$t.report"
ok $? "menuconfig with a comment is read; an undefined option is refused" "$t.report"

# 5. Run-time defaults: a call in a boot-parameter handler runs only when
# the parameter is given (a MAYBE key would change the default when it is
# not): not reported.  A comment that mentions __init does not make a
# function __init.  A real __init function still is reported.
t=$work/handler
mkdir -p "$t"
cat >"$t/h.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
DEFINE_STATIC_KEY_FALSE(param_key);
DEFINE_STATIC_KEY_FALSE(setup_key);
DEFINE_STATIC_KEY_FALSE(late_key);
DEFINE_STATIC_KEY_FALSE(boot_key);

static int __init param_on(char *s)
{
	if (IS_ENABLED(CONFIG_PARAM))
		static_branch_enable(&param_key);
	return 0;
}
early_param("param_on", param_on);

static int __init setup_on(char *s)
{
#ifdef CONFIG_SETUP
	static_branch_enable(&setup_key);
#endif
	return 1;
}
__setup("setup_on", setup_on);

/* Not __init: called after boot, from the __init code's work queue. */
static void late_on(void)
{
	if (IS_ENABLED(CONFIG_LATE))
		static_branch_enable(&late_key);
}

static void __init boot_on(void)
{
	if (IS_ENABLED(CONFIG_BOOT))
		static_branch_enable(&boot_key);
}
EOF
$cc --mode report "$t" >"$t.report" 2>"$t.err"
printf '%s\n' "h.c:34:3: boot_key: initial state set at run time from CONFIG_BOOT in __init boot_on(); not converted, consider DEFINE_STATIC_KEY_MAYBE(CONFIG_BOOT, boot_key)" |
	diff -u - "$t.report" >"$t.diff" 2>&1
ok $? "run-time defaults: handlers and a comment naming __init are not reported" "$t.diff" "$t.err"

# 7. Silent gaps: a pair spatch does not see (the code around it does not
# parse) is reported, and so is a TRUE_RO/FALSE pair.
t=$work/gaps
mkdir -p "$t"
cat >"$t/gap.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
#define GAP_BODY(x) x x )
static int broken(int a {
	return GAP_BODY(a
#ifdef CONFIG_GAP
DEFINE_STATIC_KEY_TRUE(gap_key);
#else
DEFINE_STATIC_KEY_FALSE(gap_key);
#endif
	) } } ;
EOF
cat >"$t/mixed.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
#ifdef CONFIG_MIXED
DEFINE_STATIC_KEY_TRUE_RO(mixed_key);
#else
DEFINE_STATIC_KEY_FALSE(mixed_key);
#endif
EOF
pair use_key CONFIG_USE >"$t/use.c"
printf '%s\n' '// SPDX-License-Identifier: GPL-2.0-only' 'static int broken(int a {' \
	'	return static_branch_unlikely(&use_key) ) } ;' '' 'int fine(void)' '{' \
	'	return static_branch_likely(&use_key);' '}' >"$t/use2.c"
$cc --mode report "$t" >"$t.report" 2>"$t.err"
rc=$?
grep -q '^use2.c:3:9: use_key: this test was not converted: spatch did not parse' "$t.report" &&
	grep -q '^use2.c:7:9: use_key: test of a CONFIG_USE-default key' "$t.report" &&
	grep -q '^gap.c:6:1: gap_key: .*spatch did not parse' "$t.report" && [ "$rc" -eq 1 ]
ok $? "a pair and a test in code spatch cannot parse are reported (exit $rc)" "$t.report" "$t.err"
grep -q '^mixed.c:3:1: mixed_key: DEFINE_STATIC_KEY_TRUE_RO and DEFINE_STATIC_KEY_FALSE differ' "$t.report"
ok $? "a TRUE_RO/FALSE pair is reported" "$t.report"
$cc --mode patch "$t" >"$t.patch" 2>"$t.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '^+++ ' "$t.patch")" -eq 2 ] && grep -q 'gap_key: .*spatch did not parse' "$t.err" &&
	grep -q '^use2.c:3:9: use_key: this test was not converted' "$t.err" &&
	grep -q '^+	return static_branch_maybe(CONFIG_USE, &use_key);' "$t.patch"
ok $? "patch mode names the unparsed pair and test on stderr, converts the rest (exit $rc)" "$t.err" "$t.patch"

# 9. An spatch older than the scripts' "// Requires:" is named, before any
# run ("unknown option --python" was all an old one said).
t=$work/oldspatch
mkdir -p "$t/bin" "$t/tree"
cat >"$t/bin/spatch" <<'EOF'
#!/bin/sh
case "$1" in
--version) echo "spatch version 1.0.4 compiled with OCaml version 4.05.0"; exit 0 ;;
esac
echo "unknown option --python" >&2
exit 2
EOF
chmod +x "$t/bin/spatch"
pair old_key CONFIG_OLD >"$t/tree/old.c"
PATH=$t/bin:$PATH $cc --mode report "$t/tree" >"$t.out" 2>"$t.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$t.out" ] && grep -q 'spatch 1.0.4 is too old: .*needs 1\.[0-9.]*' "$t.err" &&
	grep -q 'Requires' "$t.err"
ok $? "an old spatch is named with the version needed (exit $rc)" "$t.err"
cp "$t/bin/spatch" "$t/bin/spatch.old"
sed -i 's/1\.0\.4/1.9.0/' "$t/bin/spatch"
PATH=$t/bin:$PATH $cc --mode report "$t/tree" >"$t.out" 2>"$t.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'spatch 1.9.0 has no --python' "$t.err"
ok $? "an spatch without an option the driver passes is named (exit $rc)" "$t.err"

# 10. The series is written elsewhere and renamed into place: a SIGTERM in
# the git step leaves the previous series as it was.
t=$work/atomic
mkdir -p "$t/tree" "$t/bin"
pair at_key CONFIG_AT >"$t/tree/at.c"
$cc --mode series --output-dir "$t/series" "$t/tree" >/dev/null 2>"$t.err"
before=$(cd "$t/series" && md5sum ./*)
real=$(command -v git)
cat >"$t/bin/git" <<EOF
#!/bin/sh
# Kill the driver (this git's parent) in the middle of its git step.
[ "\$1" = commit ] && kill -TERM \$PPID && sleep 1
exec "$real" "\$@"
EOF
chmod +x "$t/bin/git"
pair at2_key CONFIG_AT2 >"$t/tree/at2.c"
PATH=$t/bin:$PATH $cc --mode series --output-dir "$t/series" "$t/tree" >"$t.out" 2>>"$t.err"
rc=$?
[ "$rc" -eq 143 ] && [ "$before" = "$(cd "$t/series" && md5sum ./*)" ] &&
	[ "$(ls -A "$t" | tr '\n' ' ')" = "bin series tree " ]
ok $? "SIGTERM in the git step keeps the previous series (exit $rc)" "$t.err"
$cc --mode series --output-dir "$t/series" "$t/tree" >"$t.out" 2>>"$t.err"
grep -q 'at2_key' "$t"/series/0001-*.patch
ok $? "the next run replaces the series" "$t.out" "$t.err"

# Sharding: MAX shards of the scan and their merge give what one run
# gives, in report, patch and series mode; an incomplete set is refused.
t=$work/shards
mkdir -p "$t/tree"
for c in init_on spellings crossfile refusals macros runtime details prefilter comments hints; do
	cp -r "$fix/$c/in" "$t/tree/$c"
done
for i in 0 1 2; do
	$cc --max 3 --index $i --shard-out "$t/shard$i.json" "$t/tree" >>"$t.list" 2>>"$t.err" ||
		echo "shard $i failed" >>"$t.err"
done
: >"$t.diff"
for mode in report patch series; do
	$cc --mode $mode --output-dir "$t/one" "$t/tree" >"$t.$mode" 2>"$t.$mode.err"
	rc1=$?
	$cc --mode $mode --output-dir "$t/merged" --merge "$t/shard0.json" --merge "$t/shard1.json" \
		--merge "$t/shard2.json" "$t/tree" >"$t.$mode.m" 2>"$t.$mode.m.err"
	rc2=$?
	sed -i "s|$t/one/||; s|$t/merged/||" "$t.$mode" "$t.$mode.m"
	[ "$rc1" -eq 1 ] && [ "$rc2" -eq 1 ] || echo "$mode: exit $rc1 one run, $rc2 merged" >>"$t.diff"
	diff -u "$t.$mode" "$t.$mode.m" >>"$t.diff" 2>&1
	diff -u "$t.$mode.err" "$t.$mode.m.err" >>"$t.diff" 2>&1
done
diff -r -I '^From [0-9a-f]\{40\} ' -I '^Date: ' "$t/one" "$t/merged" >>"$t.diff" 2>&1
[ ! -s "$t.diff" ] && [ "$(grep -c . "$t.report")" -gt 50 ]
ok $? "3 shards merged give the report, patch and series of one run" "$t.diff" "$t.err"
$cc --mode report --merge "$t/shard0.json" --merge "$t/shard2.json" "$t/tree" >"$t.out" 2>"$t.err"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$t.out" ] && grep -q 'not one complete set: indices 0/3, 2/3' "$t.err"
ok $? "a merge of an incomplete set of shards is refused (exit $rc)" "$t.err"

ls -A "$TMPDIR" >"$work/leftover"
[ ! -s "$work/leftover" ]
ok $? "no temporary file is left behind (but for the kill -9 run)" "$work/leftover"

cocci_done
