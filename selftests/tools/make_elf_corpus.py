#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Write the hostile ELF files of selftests/tools/elf-corpus/: one small
well-formed object (sections, a symbol table, a __jump_table), then copies
with one header field forged each: offsets near 2^64, counts whose product
overflows, sizes past the end, links out of range, open strings, both
classes and byte orders.  The fuzzer starts from them (make fuzz-elf), the
tool is pointed at processes mapping them (test_keys_hostile.sh) and
test_elf_reader replays them.  Run it again only to change the corpus."""
import os
import struct
import sys

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS = 1, 2, 3, 8
PT_LOAD = 1
U64 = (1 << 64) - 1


def build(cls=64, end='<', mut=None):
    """A small ELF: returns bytes; mut(fields) may forge header fields."""
    is64 = cls == 64
    ehsize, phent, shent = (64, 56, 64) if is64 else (52, 32, 40)
    symsz = 24 if is64 else 16
    shstr = b'\0.shstrtab\0.symtab\0.strtab\0__jump_table\0__sk_ro_after_init\0.bss\0'
    strtab = b'\0key_a\0key_b\0'
    names = {n: shstr.index(n.encode()) for n in
             ('.shstrtab', '.symtab', '.strtab', '__jump_table',
              '__sk_ro_after_init', '.bss')}
    jt = b'\0' * 32
    ro = b'\0' * 16
    f = dict(phoff=ehsize, phnum=1, phentsize=phent, shentsize=shent,
             shstrndx=1, shnum=7, class_=1 if not is64 else 2,
             data=1 if end == '<' else 2, machine=62 if is64 else 3,
             seg_vaddr=0, seg_memsz=None, seg_off=0, seg_filesz=None,
             jt_off=None, jt_size=len(jt), sym_link=3, str_size=None,
             shoff=None, sym_value=0x1000, sym_name=1)
    if mut:
        mut(f)
    body = bytearray(ehsize + phent)
    sections = []          # (name, type, off, size, link, addr, entsize)

    def add(data):
        off = len(body)
        body.extend(data)
        return off
    off_shstr = add(shstr)
    sym = bytearray(symsz)            # symbol 0 is null
    for i, val in ((1, f['sym_value']), (7, 0x1010)):
        if is64:
            sym += struct.pack(end + 'IBBHQQ', i if i == 1 else 7, 1, 0, 4,
                               val, 16)
        else:
            sym += struct.pack(end + 'IIIBBH', i if i == 1 else 7, val, 16,
                               1, 0, 4)
    off_sym = add(sym)
    off_str = add(strtab)
    off_jt = add(jt)
    off_ro = add(ro)
    sections = [
        (0, 0, 0, 0, 0, 0, 0),
        (names['.shstrtab'], SHT_STRTAB, off_shstr, len(shstr), 0, 0, 0),
        (names['.symtab'], SHT_SYMTAB, off_sym, len(sym), f['sym_link'], 0,
         symsz),
        (names['.strtab'], SHT_STRTAB, off_str,
         f['str_size'] if f['str_size'] is not None else len(strtab), 0, 0, 0),
        (names['__jump_table'], SHT_PROGBITS,
         f['jt_off'] if f['jt_off'] is not None else off_jt, f['jt_size'], 0,
         0x1000, 16),
        (names['__sk_ro_after_init'], SHT_PROGBITS, off_ro, len(ro), 0,
         0x1010, 0),
        (names['.bss'], SHT_NOBITS, 0, 1 << 40, 0, 0x2000, 0),
    ]
    shoff = len(body)
    for (nm, ty, off, size, link, addr, ent) in sections:
        if is64:
            body += struct.pack(end + 'IIQQQQIIQQ', nm, ty, 0, addr, off, size,
                                link, 0, 1, ent)
        else:
            m32 = 0xffffffff
            body += struct.pack(end + 'IIIIIIIIII', nm, ty, 0, addr, off & m32,
                                size & m32, link, 0, 1, ent)
    filesz = f['seg_filesz'] if f['seg_filesz'] is not None else len(body)
    memsz = f['seg_memsz'] if f['seg_memsz'] is not None else filesz
    if is64:
        ph = struct.pack(end + 'IIQQQQQQ', PT_LOAD, 5, f['seg_off'],
                         f['seg_vaddr'], f['seg_vaddr'], filesz, memsz, 4096)
    else:
        m32 = 0xffffffff
        ph = struct.pack(end + 'IIIIIIII', PT_LOAD, f['seg_off'],
                         f['seg_vaddr'] & m32, f['seg_vaddr'] & m32,
                         filesz & m32, memsz & m32, 5, 4096)
    body[ehsize:ehsize + phent] = ph
    ident = b'\x7fELF' + bytes([f['class_'], f['data'], 1]) + b'\0' * 9
    rest = (3, f['machine'], 1, 0, f['phoff'],
            f['shoff'] if f['shoff'] is not None else shoff, 0, ehsize,
            f['phentsize'], f['phnum'], f['shentsize'], f['shnum'],
            f['shstrndx'])
    fmt = end + ('HHIQQQIHHHHHH' if is64 else 'HHIIIIIHHHHHH')
    mask = U64 if is64 else 0xffffffff
    rest = tuple(v & mask if i in (4, 5) else v for i, v in enumerate(rest))
    body[0:ehsize] = ident + struct.pack(fmt, *rest)
    return bytes(body)


def setter(**kv):
    def mut(f):
        f.update(kv)
    return mut


CASES = {
    'good64': None,
    'phoff-wraps': setter(phoff=U64 - 7),
    'shoff-wraps': setter(shoff=U64 - 63),
    'phnum-times-entsize-overflows': setter(phoff=1 << 62, phnum=0xfffe),
    'shoff-past-end': setter(shoff=1 << 20),
    'shentsize-wrong': setter(shentsize=12),
    'shstrndx-out-of-range': setter(shstrndx=999),
    'shstrndx-not-strtab': setter(shstrndx=2),
    'shnum-extended-none': setter(shnum=0, shstrndx=0xffff),
    'section-offset-wraps': setter(jt_off=U64 - 15),
    'section-size-huge': setter(jt_size=U64 - 1),
    'jump-table-odd-size': setter(jt_size=13),
    'segment-wraps': setter(seg_vaddr=U64 - 4095, seg_memsz=8192),
    'segment-filesz-past-end': setter(seg_filesz=1 << 40),
    'segment-filesz-over-memsz': setter(seg_memsz=1),
    'symtab-link-out-of-range': setter(sym_link=4242),
    'strtab-name-left-open': setter(str_size=3),
    'no-section-headers': setter(shoff=0, shnum=0),
    'no-program-headers': setter(phnum=0),
    'class-none': setter(class_=0),
    'data-none': setter(data=3),
    'good32': ('32', None),
    'elf32-shoff-wraps': ('32', setter(shoff=0xffffffc0)),
    'elf32-phoff-wraps': ('32', setter(phoff=0xfffffff0)),
    'big-endian64': ('64>', None),
    'big-endian64-shoff-wraps': ('64>', setter(shoff=U64 - 63)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'elf-corpus')
    os.makedirs(out, exist_ok=True)
    for name, how in CASES.items():
        cls, end, mut = 64, '<', how
        if isinstance(how, tuple):
            cls = 32 if how[0].startswith('32') else 64
            end = '>' if how[0].endswith('>') else '<'
            mut = how[1]
        data = build(cls, end, mut)
        with open(os.path.join(out, name), 'wb') as fh:
            fh.write(data)
    with open(os.path.join(out, 'truncated-header'), 'wb') as fh:
        fh.write(build()[:20])


if __name__ == '__main__':
    main()
