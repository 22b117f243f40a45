# SPDX-License-Identifier: GPL-2.0-only
#
# The Coccinelle driver of statickeys: driver (scripts/coccicheck), finish
# (the #if lines spatch cannot remove), series, options, lint, crosscheck.
# Run it as `python3 -m statickeys_cocci` with scripts/ on sys.path, or
# through the thin entry scripts in scripts/.
