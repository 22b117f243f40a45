# SPDX-License-Identifier: GPL-2.0-only
# python3 -m statickeys_cocci: the same as scripts/coccicheck.
from .driver import main

main()
