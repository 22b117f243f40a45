/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* A file built into a program is no module: its tags mean nothing. */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H
#include <linux/export.h>
#define MODULE_LICENSE(s)	extern int __shim_module_license
#define MODULE_AUTHOR(s)	extern int __shim_module_author
#define MODULE_DESCRIPTION(s)	extern int __shim_module_description
#endif
