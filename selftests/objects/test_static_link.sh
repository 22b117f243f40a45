# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# A program linked with libstatickeys.a keeps the parts of the library that
# nothing calls by name: the layers above the objects reach
# kernel/object.c only through hooks in a linker section
# (kernel/object_hooks.h), which an archive of members would drop.  The
# archive is one object; the program's boot parameter is applied and the
# start-up report of an unknown word is made.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: "${AR:=${CROSS_COMPILE}ar}"

tap_plan 3
if [ -n "${SANITIZE:-}" ]; then
	for i in 1 2 3; do
		tap_skip "SANITIZE=$SANITIZE: the archive needs the sanitizer runtime" "static link $i"
	done
	tap_exit
fi

members=$($AR t "$objtree/libstatickeys.a" | tr '\n' ' ')
[ "$members" = "libstatickeys.o " ]
tap_ok $? "libstatickeys.a is one object, the library linked whole (members: $members)"

cat > "$tmp/p.c" <<'X'
#include <stdio.h>
#include <linux/init.h>
#include <linux/jump_label.h>

DEFINE_STATIC_KEY_FALSE(flip_key);

static int flip_setup(char *s)
{
	(void)s;
	static_branch_enable(&flip_key);
	return 0;
}
early_param("flipk", flip_setup);

int main(void)
{
	puts(static_branch_unlikely(&flip_key) ? "on" : "off");
	return 0;
}
X
$CC $ARCH_CFLAGS -std=gnu11 $SK_CPPFLAGS -O2 "$tmp/p.c" -o "$tmp/p" \
	"$objtree/libstatickeys.a" -pthread -ldl 2> "$tmp/link.log"
rc=$?
tap_diag < "$tmp/link.log"
out=$(STATICKEYS_CMDLINE="flipk bogus_word" $RUNNER "$tmp/p" 2> "$tmp/err")
[ $rc -eq 0 ] && [ "$out" = on ]
tap_ok $? "a program linked with libstatickeys.a gets its boot parameter applied (got: $out)"
tap_diag < "$tmp/err"
grep -q "unknown command line parameters: bogus_word" "$tmp/err"
tap_ok $? "and the start-up report names the unknown word (a hook no one calls by name)"
tap_exit
