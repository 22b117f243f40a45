// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The registration benchmark: a program whose 100000 sites are in the
 * generated objects linked with it, and whose main() returns at once, so
 * that callgrind's count up to main() is its start-up.  Built twice, with
 * the registration constructor of <statickeys/object.h> and with
 * -DSTATICKEYS_NO_OBJECT_CTOR (the sites are compiled without it, so then
 * nothing registers the table).  The same file, built -fPIC, is the
 * constructor of the shared objects bench_dlopen loads.
 */
#include <linux/jump_label.h>

int main(void)
{
	return 0;
}
