// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * peek.ko: make check-boot's window on an option's state.  Prints the int
 * at a kernel address (from /proc/kallsyms) and refuses to stay loaded.
 * An option the options conversion turns into a key reads the same either
 * way: the int of the kernel as shipped holds its value, and a struct
 * static_key starts with its enabled count, 0 or 1 once the boot is over.
 */
#include <linux/module.h>
#include <linux/uaccess.h>

static unsigned long addr;
module_param(addr, ulong, 0);
MODULE_PARM_DESC(addr, "address of the int to print");
static char *name = "?";
module_param(name, charp, 0);
MODULE_PARM_DESC(name, "what to call it in the message");

static int __init peek_init(void)
{
	int val;

	/* A wrong address is an error, not an oops. */
	if (!addr || copy_from_kernel_nofault(&val, (void *)addr, sizeof(val)))
		return -EFAULT;
	pr_info("peek %s %d\n", name, val);
	/* Nothing to keep: failing the load spares /init an rmmod. */
	return -ECANCELED;
}
module_init(peek_init);

MODULE_DESCRIPTION("make check-boot: print an int of the running kernel");
MODULE_LICENSE("Dual BSD/GPL");
