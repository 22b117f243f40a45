// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libFuzzer target: arbitrary bytes as a boot command line, through the real
 * parser and a few registered handlers.  Build and run: make fuzz.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv(STATICKEYS_CMDLINE_ENV);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int failed = fz_one(data, size);

	if (failed) {
		fprintf(stderr, "fuzz_cmdline: check %d failed\n", failed);
		abort();
	}
	return 0;
}
