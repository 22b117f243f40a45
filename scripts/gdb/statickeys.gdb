# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# gdb settings for programs that use libstatickeys (Documentation/tools.rst).
# Load it with one command, or put that line in ~/.gdbinit:
#
#	source <prefix>/share/statickeys/statickeys.gdb
#
# While a key changes on x86-64, the library writes int3 on the first byte
# of each site of the key, and a thread that runs into it traps.  gdb sees
# the trap first, sets the thread back on the int3 (as for a breakpoint of
# its own) and, by default, stops: the program halts, and gdb -batch kills
# it.  Passing the signal on is no good either: the library's handler, run
# with the rewound instruction pointer, would take the byte before the site
# for the site (and "handle SIGTRAP pass" hands the program its start-up
# trap as well).  So a catchpoint takes exactly the traps on a site listed
# in a __jump_table section and resumes silently: the thread runs the site
# again, and meets the int3 again until the library has written the new
# instruction.  gdb's breakpoints, and every other trap, stop as usual.
#
# Breakpoints at a site: a software breakpoint is an int3 that gdb writes
# into the code, so a key change finds a byte it did not expect at that
# site and is refused (EILSEQ).  Break before or after the site, or use a
# hardware breakpoint (hbreak), which writes nothing into the code.

python
import re
import struct

import gdb

class StatickeysTrap(gdb.Function):
    """$_statickeys_trap() - 1 if the selected thread stopped on an int3
    at a static-key site (one libstatickeys is patching), else 0."""

    SI_KERNEL = 0x80
    ENTRY = struct.Struct("<iiQ")	# struct jump_entry on x86-64
    TABLE = re.compile(r"(0x[0-9a-f]+) - (0x[0-9a-f]+) is __jump_table\b")

    def __init__(self):
        super().__init__("_statickeys_trap")

    def invoke(self):
        try:
            if int(gdb.parse_and_eval("$_siginfo.si_code")) != self.SI_KERNEL:
                return 0
            site = int(gdb.parse_and_eval("$pc"))
        except gdb.error:
            return 0
        inferior = gdb.selected_inferior()
        files = gdb.execute("info files", to_string=True)
        for lo, hi in self.TABLE.findall(files):
            lo, hi = int(lo, 16), int(hi, 16)
            table = inferior.read_memory(lo, hi - lo).tobytes()
            for off in range(0, len(table) - self.ENTRY.size + 1,
                             self.ENTRY.size):
                code = self.ENTRY.unpack_from(table, off)[0]
                if lo + off + code == site:
                    return 1
        return 0

StatickeysTrap()
end

# $_statickeys_traps counts the traps passed over.
set $_statickeys_traps = 0
catch signal SIGTRAP
condition $bpnum $_statickeys_trap()
commands
	silent
	set $_statickeys_traps = $_statickeys_traps + 1
	continue
end
