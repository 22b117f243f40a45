/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The configuration libstatickeys was built with (generated). */
#ifndef _STATICKEYS_CONFIG_H
#define _STATICKEYS_CONFIG_H
#ifndef CONFIG_HAVE_ARCH_JUMP_LABEL
#define CONFIG_HAVE_ARCH_JUMP_LABEL 1
#endif
#ifndef CONFIG_HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET
#define CONFIG_HAVE_ARCH_RANDOMIZE_KSTACK_OFFSET 1
#endif
#ifndef CONFIG_JUMP_LABEL
#if defined(__clang__) ? __clang_major__ >= 13 : (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))
#define CONFIG_JUMP_LABEL 1
#endif
#endif
#ifndef CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT
#define CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT 1
#endif
#ifndef CONFIG_RANDOMIZE_KSTACK_OFFSET
#define CONFIG_RANDOMIZE_KSTACK_OFFSET 1
#endif
#ifndef CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS
#define CONFIG_RANDOMIZE_KSTACK_OFFSET_BITS 6
#endif
#ifndef CONFIG_ARM64
#define CONFIG_ARM64 1
#endif
#endif
