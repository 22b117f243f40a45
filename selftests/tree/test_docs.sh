# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# The documentation a C programmer reads first, held to the source: every
# man page renders without a warning, statickeys(7) lists every environment
# variable the library and its tools read, statickeys-keys(1) points to the
# API's pages, and `make help` lists every target README.md names.
# Run once by make check, not per configuration.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
man_dir=$srctree/Documentation/man

tap_plan 4

# 1: every page, with man's own warnings and groff's (-ww).
bad=""
pages=$(cd "$man_dir" && ls -- *.[1-9])
if command -v man >/dev/null && command -v groff >/dev/null; then
	for p in $pages; do
		w=$(cd "$man_dir" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null;
		    groff -man -ww -z "$p" 2>&1)
		[ -z "$w" ] || { bad="$bad $p"; echo "$p: $w" | tap_diag; }
	done
	tap_ok $([ -z "$bad" ]; echo $?) \
		"every page of Documentation/man renders without a warning ($(echo $pages | wc -w) pages)${bad:+ (not:$bad)}"
else
	tap_skip "man or groff is not installed (scripts/install-deps check)" "the man pages render"
fi

# 2: the variables the C sources of the library and the tools read, by
# name or through a macro defined as a string, against the names of
# statickeys(7)'s ENVIRONMENT section.
src="$srctree/kernel $srctree/arch $srctree/include $srctree/tools"
# shellcheck disable=SC2086
grep -rhoE '\b(secure_)?getenv\(\s*[A-Za-z_"][A-Za-z0-9_"]*\s*\)' --include='*.c' --include='*.h' $src |
	sed -E 's/.*\(\s*//; s/\s*\)$//' | sort -u > "$tmp/args"
: > "$tmp/read"
while read -r a; do
	case $a in
	\"*\") echo "${a//\"/}" >> "$tmp/read" ;;
	*)	# shellcheck disable=SC2086
		v=$(grep -rhE "^\s*#\s*define\s+$a\s+\"" --include='*.h' --include='*.c' $src |
			sed -E 's/.*"([^"]*)".*/\1/' | sort -u)
		[ -n "$v" ] && echo "$v" >> "$tmp/read" || echo "?$a" >> "$tmp/read" ;;
	esac
done < "$tmp/args"
sort -u -o "$tmp/read" "$tmp/read"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man_dir/statickeys.7" |
	sed -n '/^\.TP/{n;s/^\.B  *//p}' | sort -u > "$tmp/documented"
echo "read: $(tr '\n' ' ' < "$tmp/read")" | tap_diag
echo "in statickeys(7): $(tr '\n' ' ' < "$tmp/documented")" | tap_diag
undoc=$(comm -23 "$tmp/read" "$tmp/documented" | tr '\n' ' ')
tap_ok $([ -s "$tmp/read" ] && [ -z "$undoc" ]; echo $?) \
	"statickeys(7), ENVIRONMENT, lists every variable the sources read ($(wc -l < "$tmp/read"))${undoc:+ (missing: $undoc)}"

# 3: statickeys-keys(1) SEE ALSO names every page of sections 3 and 7.
see=$(sed -n '/^\.SH SEE ALSO/,/^\.SH /p' "$man_dir/statickeys-keys.1")
missing=""
for p in $pages; do
	case $p in *.3|*.7) ;; *) continue ;; esac
	name=${p%.*} sec=${p##*.}
	printf '%s\n' "$see" | grep -q "^\.BR $(printf '%s' "$name" | sed 's/-/\\\\-/g') ($sec)" ||
		missing="$missing $name($sec)"
done
tap_ok $([ -z "$missing" ]; echo $?) \
	"statickeys-keys(1), SEE ALSO, names every page of sections 3 and 7${missing:+ (missing:$missing)}"

# 4: every `make TARGET` of README.md (inside backquotes, across line
# breaks, options before the target allowed) is a target make help lists.
targets=$(tr '\n' ' ' < "$srctree/README.md" | grep -o '`[^`]*`' |
	grep -oE '(^|[^A-Za-z_-])make( +(-[A-Za-z]+|[A-Z_]+=[^ ]*))* +[a-z][a-z0-9-]*' |
	awk '{print $NF}' | sort -u)
help=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$srctree" --no-print-directory help 2>&1)
missing=""
for t in $targets; do
	printf '%s\n' "$help" | grep -qE "^  $t( |$)" || missing="$missing $t"
done
echo "README names: $(echo $targets)" | tap_diag
tap_ok $([ -n "$targets" ] && [ -z "$missing" ]; echo $?) \
	"make help lists every target README.md names ($(echo $targets | wc -w))${missing:+ (not listed:$missing)}"
tap_exit
