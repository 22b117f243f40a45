# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The repository holds sources only, laid out as STYLE's map says: no
# compiled object is tracked anywhere, and the top level has exactly the
# entries listed below (a scratch file left at the root fails here).
# Run once by make check, not per configuration: it reads git, not a build.
. "$srctree/selftests/lib/tap.sh"

# Every entry the top level may hold in git.  Untracked ones (build/ and
# other output directories) are not judged.
root_layout="
.ci
.gitignore
Documentation
Kconfig
LICENSES
Makefile
README.md
arch
bench
coccinelle
debian
examples
include
kernel
lib
samples
scripts
selftests
tools
"

tap_plan 2
# A copy without .git (a release tarball) has no notion of tracked files.
git() { command git -c safe.directory="$srctree" -C "$srctree" "$@"; }
if ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1; then
	tap_skip "$srctree is not a git checkout" "no tracked file is an ELF object"
	tap_skip "$srctree is not a git checkout" "the top level holds only the layout's entries"
	tap_exit
fi

# ELF objects, read by their magic number (no file(1) needed).  The
# hostile files of selftests/tools/elf-corpus/ are data, not build output:
# forged headers for statickeys-keys' ELF reader (make_elf_corpus.py).
elf=""
while IFS= read -r -d '' f; do
	[ -f "$srctree/$f" ] && [ ! -L "$srctree/$f" ] || continue
	case $f in selftests/tools/elf-corpus/*) continue ;; esac
	m=""
	LC_ALL=C read -r -N 4 m < "$srctree/$f" 2>/dev/null
	[ "$m" = $'\x7fELF' ] && elf="$elf $f"
done < <(git ls-files -z)
[ -z "$elf" ]
tap_ok $? "no tracked file is an ELF object${elf:+ (tracked:$elf)}"

stray=""
for e in $(git ls-files | sed 's|/.*||' | sort -u); do
	printf '%s\n' "$root_layout" | grep -qxF -- "$e" || stray="$stray $e"
done
[ -z "$stray" ]
tap_ok $? "the top level holds only the layout's entries${stray:+ (not in the layout:$stray)}"
tap_exit
