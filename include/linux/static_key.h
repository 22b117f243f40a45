/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The kernel's old spelling of the static-key header. */
#include <linux/jump_label.h>
