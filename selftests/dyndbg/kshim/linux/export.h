/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Exports mean nothing in a program: the symbol is an ordinary function. */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H
#define EXPORT_SYMBOL(sym)	extern int __shim_export_##sym
#define EXPORT_SYMBOL_GPL(sym)	extern int __shim_export_##sym
#endif
