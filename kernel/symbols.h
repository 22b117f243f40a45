/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Reading a process from its files, without the dynamic loader: the
 * mappings of /proc/self/maps, the sections and symbol tables of the ELF
 * files mapped, and the key table's format.  Shared by the library's
 * introspection (kernel/introspect.c) and statickeys-keys(1), so that both
 * name keys and print them the same way.  Hidden, never exported.
 */
#ifndef _STATICKEYS_KERNEL_SYMBOLS_H
#define _STATICKEYS_KERNEL_SYMBOLS_H

#include <elf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <statickeys/introspect.h>
#include "../lib/elf.h"

#define __sk_sym_hidden	__attribute__((visibility("hidden")))

/* One file-backed mapping. */
struct sk_map {
	uintptr_t start, end;
	unsigned long long offset;
	unsigned long ino;	/* of the file mapped, as the maps line says */
	char path[PATH_MAX];
};

/*
 * sk_maps_read() - the file-backed mappings of this process: 0, or -errno
 * (the open's, for the caller's message) with nothing kept.
 */
__sk_sym_hidden int sk_maps_read(struct sk_map **maps, size_t *n);
__sk_sym_hidden const struct sk_map *sk_maps_find(const struct sk_map *maps,
						  size_t n, uintptr_t addr);

/*
 * One ELF file, mapped read-only and read through the checked reader
 * (lib/elf.c), and where the process has it.  The names looked up are
 * kept until it is closed.
 */
struct sk_elf {
	const unsigned char *base;
	size_t size;
	struct elfr elf;
	uintptr_t bias;		/* run-time address minus file address */
	char **names;
	size_t nr_names;
	char path[PATH_MAX];
};

/*
 * sk_elf_open() - map the file this process maps as @path (of @maps: the
 * file itself, not whatever the name leads to now; see open_mapped()),
 * check its headers (lib/elf.c) and find its load bias (the mapping of its
 * first loaded page): 0, or -errno (-ENOEXEC: not a sound ELF file of this
 * machine's class).
 */
__sk_sym_hidden int sk_elf_open(struct sk_elf *f, const char *path,
				const struct sk_map *maps, size_t n);
__sk_sym_hidden void sk_elf_close(struct sk_elf *f);

/*
 * sk_elf_symbol() - the data symbol at run-time address @addr: .symtab
 * first (a stripped file has none), then .dynsym; *@table says which, and
 * *@size is the symbol's size.  NULL when neither has one; the name lives
 * as long as @f is open.
 */
__sk_sym_hidden const char *sk_elf_symbol(struct sk_elf *f, uintptr_t addr,
					  const char **table, size_t *size);

/* sk_elf_section() - the run-time address and size of section @name. */
__sk_sym_hidden bool sk_elf_section(const struct sk_elf *f, const char *name,
				    uintptr_t *addr, size_t *size);

/*
 * A cache of opened files, one per path, for one walk: sk_elf_cache_get()
 * opens a file the first time (NULL if it cannot), sk_elf_cache_free()
 * closes them all.
 */
struct sk_elf_cache {
	struct sk_elf **files;	/* each stays where it is: callers keep them */
	size_t n;
	const struct sk_map *maps;
	size_t nr_maps;
};
__sk_sym_hidden struct sk_elf *sk_elf_cache_get(struct sk_elf_cache *c,
						const char *path);
__sk_sym_hidden void sk_elf_cache_free(struct sk_elf_cache *c);

/*
 * sk_key_describe() - fill in @info's name, table, object and DEFERRED flag
 * for the key at @key, from the files of @c.  @deferred_size is the size
 * of a deferred key's struct.
 */
__sk_sym_hidden void sk_key_describe(struct sk_elf_cache *c, uintptr_t key,
				     size_t deferred_size,
				     struct statickeys_key_info *info);

/*
 * sk_fputs_escaped() - @s as the table shows names that come from the
 * process (symbols, paths): each byte below 0x20, 0x7f and the backslash
 * as \ and three octal digits, as /proc writes a newline in a path, so
 * that a forged name can neither add a line nor reach the terminal.
 */
__sk_sym_hidden void sk_fputs_escaped(const char *s, FILE *f);

/* sk_key_print() - one key's lines of the table (the man page's format). */
__sk_sym_hidden void sk_key_print(FILE *f, const struct statickeys_key_info *info);
__sk_sym_hidden const char *sk_site_state_name(enum statickeys_site_state s);

#endif /* _STATICKEYS_KERNEL_SYMBOLS_H */
