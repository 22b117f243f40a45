// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A plugin with one key and one site, which test_control's target loads
 * and unloads in a loop while peers set the key through the channel.
 */
#include <linux/jump_label.h>

DEFINE_STATIC_KEY_FALSE(ctl_plug_key);

int ctl_plug_site(void)
{
	return static_branch_unlikely(&ctl_plug_key) ? 1 : 0;
}
