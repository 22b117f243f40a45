# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# make check's bounded fuzz run of the control channel's request parser
# (make fuzz-check, scripts/Makefile.fuzz), from selftests/control/corpus.
. "$srctree/selftests/lib/fuzz_run.sh"
fuzz_run "the control request parser" "$FUZZ_CONTROL" check-control control 8192
