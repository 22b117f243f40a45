#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Entry script of scripts/statickeys_cocci/crosscheck.py (its header says what
# it does), kept for the tests and scripts that call it by this name.
import os
import sys

# No __pycache__ in the source tree or the installed package.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from statickeys_cocci.crosscheck import main  # noqa: E402

main()
