/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* make kconfig-defaults: kconfig-conf's header for ARCH=arm64 */
/*
 *
 * Automatically generated file; DO NOT EDIT.
 * statickeys configuration
 *
 */
#define CONFIG_DYNAMIC_DEBUG 1
#define CONFIG_HAVE_ARCH_JUMP_LABEL 1
#define CONFIG_HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET 1
#define CONFIG_JUMP_LABEL 1
#define CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT 1
#define CONFIG_RANDOMIZE_KSTACK_OFFSET 1
#define CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS 6
#define CONFIG_ARM64 1
