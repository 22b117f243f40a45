# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# statickeys-keys' options: --version, the library's internal keys left out
# unless -a, the key-name filter -k, --json (parsed by python3 and compared
# with the text listing), several PIDs in one call, bad options named.
# The targets are test_introspect --serve processes (serve.sh), whose own
# table (statickeys_print_keys()) is the reference.
. "$srctree/selftests/lib/tap.sh"
dir=$objtree/selftests/introspect
tool=$objtree/tools/statickeys-keys
tmp=$(mktemp -d)
trap 'exec 3>&- 4<&- 5>&- 6<&-; rm -rf "$tmp"' EXIT

. "$srctree/selftests/introspect/serve.sh"

tap_plan 15

# The options alone run anywhere: under an emulator, through $RUNNER.
opt_tool() { ${RUNNER:-} "$tool" "$@"; }

# The version the headers say, which the tool must print.
ver=$(sed -n 's/^#define STATICKEYS_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
	"$srctree/include/statickeys/statickeys.h" | paste -sd. -)
out=$(opt_tool --version 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "statickeys-keys (statickeys) $ver" ]
tap_ok $? "--version prints the library version $ver ($out)"
out2=$(opt_tool -V 2>&1)
[ "$out2" = "$out" ]
tap_ok $? "-V is --version"

