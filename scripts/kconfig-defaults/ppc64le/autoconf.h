/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* make kconfig-defaults: kconfig-conf's header for ARCH=ppc64le */
/*
 *
 * Automatically generated file; DO NOT EDIT.
 * statickeys configuration
 *
 */
#define CONFIG_DYNAMIC_DEBUG 1
#define CONFIG_ARCH_GENERIC_NAME "ppc64le"
#define CONFIG_ARCH_GENERIC 1
