/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * A small ELF reader for files nobody vouches for: every offset and size is
 * checked against the file with overflow-checked arithmetic, the file is
 * read through a callback (pread() on a descriptor, a buffer under a
 * fuzzer) and never mapped, so a file that shrinks is a read error, not a
 * SIGBUS.  ELF32 and ELF64, either byte order; headers are kept in one
 * 64-bit form.  The one ELF reader: the library's (kernel/symbols.c, over
 * the files a process maps) and statickeys-keys(1)'s.
 */
#ifndef _STATICKEYS_LIB_ELF_H
#define _STATICKEYS_LIB_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where the bytes come from: @read fills @buf with exactly @len bytes at
 * @off (the reader has checked @off + @len <= @size) and returns 0, or a
 * negative errno.
 */
struct elfr_source {
	int (*read)(void *ctx, void *buf, size_t len, uint64_t off);
	void *ctx;
	uint64_t size;
};

struct elfr_seg {		/* one program header */
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz;
};

struct elfr_sec {		/* one section header */
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, entsize;
};

struct elfr {
	struct elfr_source src;
	unsigned char class;	/* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;	/* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type, machine;
	size_t nr_segs, nr_secs;
	struct elfr_seg *segs;
	struct elfr_sec *secs;
	char *shstrtab;		/* NUL-terminated copy (an extra NUL) */
	uint64_t shstrtab_size;
};

/* Why a file could not be read: elfr_strerror() says it for a person. */
enum elfr_error {
	ELFR_OK,
	ELFR_NOT_ELF,		/* no ELF magic: not an ELF file at all */
	ELFR_CLASS,		/* neither ELFCLASS32 nor ELFCLASS64 */
	ELFR_DATA,		/* unknown byte order */
	ELFR_VERSION,
	ELFR_TRUNCATED,		/* shorter than its ELF header */
	ELFR_PHDRS,		/* program header table out of the file, or bad */
	ELFR_SHDRS,		/* section header table out of the file, or bad */
	ELFR_SHSTRTAB,		/* section name table missing or out of the file */
	ELFR_SECTION,		/* a section out of the file, or its name */
	ELFR_SEGMENT,		/* a loadable segment out of the file or wrapping */
	ELFR_SYMTAB,		/* a symbol or string table out of the file */
	ELFR_TOO_BIG,		/* more headers than the reader will hold */
	ELFR_NOMEM,
	ELFR_IO,		/* the source failed (errno in elfr_last_errno) */
	ELFR_NOT_FOUND,		/* lookups: no such section or symbol */
	ELFR_NR_ERRORS
};

#define ELFR_MAX_HEADERS	(1U << 20)	/* sections, or segments */
#define ELFR_MAX_SHSTRTAB	(16U << 20)	/* bytes of section names */

/*
 * elfr_open() - read and check the ELF, program and section headers of
 * @src, and the section name table: ELFR_OK, or why not (nothing to close
 * then).  Every section but SHT_NOBITS lies in the file, every PT_LOAD
 * segment's file part too, and none wraps the address space.
 */
int elfr_open(struct elfr *e, const struct elfr_source *src);
void elfr_close(struct elfr *e);
const char *elfr_strerror(int err);

/* elfr_section() - the section called @name, or NULL. */
const struct elfr_sec *elfr_section(const struct elfr *e, const char *name);

/* elfr_first_load() - the first PT_LOAD in file order, or NULL. */
const struct elfr_seg *elfr_first_load(const struct elfr *e);

/* elfr_holds() - file address @vaddr lies in a PT_LOAD's memory image. */
bool elfr_holds(const struct elfr *e, uint64_t vaddr);

/*
 * elfr_symbol() - the STT_OBJECT symbol defined at file address @vaddr in
 * the first table of @type (SHT_SYMTAB or SHT_DYNSYM): its name in @name
 * (@len bytes, NUL-terminated, cut if longer) and its size in *@size.
 * ELFR_OK, ELFR_NOT_FOUND, or why the table could not be read.
 */
int elfr_symbol(const struct elfr *e, uint32_t type, uint64_t vaddr,
		char *name, size_t len, uint64_t *size);

/*
 * elfr_mem_read() - a source's read for a file in memory: @ctx is its
 * first byte (the reader has checked the range against the source's size).
 */
int elfr_mem_read(void *ctx, void *buf, size_t len, uint64_t off);

/* elfr_read() - @len bytes at file offset @off, checked against the file. */
int elfr_read(const struct elfr *e, void *buf, uint64_t len, uint64_t off);

#endif /* _STATICKEYS_LIB_ELF_H */
