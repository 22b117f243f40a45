# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# What must not build does not build: a branch macro on a key of the wrong
# type, static_key_enabled() on something that is not a key, a DECLARE that
# disagrees with its DEFINE.  And the correct spellings do build, as C and C++.
. "$srctree/selftests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# try LANG EXPECT DESCRIPTION: compile stdin; EXPECT is "ok" or "fail".
try() {
	local lang=$1 expect=$2 desc=$3 src=$tmp/t.c cc="$CC $ARCH_CFLAGS" std=-std=gnu11 rc
	if [ "$lang" = c++ ]; then src=$tmp/t.cc; cc="$CXX $ARCH_CFLAGS"; std=-std=gnu++17; fi
	cat > "$src"
	$cc $std $SK_CPPFLAGS -O2 -c "$src" -o "$tmp/t.o" > "$tmp/err" 2>&1
	rc=$?
	if [ "$expect" = ok ]; then
		tap_ok $rc "$lang: builds: $desc"
		[ $rc -eq 0 ] || tap_diag < "$tmp/err"
	else
		[ $rc -ne 0 ]; tap_ok $? "$lang: refused at build time: $desc"
	fi
}

tap_plan 12
for lang in c c++; do
	try $lang ok "static_branch_likely/unlikely on true and false keys" <<'X'
#include <linux/jump_label.h>
DEFINE_STATIC_KEY_TRUE(t);
DEFINE_STATIC_KEY_FALSE(f);
int g(void) { return static_branch_likely(&t) + static_branch_unlikely(&f) +
	static_branch_unlikely(&t) + static_branch_likely(&f) +
	static_key_enabled(&t) + static_key_enabled(&f.key); }
X
	try $lang fail "static_branch_likely on a plain struct static_key" <<'X'
#include <linux/jump_label.h>
struct static_key k = STATIC_KEY_INIT_FALSE;
int g(void) { return static_branch_likely(&k); }
X
	try $lang fail "static_branch_unlikely on an int" <<'X'
#include <linux/jump_label.h>
int k;
int g(void) { return static_branch_unlikely(&k); }
X
	try $lang fail "static_key_enabled on an int" <<'X'
#include <linux/jump_label.h>
int k;
int g(void) { return static_key_enabled(&k); }
X
	try $lang fail "DECLARE_STATIC_KEY_TRUE then DEFINE_STATIC_KEY_FALSE" <<'X'
#include <linux/jump_label.h>
DECLARE_STATIC_KEY_TRUE(k);
DEFINE_STATIC_KEY_FALSE(k);
X
	try $lang fail "DECLARE_STATIC_KEY_MAYBE disagreeing with DEFINE_STATIC_KEY_MAYBE" <<'X'
#include <linux/jump_label.h>
#define CONFIG_A 1
DECLARE_STATIC_KEY_MAYBE(CONFIG_A, k);
DEFINE_STATIC_KEY_MAYBE(CONFIG_B, k);
X
done
tap_exit
