/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Symbol export conventions.  Every symbol the library exports carries the
 * prefix "statickeys_", so a program that links us next to other code that
 * borrowed kernel names cannot clash; the kernel spelling is kept in C by an
 * asm label.  Everything else is hidden.
 */
#ifndef _STATICKEYS_EXPORT_H
#define _STATICKEYS_EXPORT_H

/* SK_SYM(name) - link the C name to the exported symbol statickeys_<name>. */
#define SK_SYM(name)		__asm__("statickeys_" #name)

/* SK_EXPORT - make a definition visible outside the shared object. */
#define SK_EXPORT		__attribute__((visibility("default")))

#ifdef __cplusplus
#define SK_BEGIN_DECLS		extern "C" {
#define SK_END_DECLS		}
#else
#define SK_BEGIN_DECLS
#define SK_END_DECLS
#endif

#endif /* _STATICKEYS_EXPORT_H */
