/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * kstrtobool(): the kernel's reading of yes/no words in boot parameters.
 * The exported symbol is statickeys_kstrtobool; C code calls it kstrtobool.
 */
#ifndef _LINUX_KSTRTOX_H
#define _LINUX_KSTRTOX_H

#include <statickeys/export.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif

SK_BEGIN_DECLS

/**
 * kstrtobool() - read a boolean the way the kernel reads boot parameters
 * @s: the text; may be NULL
 * @res: where the value goes; written only when 0 is returned
 *
 * Only the first character decides, except after an 'o', where the second
 * one does: "y", "Y", "t", "T", "1", "on" (any case) give true; "n", "N",
 * "f", "F", "0", "off" (any case) give false.  Anything else, including
 * NULL, "" and a leading space, is rejected.  Documentation/boot-params.rst
 * has the full table.
 *
 * Return: 0 on success, -EINVAL if @s is not a boolean word.
 */
int kstrtobool(const char *s, bool *res) SK_SYM(kstrtobool);

SK_END_DECLS

#endif /* _LINUX_KSTRTOX_H */
