/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* make kconfig-defaults: kconfig-conf's header for ARCH=i386 */
/*
 *
 * Automatically generated file; DO NOT EDIT.
 * statickeys configuration
 *
 */
#define CONFIG_DYNAMIC_DEBUG 1
#define CONFIG_HAVE_ARCH_JUMP_LABEL 1
#define CONFIG_JUMP_LABEL 1
#define CONFIG_X86_32 1
