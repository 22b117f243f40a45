# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make check's bounded fuzz run of statickeys-keys' ELF reader (make
# fuzz-check, scripts/Makefile.fuzz), from the hostile corpus.
. "$srctree/selftests/lib/fuzz_run.sh"
fuzz_run "the ELF reader, from the hostile corpus" "$FUZZ_ELF" check-corpus elf 4096
