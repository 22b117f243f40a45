# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# statickeys-keys against a process that works against it: a mapped object
# deleted, its " (deleted)" name taken by a FIFO or by another file, forged
# ELF files mapped executable.  The tool runs under timeout (a hang is a
# failure, never a wait), must not crash, lists what the process really
# maps (root: /proc/<pid>/map_files) and names each object it could not
# read, with exit status 3.  As nobody against a process of nobody's (no
# map_files there), the same cases are reported, not read by name.
. "$srctree/selftests/lib/tap.sh"
dir=$objtree/selftests/introspect
tool=$objtree/tools/statickeys-keys
corpus=$srctree/selftests/tools/elf-corpus
tmp=$(mktemp -d)
bt=$tmp/btrfs
trap 'exec 3>&- 4<&-; umount "$bt/B" "$bt" 2>/dev/null; rm -rf "$tmp"' EXIT
forged="phoff-wraps shoff-wraps phnum-times-entsize-overflows section-offset-wraps section-size-huge segment-wraps elf32-shoff-wraps big-endian64-shoff-wraps"

tap_plan 16

if [ -n "${RUNNER:-}" ]; then
	for i in $(seq 16); do
		tap_skip "the tool reads a native process; under $RUNNER the target's /proc files are the emulator's" "hostile $i"
	done
	tap_exit
fi

# serve PROG ARGS... / unserve: the process statickeys-keys reads.
. "$srctree/selftests/introspect/serve.sh"
# tool [AS...]: the tool on $pid under timeout: $rc, $tmp/tool, $tmp/err.
tool() {
	timeout 20 "$@" "$tool_bin" "$pid" > "$tmp/tool" 2> "$tmp/err"
	rc=$?
}
tool_bin=$tool
chmod 755 "$tmp"
mkdir -m 777 "$tmp/n"
lib=$tmp/lib
mkdir -m 755 "$lib"
so=$lib/libintro_dso.so