err=$(opt_tool --bogus 1 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q -- "--bogus" &&
	echo "$err" | grep -q '^usage: statickeys-keys'
tap_ok $? "an unknown option is named, with the usage, status 2 ($(echo "$err" | head -1))"
err=$(opt_tool -k 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q '^usage: statickeys-keys'
tap_ok $? "-k without a pattern: usage, status 2"

if [ -n "${RUNNER:-}" ]; then
	for i in $(seq 5 15); do
		tap_skip "the tool reads a native process; under $RUNNER the target's /proc files are the emulator's" "options $i"
	done
	tap_exit
fi
if [ "$SK_JUMP_LABEL" != y ]; then
	for i in $(seq 5 15); do
		tap_skip "CONFIG_JUMP_LABEL=n: no site, no key to list" "options $i"
	done
	tap_exit
fi

# Two targets at once: the second on descriptors 5 and 6.
serve "$dir/test_introspect" --serve "$tmp/self"
pid1=$pid
mkfifo "$tmp/in2" "$tmp/out2"
"$dir/test_introspect" --serve "$tmp/self2" < "$tmp/in2" > "$tmp/out2" &
exec 5> "$tmp/in2" 6< "$tmp/out2"
read -r _ pid2 <&6

"$tool" "$pid1" > "$tmp/default" 2> "$tmp/default.err"; rc_default=$?
"$tool" -a "$pid1" > "$tmp/all" 2>&1; rc_all=$?
"$tool" --all --key 'k_*' -k 'intro_?ate_key' "$pid1" > "$tmp/filtered" 2>&1; rc_f=$?
"$tool" -k 'no_such_*' "$pid1" > "$tmp/none" 2>&1; rc_none=$?
"$tool" --json -a "$pid1" > "$tmp/json" 2> "$tmp/json.err"; rc_json=$?
"$tool" -a "$pid1" "$pid2" > "$tmp/two" 2>&1; rc_two=$?
"$tool" --json "$pid1" "$pid2" > "$tmp/two.json" 2>&1; rc_two_json=$?
"$tool" "$pid1" 2147483647 > "$tmp/one_bad" 2> "$tmp/one_bad.err"; rc_one_bad=$?
exec 5>&-	# both see the end of their input; unserve waits for both
unserve
exec 6<&-

[ $rc_all -eq 0 ] && cmp -s "$tmp/self" "$tmp/all"
tap_ok $? "-a lists every key, the program's own table exactly"
[ "$tap_failed" -ne 0 ] && diff "$tmp/self" "$tmp/all" | tap_diag

grep -q '^key .* sk_probe_key ' "$tmp/all" &&
	[ $rc_default -eq 0 ] && ! grep -q 'sk_probe_key' "$tmp/default" &&
	grep -q '^key .* k_exe ' "$tmp/default" &&
	{ ! grep -q '^key .* statickeys_randomize_kstack_offset ' "$tmp/all" ||
	  grep -q '^key .* statickeys_randomize_kstack_offset ' "$tmp/default"; }
# The core library exports no key of its own since randomize_kstack_offset
# moved to libstatickeys-kstack; an exported key a program links stays.
tap_ok $? "without -a the library's internal key sk_probe_key is left out, exported keys and the program's stay"
# The default listing is the full one minus the internal key and its sites.
awk '/^key /{skip = / sk_probe_key /} !skip' "$tmp/all" | cmp -s - "$tmp/default"
tap_ok $? "and nothing else differs"

names=$(grep '^key ' "$tmp/filtered" | awk '{print $3}' | sort | tr '\n' ' ')
[ $rc_f -eq 0 ] && [ "$names" = "intro_late_key k_def k_exe k_ro k_true " ]
tap_ok $? "-k GLOB (twice): only the keys whose names match either pattern ($names)"
# Each listed key comes with all its sites, as in the full listing.
awk '/^key /{keep = ($3 ~ /^k_/ || $3 == "intro_late_key")} keep' "$tmp/all" | cmp -s - "$tmp/filtered"
tap_ok $? "-k keeps each matching key's sites, in the same order"
[ $rc_none -eq 0 ] && [ ! -s "$tmp/none" ]
tap_ok $? "-k matching nothing: an empty listing, status 0"

# --json: valid JSON, the same keys and sites as the text listing.
python3 - "$tmp/json" "$tmp/all" "$pid1" "$ver" <<'EOF' > "$tmp/json.check" 2>&1
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
pid, ver = int(sys.argv[3]), sys.argv[4]
assert doc["schema"] == 1, doc.get("schema")
assert doc["version"] == ver, doc["version"]
assert len(doc["processes"]) == 1
p = doc["processes"][0]
assert p["pid"] == pid and p["status"] == "complete" and p["left_out"] == [], p
lines = []
for k in p["keys"]:
    typ = ("TRUE" if k["default"] else "FALSE") + (",RO" if k["read_only"] else "") + \
          (",DEFERRED" if k["deferred"] else "")
    lines.append("key %s %s %s %s %s count %d %s sites %d" % (
        k["address"], k["name"] if k["name"] is not None else "-",
        k["name_source"], k["object"], typ, k["count"],
        "on" if k["enabled"] else "off", len(k["sites"])))
    assert k["internal"] == (k["name"] == "sk_probe_key"), k
    for s in k["sites"]:
        lines.append("  site %s %s %s %s" % (s["address"], s["target"],
                     "likely" if s["likely"] else "unlikely", s["state"]))
if lines != text:
    for a, b in zip(lines, text):
        if a != b:
            print("json: " + a + "\ntext: " + b)
    sys.exit(1)
print("ok", len(p["keys"]))
EOF
[ $rc_json -eq 0 ] && [ ! -s "$tmp/json.err" ] && grep -q '^ok [1-9]' "$tmp/json.check"
tap_ok $? "--json parses (python3 json) and says what the text listing says, key by key and site by site"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/json.check"

# Several PIDs: one table each, in the order given, each after its header.
{ echo "process $pid1"; cat "$tmp/self"; echo "process $pid2"; cat "$tmp/self2"; } |
	cmp -s - "$tmp/two" && [ $rc_two -eq 0 ]
tap_ok $? "two PIDs: \"process PID\" then that process's own table, for each"
[ "$tap_failed" -ne 0 ] && diff <({ echo "process $pid1"; cat "$tmp/self"; echo "process $pid2"; cat "$tmp/self2"; }) "$tmp/two" | tap_diag
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
pids = [p["pid"] for p in d["processes"]]
assert pids == [int(sys.argv[2]), int(sys.argv[3])], pids
assert all(p["keys"] and not any(k["internal"] for k in p["keys"]) for p in d["processes"])
' "$tmp/two.json" "$pid1" "$pid2" && [ $rc_two_json -eq 0 ]
tap_ok $? "--json with two PIDs: one entry each, in order, internal keys left out"
[ $rc_one_bad -eq 1 ] && head -1 "$tmp/one_bad" | grep -qx "process $pid1" &&
	grep -q '^key .* k_exe ' "$tmp/one_bad" &&
	grep -qx "statickeys-keys: no process 2147483647" "$tmp/one_bad.err"
tap_ok $? "a PID that cannot be read among good ones: the others are listed, it is named, status 1"

# A name the process chose: its library in a folder whose name holds a
# quote, a backslash and a byte that is not UTF-8.  The JSON stays valid.
odd=$tmp/$(printf 'q"b\\\377x')
mkdir "$odd"
cp "$dir/libintro_dso.so" "$odd/"
serve env LD_LIBRARY_PATH="$odd" "$dir/test_introspect" --serve "$tmp/self3"
"$tool" --json "$pid" > "$tmp/odd.json" 2> "$tmp/odd.err"; rc=$?
unserve
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
objs = {k["object"] for k in d["processes"][0]["keys"]}
want = [o for o in objs if o.endswith("/q\"b\\\ufffdx/libintro_dso.so")]
assert want, objs
' "$tmp/odd.json" && [ $rc -eq 0 ]
tap_ok $? "--json escapes a mapped file name with a quote, a backslash and a non-UTF-8 byte (U+FFFD)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/odd.err"
tap_exit
