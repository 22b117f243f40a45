# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# Every public header compiles alone, as C and as C++, with warnings as
# errors: a user can include any one of them first.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

headers=$(cd "$srctree/include" && ls linux/*.h statickeys/*.h)
set -- $headers
tap_plan $(($# * 2 + 1))
for h in $headers; do
	printf '#include <%s>\n' "$h" > "$tmp/h.c"
	cp "$tmp/h.c" "$tmp/h.cc"
	$CC -std=gnu11 -Wall -Wextra -Werror $SK_CPPFLAGS -c "$tmp/h.c" \
		-o "$tmp/h.o" > "$tmp/err" 2>&1
	tap_ok $? "C: <$h> compiles alone"; [ -s "$tmp/err" ] && tap_diag < "$tmp/err"
	$CXX -std=gnu++17 -Wall -Wextra -Werror $SK_CPPFLAGS -c "$tmp/h.cc" \
		-o "$tmp/h.o" > "$tmp/err" 2>&1
	tap_ok $? "C++: <$h> compiles alone"; [ -s "$tmp/err" ] && tap_diag < "$tmp/err"
done

# C++11 is the oldest C++ the README promises: every header at once, and a
# site, a key and a boot parameter in an inline function.
{ printf '#include <stdlib.h>\n'; printf '#include <%s>\n' $headers
  printf 'DEFINE_STATIC_KEY_FALSE(k);\ninline int f() { return static_branch_unlikely(&k); }\n'
  printf 'static int p(char *) { return f(); }\nearly_param("p", p);\n'; } > "$tmp/all.cc"
$CXX -std=c++11 -Wall -Wextra -Werror $SK_CPPFLAGS -c "$tmp/all.cc" \
	-o "$tmp/h.o" > "$tmp/err" 2>&1
tap_ok $? "C++11: every header together, with a site in an inline function"
[ -s "$tmp/err" ] && tap_diag < "$tmp/err"
tap_exit
