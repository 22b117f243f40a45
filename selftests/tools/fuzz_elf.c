// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libFuzzer target: lib/elf.c, the ELF reader statickeys-keys(1)
 * points at files a hostile process maps.  Build and run: make fuzz-elf
 * (scripts/Makefile.fuzz); corpus: selftests/tools/elf-corpus/.
 */
#include <stdlib.h>

#include "elf_reader_one.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int bad;

	elf_reader_one(data, size, &bad);
	if (bad) {
		fprintf(stderr, "fuzz_elf: %d checks failed\n", bad);
		abort();
	}
	return 0;
}