# prepare HOW: the program with its libintro_dso.so from $lib, then HOW done
# to the mapped file: deleted, fifo (a FIFO at "<name> (deleted)"), other
# (another object there).
prepare() {
	rm -rf "$lib"/* "$tmp/n/self"
	cp "$dir/libintro_dso.so" "$so"
	chmod 644 "$so"
	serve "${as[@]}" env LD_LIBRARY_PATH="$lib" "$dir/test_introspect" --serve "$tmp/n/self"
	grep -q " $so\$" "/proc/$pid/maps" || echo "# $so is not mapped"
	[ "$1" = none ] && return
	# A link elsewhere keeps the mapped file, for the symbolic link.
	ln "$so" "$lib/keep"
	rm -f "$so"
	case $1 in
	fifo)    mkfifo "$so (deleted)" ;;
	other)   cp "$dir/libintro_late.so" "$so (deleted)" ;;
	symlink) ln -s keep "$so (deleted)" ;;
	esac
}

# The cases of a keyed object need its sites; the forged files do not.
jl_why=
[ "$SK_JUMP_LABEL" = y ] || jl_why="CONFIG_JUMP_LABEL=n: the object has no table to list keys by"

# ---- as the caller (root here: map_files) ----
as=()
if [ -n "$jl_why" ]; then
	for how in deleted fifo other; do
		tap_skip "$jl_why" "root, $how"
	done
elif [ "$(id -u)" -eq 0 ]; then
	for how in deleted fifo other; do
		prepare $how
		tool
		unserve
		[ $rc -eq 0 ] && grep -q "^key .* intro_dso_key dynsym $so (deleted) FALSE count 2 on sites 2\$" "$tmp/tool"
		tap_ok $? "root, mapped object $how: read through map_files, its keys listed, exit 0 (exit $rc$([ $rc -eq 124 ] && echo ': hung'))"
		[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"
	done
else
	for how in deleted fifo other; do
		tap_skip "not root: /proc/<pid>/map_files needs CAP_SYS_ADMIN (the unprivileged cases below)" "root, $how"
	done
fi

serve "$dir/map_hold" $(for f in $forged; do echo "$corpus/$f"; done)
tool
unserve
ok=0
for f in $forged; do
	grep -q "^statickeys-keys: $corpus/$f: not read: " "$tmp/err" || { ok=1; echo "# $f not named"; }
done
[ $rc -eq 3 ] && [ $ok -eq 0 ] && grep -q "incomplete: 8 objects not read" "$tmp/err"
tap_ok $? "forged ELF files mapped: no crash, each named with its reason, exit 3 (exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"

# The well-formed corpus files hold a table outside any mapping of theirs.
serve "$dir/map_hold" "$corpus/good64" "$corpus/jump-table-odd-size" "$corpus/good32"
tool
unserve
# The corpus is x86: the file of the tool's own class is read as far as its
# table, the other class is refused (the odd-sized table is 64-bit's).
outside="its __jump_table (0x20 bytes at .*) is not a table of whole entries inside the object's mappings"
other="an ELF file of another machine or class"
if $READELF -h "$tool" | grep -q 'Class: *ELF32'; then
	[ $rc -eq 3 ] && grep -q "good32: not read: $outside" "$tmp/err" &&
		grep -q "jump-table-odd-size: not read: $other" "$tmp/err" &&
		grep -q "good64: not read: $other" "$tmp/err"
else
	[ $rc -eq 3 ] && grep -q "good64: not read: $outside" "$tmp/err" &&
		grep -q "jump-table-odd-size: not read: its __jump_table (0xd bytes" "$tmp/err" &&
		grep -q "good32: not read: $other" "$tmp/err"
fi
tap_ok $? "a table that points outside its object, one of part entries, another class: named (exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"

# ---- as nobody, a process of nobody's: no map_files ----
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root: cannot switch to another user"
elif ! id nobody > /dev/null 2>&1 || ! command -v setpriv > /dev/null; then
	why="no user nobody or no setpriv"
else
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	cp "$tool" "$tmp/statickeys-keys"
	tool_bin=$tmp/statickeys-keys
	"${as[@]}" test -x "$dir/test_introspect" -a -r "$dir/libintro_dso.so" -a -r "$objtree/libstatickeys.so" ||
		why="nobody cannot read the build directory $objtree"
fi
if [ -n "$why" ]; then
	for i in $(seq 11); do
		tap_skip "$why" "as nobody $i"
	done
	tap_exit
fi

serve "${as[@]}" "$dir/map_hold" $(for f in $forged; do echo "$corpus/$f"; done)
tool "${as[@]}"
unserve
[ $rc -eq 3 ] && grep -q "incomplete: 8 objects not read" "$tmp/err"
tap_ok $? "nobody, forged ELF files mapped: no crash, each named, exit 3 (exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"

if [ -n "$jl_why" ]; then
	for i in $(seq 10); do
		tap_skip "$jl_why" "as nobody, keyed object $i"
	done
	tap_exit
fi

prepare none
tool "${as[@]}"
unserve
[ $rc -eq 0 ] && grep -q "^key .* intro_dso_key dynsym $so " "$tmp/tool"
tap_ok $? "nobody, object in place: listed (the name leads to it; exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"

# The mapped file out of reach by name: named with the reason, the rest
# listed, exit 3.
for how in deleted fifo other symlink; do
	prepare $how
	tool "${as[@]}"
	unserve
	case $how in
	deleted) want="deleted after it was mapped (reading a deleted file takes /proc/<pid>/map_files: CAP_SYS_ADMIN)" ;;
	*)       want="deleted after it was mapped: the name leads to another file now" ;;
	esac
	[ $rc -eq 3 ] && grep -qF "statickeys-keys: $so (deleted): not read: $want" "$tmp/err" &&
		grep -q '^key .* k_exe symtab ' "$tmp/tool" &&
		! grep -q ' intro_dso_key ' "$tmp/tool"
	tap_ok $? "nobody, mapped object $how: named, not read by name, the rest listed, exit 3 (exit $rc$([ $rc -eq 124 ] && echo ': hung'))"
	[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"
done

# Names the process chose: an object at a path with a tab, an escape
# sequence and a newline, whose key's symbol holds a newline and an escape
# sequence too (objcopy renames it in .symtab).  Each byte below 0x20 is
# written as \ooo: the table keeps one line per key and site, nothing
# reaches the terminal, and the tool prints what the program prints.
if [ "$SK_JUMP_LABEL" = y ]; then
	evil=$(printf '%s/n/evil\t\033[31m\nx.so' "$tmp")
	objcopy --redefine-sym "intro_late_key=$(printf 'late\n\033[2Jkey')" \
		"$dir/libintro_late.so" "$evil"
	serve "$dir/test_introspect" --serve-with "$evil" "$tmp/self-evil"
	tool
	unserve
	bad=$(LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" "$tmp/tool" "$tmp/self-evil" | grep -vc ':0$')
	lines=$(grep -cv '^key \|^  site ' "$tmp/tool")
	[ $rc -eq 0 ] && [ "$bad" -eq 0 ] && [ "$lines" -eq 0 ] &&
		grep -q '^key .* late\\012\\033\[2Jkey symtab .*/n/evil\\011\\033\[31m\\134012x\.so TRUE' "$tmp/tool" &&
		[ "$(grep -A1 '^key .* late' "$tmp/tool")" = "$(grep -A1 '^key .* late' "$tmp/self-evil")" ]
	tap_ok $? "forged names (a path with a tab, an escape and a newline; a symbol with a newline and an escape): escaped, one line a key or site, the tool's line the program's (exit $rc)"
	[ "$tap_failed" -ne 0 ] && { cat -v "$tmp/tool"; cat -v "$tmp/err"; } | tap_diag
	# As nobody (no map_files): /proc/<pid>/maps writes the path's
	# newline as \012, and the tool opens the path with the newline.
	serve "${as[@]}" "$dir/test_introspect" --serve-with "$evil" "$tmp/n/self-evil"
	tool "${as[@]}"
	unserve
	[ $rc -eq 0 ] && grep -q '^key .* late\\012\\033\[2Jkey symtab .*/n/evil\\011\\033\[31m\\134012x\.so TRUE' "$tmp/tool"
	tap_ok $? "nobody, an object whose path holds a newline (\\012 in the maps line): read by its name (exit $rc)"
	[ "$tap_failed" -ne 0 ] && { cat -v "$tmp/tool"; cat -v "$tmp/err"; } | tap_diag
	# The process exits the moment the tool opens its program file, the
	# first object the tool reads; the tool may still finish first (a
	# complete listing, exit 0), never say "incomplete" of a process gone.
	# Three times: the tool reads before the exit about a third of runs.
	gone=0 ok=0 rcs=
	for i in 1 2 3; do
		serve "$dir/test_introspect" --serve-exit-on-open "$dir/test_introspect" "$tmp/self-gone"
		tool
		unserve
		rcs="$rcs $rc"
		if [ $rc -eq 1 ] && grep -q "^statickeys-keys: process $pid exited while it was being read$" "$tmp/err"; then
			gone=$((gone + 1)) ok=$((ok + 1))
		elif [ $rc -eq 0 ] && ! grep -q incomplete "$tmp/err"; then
			ok=$((ok + 1))
		fi
	done
	[ $ok -eq 3 ]
	tap_ok $? "a process that exits while the tool reads it: said so (exit 1), never an incomplete listing ($gone of 3 exited first; exits:$rcs)"
	[ "$tap_failed" -ne 0 ] && { cat -v "$tmp/tool"; cat -v "$tmp/err"; } | tap_diag
else
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "forged names"
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "a path with a newline"
	tap_skip "CONFIG_JUMP_LABEL=n: no site to list" "exits while read"
fi

# btrfs: stat() gives each subvolume a device of its own, not the maps
# line's, and inode numbers repeat across subvolumes.  A file in place is
# still read (same inode, same first bytes); a bind mount over its folder
# with another file of the same inode number there is named.
why=
if ! command -v mkfs.btrfs > /dev/null || ! grep -qw btrfs /proc/filesystems; then
	why="no btrfs here (mkfs.btrfs, the kernel's btrfs): scripts/install-deps check"
else
	truncate -s 128M "$tmp/btrfs.img"
	mkdir -p "$bt"
	if ! mkfs.btrfs -q "$tmp/btrfs.img" > /dev/null 2>&1 ||
	   ! mount -o loop "$tmp/btrfs.img" "$bt" 2> "$tmp/err"; then
		why="cannot mount a btrfs image here: $(head -n 1 "$tmp/err")"
	fi
fi
if [ -n "$why" ]; then
	tap_skip "$why" "nobody, btrfs, in place"
	tap_skip "$why" "nobody, btrfs, another file of the same inode"
	tap_exit
fi
chmod 755 "$bt"
btrfs subvolume create "$bt/A" > /dev/null && btrfs subvolume create "$bt/C" > /dev/null
# The same steps in each subvolume give the same inode numbers.
mkdir -p "$bt/A/B" "$bt/C/D"
cp "$dir/libintro_dso.so" "$bt/A/B/"
cp "$dir/libintro_late.so" "$bt/C/libintro_dso.so"
[ "$(stat -c %i "$bt/A/B/libintro_dso.so")" = "$(stat -c %i "$bt/C/libintro_dso.so")" ] ||
	echo "# the two files' inode numbers differ: the second check tests less"
chmod -R a+rX "$bt"
serve "${as[@]}" env LD_LIBRARY_PATH="$bt/A/B" "$dir/test_introspect" --serve "$tmp/n/self2"
tool "${as[@]}"
[ $rc -eq 0 ] && grep -q "^key .* intro_dso_key dynsym $bt/A/B/libintro_dso.so " "$tmp/tool"
tap_ok $? "nobody, btrfs (stat's device $(stat -c %D "$bt/A/B/libintro_dso.so"), the maps line's another): in place, read (exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"
mount --bind "$bt/C" "$bt/A/B"
tool "${as[@]}"
unserve
umount "$bt/A/B"
[ $rc -eq 3 ] && grep -q "^statickeys-keys: $bt/A/B/libintro_dso.so: not read: replaced after it was mapped: the name leads to a file of the same inode" "$tmp/err"
tap_ok $? "nobody, btrfs, another file of the same inode at the name (a bind mount): named, exit 3 (exit $rc)"
[ "$tap_failed" -ne 0 ] && tap_diag < "$tmp/err"
tap_exit
