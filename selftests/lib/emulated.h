/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Whether this program runs under a user-mode emulator (qemu-i386,
 * qemu-aarch64, ..., by make's RUNNER or by binfmt_misc alike): the
 * emulator gives the program its own /proc/self/exe, but a thread's
 * /proc/self/task/<tid>/exe still names the emulator.
 */
#ifndef _SELFTESTS_EMULATED_H
#define _SELFTESTS_EMULATED_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline bool sk_test_emulated(void)
{
	char path[64], self[4096], task[4096];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/exe",
		 (long)syscall(SYS_gettid));
	a = readlink("/proc/self/exe", self, sizeof(self) - 1);
	b = readlink(path, task, sizeof(task) - 1);
	if (a < 0 || b < 0)
		return false;
	return a != b || memcmp(self, task, (size_t)a);
}

#endif /* _SELFTESTS_EMULATED_H */
