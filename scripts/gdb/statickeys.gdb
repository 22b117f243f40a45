# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
#
# gdb settings for programs that use libstatickeys (Documentation/tools.rst).
# make install also puts it where gdb's auto-load finds it for the shared
# library (<datadir>/gdb/auto-load/<libdir>/libstatickeys.so.V-gdb.gdb), and
# gdb reads it when a program maps the library.  A static program loads it
# with one command, or that line in ~/.gdbinit:
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
import os
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


class StatickeysKeys(gdb.Command):
    """statickeys-keys - list every static key of the program: its name,
    object, type, count, branch direction and each site's instruction, in
    the table of statickeys-keys(1), with "gdb" for where the name came
    from (gdb's symbol tables).  Read-only."""

    NOP5 = bytes([0x0f, 0x1f, 0x44, 0x00, 0x00])

    def __init__(self):
        super().__init__("statickeys-keys", gdb.COMMAND_DATA)

    @staticmethod
    def layouts():
        """struct jump_entry and struct static_key for this pointer size."""
        if gdb.lookup_type("long").sizeof == 4:
            return struct.Struct("<iiI"), struct.Struct("<iI")
        return struct.Struct("<iiQ"), struct.Struct("<i4xQ")

    def entries(self, inferior):
        files = gdb.execute("info files", to_string=True)
        entry = self.layouts()[0]
        for lo, hi in StatickeysTrap.TABLE.findall(files):
            lo, hi = int(lo, 16), int(hi, 16)
            table = inferior.read_memory(lo, hi - lo).tobytes()
            step = entry.size
            for off in range(0, len(table) - step + 1, step):
                code, target, key = entry.unpack_from(table, off)
                at = lo + off
                if key & ~3:
                    yield (key & ~3, at + code, at + 4 + target, key & 1,
                           key & 2)

    def state(self, inferior, arch, code, target):
        if arch.startswith("aarch64"):
            insn = struct.unpack("<I", inferior.read_memory(code, 4).tobytes())[0]
            if insn == 0xd503201f:
                return "NOP"
            if insn == 0x14000000 | (((target - code) >> 2) & 0x03ffffff):
                return "JMP"
            return "OTHER"
        p = inferior.read_memory(code, 5).tobytes()
        jmp = bytes([0xe9]) + struct.pack("<i", target - (code + 5))
        if p == self.NOP5:
            return "NOP"
        if p == jmp:
            return "JMP"
        if p[0] == 0xcc and (p[1:] == self.NOP5[1:] or p[1:] == jmp[1:]):
            return "INT3"
        return "OTHER"

    def describe(self, key):
        """name, object, read-only, deferred: from gdb's symbols."""
        out = gdb.execute("info symbol %#x" % key, to_string=True).strip()
        m = re.match(r"(\S+) in section (\S+)(?: of (.*))?$", out)
        objfile = gdb.solib_name(key) or gdb.current_progspace().filename
        if not m:
            return None, os.path.realpath(objfile), False, False
        name, section = m.group(1), m.group(2)
        objfile = m.group(3) or objfile
        deferred = False
        try:
            size = int(gdb.parse_and_eval("sizeof(%s)" % name))
            deferred = size == int(gdb.parse_and_eval(
                "sizeof(struct static_key_deferred)"))
        except gdb.error:
            pass	# no debug information: no size to tell by
        return (name, os.path.realpath(objfile),
                section == "__sk_ro_after_init", deferred)

    def invoke(self, arg, from_tty):
        inferior = gdb.selected_inferior()
        arch = gdb.selected_frame().architecture().name()
        keys = {}
        for key, code, target, likely, dead in self.entries(inferior):
            keys.setdefault(key, []).append((code, target, likely, dead))
        if not keys:
            print("no static-key site (no __jump_table: built with "
                  "CONFIG_JUMP_LABEL=n, or no static keys)")
        for key in sorted(keys):
            layout = self.layouts()[1]
            enabled, ktype = layout.unpack(
                inferior.read_memory(key, layout.size).tobytes())
            name, objfile, ro, deferred = self.describe(key)
            kind = ("TRUE" if ktype & 1 else "FALSE") + \
                (",RO" if ro else "") + (",DEFERRED" if deferred else "")
            sites = sorted(keys[key])
            print("key %#x %s %s %s %s count %d %s sites %d" % (
                key, name or "-", "gdb" if name else "none", objfile, kind,
                enabled, "on" if enabled else "off", len(sites)))
            for code, target, likely, dead in sites:
                print("  site %#x %#x %s %s" % (
                    code, target, "likely" if likely else "unlikely",
                    "DEAD" if dead else
                    self.state(inferior, arch, code, target)))

StatickeysKeys()
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
