// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The checked ELF reader (lib/elf.h).  Rule of the file: no offset, size
 * or count from the file is added, multiplied or used before a checked
 * helper below has said it fits; everything is read through rd(), which
 * checks the range against the file's size.
 */
#include <byteswap.h>
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"

/* off + len <= size, without overflow. */
static bool fits(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* *@r = @n * @m, false on overflow. */
static bool mul(uint64_t n, uint64_t m, uint64_t *r)
{
	return !__builtin_mul_overflow(n, m, r);
}

static int rd(const struct elfr *e, void *buf, uint64_t len, uint64_t off)
{
	if (!fits(off, len, e->src.size) || len > SIZE_MAX)
		return ELFR_IO;
	if (!len)
		return ELFR_OK;
	return e->src.read(e->src.ctx, buf, (size_t)len, off) ? ELFR_IO : ELFR_OK;
}

int elfr_mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	memcpy(buf, (const char *)ctx + off, len);
	return 0;
}

int elfr_read(const struct elfr *e, void *buf, uint64_t len, uint64_t off)
{
	return rd(e, buf, len, off);
}

static bool swapped(const struct elfr *e)
{
#if __BYTE_ORDER == __LITTLE_ENDIAN
	return e->data == ELFDATA2MSB;
#else
	return e->data == ELFDATA2LSB;
#endif
}

static uint16_t h16(const struct elfr *e, uint16_t v)
{
	return swapped(e) ? bswap_16(v) : v;
}

static uint32_t h32(const struct elfr *e, uint32_t v)
{
	return swapped(e) ? bswap_32(v) : v;
}

static uint64_t h64(const struct elfr *e, uint64_t v)
{
	return swapped(e) ? bswap_64(v) : v;
}

/* The ELF header's fields the reader uses, in one form. */
struct ehdr {
	uint64_t phoff, shoff;
	uint32_t phnum, shnum, shstrndx;
	uint16_t phentsize, shentsize;
};

static int read_ehdr(struct elfr *e, struct ehdr *h)
{
	unsigned char ident[EI_NIDENT];
	Elf64_Ehdr h64_;
	Elf32_Ehdr h32_;

	if (e->src.size < EI_NIDENT || rd(e, ident, EI_NIDENT, 0))
		return e->src.size < SELFMAG ? ELFR_NOT_ELF : ELFR_TRUNCATED;
	if (memcmp(ident, ELFMAG, SELFMAG))
		return ELFR_NOT_ELF;
	e->class = ident[EI_CLASS];
	e->data = ident[EI_DATA];
	if (e->class != ELFCLASS32 && e->class != ELFCLASS64)
		return ELFR_CLASS;
	if (e->data != ELFDATA2LSB && e->data != ELFDATA2MSB)
		return ELFR_DATA;
	if (ident[EI_VERSION] != EV_CURRENT)
		return ELFR_VERSION;
	if (e->class == ELFCLASS64) {
		if (rd(e, &h64_, sizeof(h64_), 0))
			return ELFR_TRUNCATED;
		e->type = h16(e, h64_.e_type);
		e->machine = h16(e, h64_.e_machine);
		*h = (struct ehdr){ h64(e, h64_.e_phoff), h64(e, h64_.e_shoff),
			h16(e, h64_.e_phnum), h16(e, h64_.e_shnum),
			h16(e, h64_.e_shstrndx), h16(e, h64_.e_phentsize),
			h16(e, h64_.e_shentsize) };
	} else {
		if (rd(e, &h32_, sizeof(h32_), 0))
			return ELFR_TRUNCATED;
		e->type = h16(e, h32_.e_type);
		e->machine = h16(e, h32_.e_machine);
		*h = (struct ehdr){ h32(e, h32_.e_phoff), h32(e, h32_.e_shoff),
			h16(e, h32_.e_phnum), h16(e, h32_.e_shnum),
			h16(e, h32_.e_shstrndx), h16(e, h32_.e_phentsize),
			h16(e, h32_.e_shentsize) };
	}
	return ELFR_OK;
}

/*
 * Entry @i of a table of @n entries of @entsize bytes at @off, read into
 * @buf (@want bytes: the entry's size for the class).  The table was
 * checked to fit the file by table_fits().
 */
static int rd_entry(const struct elfr *e, void *buf, size_t want, uint64_t off,
		    uint64_t entsize, uint64_t i)
{
	return rd(e, buf, want, off + i * entsize);
}

/* @n entries of @entsize bytes at @off lie in the file; @entsize == @want. */
static bool table_fits(const struct elfr *e, uint64_t off, uint64_t n,
		       uint64_t entsize, uint64_t want)
{
	uint64_t len;

	return entsize == want && mul(n, entsize, &len) &&
	       fits(off, len, e->src.size);
}

static int read_shdr(const struct elfr *e, const struct ehdr *h, uint64_t i,
		     struct elfr_sec *s)
{
	Elf64_Shdr s64;
	Elf32_Shdr s32;

	if (e->class == ELFCLASS64) {
		if (rd_entry(e, &s64, sizeof(s64), h->shoff, h->shentsize, i))
			return ELFR_SHDRS;
		*s = (struct elfr_sec){ h32(e, s64.sh_name), h32(e, s64.sh_type),
			h32(e, s64.sh_link), h32(e, s64.sh_info),
			h64(e, s64.sh_flags), h64(e, s64.sh_addr),
			h64(e, s64.sh_offset), h64(e, s64.sh_size),
			h64(e, s64.sh_entsize) };
	} else {
		if (rd_entry(e, &s32, sizeof(s32), h->shoff, h->shentsize, i))
			return ELFR_SHDRS;
		*s = (struct elfr_sec){ h32(e, s32.sh_name), h32(e, s32.sh_type),
			h32(e, s32.sh_link), h32(e, s32.sh_info),
			h32(e, s32.sh_flags), h32(e, s32.sh_addr),
			h32(e, s32.sh_offset), h32(e, s32.sh_size),
			h32(e, s32.sh_entsize) };
	}
	return ELFR_OK;
}

static int read_phdr(const struct elfr *e, const struct ehdr *h, uint64_t i,
		     struct elfr_seg *p)
{
	Elf64_Phdr p64;
	Elf32_Phdr p32;

	if (e->class == ELFCLASS64) {
		if (rd_entry(e, &p64, sizeof(p64), h->phoff, h->phentsize, i))
			return ELFR_PHDRS;
		*p = (struct elfr_seg){ h32(e, p64.p_type), h32(e, p64.p_flags),
			h64(e, p64.p_offset), h64(e, p64.p_vaddr),
			h64(e, p64.p_filesz), h64(e, p64.p_memsz) };
	} else {
		if (rd_entry(e, &p32, sizeof(p32), h->phoff, h->phentsize, i))
			return ELFR_PHDRS;
		*p = (struct elfr_seg){ h32(e, p32.p_type), h32(e, p32.p_flags),
			h32(e, p32.p_offset), h32(e, p32.p_vaddr),
			h32(e, p32.p_filesz), h32(e, p32.p_memsz) };
	}
	return ELFR_OK;
}

/*
 * The counts of extended numbering (gABI): e_shnum 0 with a section table
 * means section 0's sh_size, e_shstrndx SHN_XINDEX its sh_link, e_phnum
 * PN_XNUM its sh_info.
 */
static int extended_counts(const struct elfr *e, struct ehdr *h)
{
	struct elfr_sec s0;
	bool xsh = !h->shnum, xstr = h->shstrndx == SHN_XINDEX,
	     xph = h->phnum == PN_XNUM;

	if (!h->shoff || !(xsh || xstr || xph))
		return ELFR_OK;
	if (!table_fits(e, h->shoff, 1, h->shentsize,
			e->class == ELFCLASS64 ? sizeof(Elf64_Shdr)
					       : sizeof(Elf32_Shdr)) ||
	    read_shdr(e, h, 0, &s0))
		return ELFR_SHDRS;
	if (xsh) {
		if (s0.size > ELFR_MAX_HEADERS)
			return ELFR_TOO_BIG;
		h->shnum = (uint32_t)s0.size;
	}
	if (xstr)
		h->shstrndx = s0.link;
	if (xph)
		h->phnum = s0.info;
	return ELFR_OK;
}

static int read_segs(struct elfr *e, const struct ehdr *h)
{
	uint64_t end, i;

	if (!h->phnum)
		return ELFR_OK;
	if (h->phnum > ELFR_MAX_HEADERS)
		return ELFR_TOO_BIG;
	if (!table_fits(e, h->phoff, h->phnum, h->phentsize,
			e->class == ELFCLASS64 ? sizeof(Elf64_Phdr)
					       : sizeof(Elf32_Phdr)))
		return ELFR_PHDRS;
	e->segs = calloc(h->phnum, sizeof(*e->segs));
	if (!e->segs)
		return ELFR_NOMEM;
	for (i = 0; i < h->phnum; i++) {
		struct elfr_seg *p = &e->segs[i];

		if (read_phdr(e, h, i, p))
			return ELFR_PHDRS;
		e->nr_segs++;
		if (p->type != PT_LOAD)
			continue;
		if (p->filesz > p->memsz || !fits(p->offset, p->filesz, e->src.size) ||
		    __builtin_add_overflow(p->vaddr, p->memsz, &end) ||
		    (e->class == ELFCLASS32 && end > UINT32_MAX))
			return ELFR_SEGMENT;
	}
	return ELFR_OK;
}

static int read_secs(struct elfr *e, const struct ehdr *h)
{
	const struct elfr_sec *str;
	uint64_t i;

	if (!h->shoff || !h->shnum)
		return ELFR_OK;
	if (h->shnum > ELFR_MAX_HEADERS)
		return ELFR_TOO_BIG;
	if (!table_fits(e, h->shoff, h->shnum, h->shentsize,
			e->class == ELFCLASS64 ? sizeof(Elf64_Shdr)
					       : sizeof(Elf32_Shdr)))
		return ELFR_SHDRS;
	e->secs = calloc(h->shnum, sizeof(*e->secs));
	if (!e->secs)
		return ELFR_NOMEM;
	for (i = 0; i < h->shnum; i++) {
		struct elfr_sec *s = &e->secs[i];

		if (read_shdr(e, h, i, s))
			return ELFR_SHDRS;
		e->nr_secs++;
		if (s->type != SHT_NOBITS && s->type != SHT_NULL &&
		    !fits(s->offset, s->size, e->src.size))
			return ELFR_SECTION;
	}
	if (h->shstrndx == SHN_UNDEF || h->shstrndx >= e->nr_secs)
		return ELFR_SHSTRTAB;
	str = &e->secs[h->shstrndx];
	if (str->type != SHT_STRTAB)
		return ELFR_SHSTRTAB;
	/* Section names, copied whole: a sparse file must not ask for GiBs. */
	if (str->size > ELFR_MAX_SHSTRTAB)
		return ELFR_TOO_BIG;
	e->shstrtab = malloc((size_t)str->size + 1);
	if (!e->shstrtab)
		return ELFR_NOMEM;
	if (rd(e, e->shstrtab, str->size, str->offset))
		return ELFR_SHSTRTAB;
	e->shstrtab[str->size] = '\0';	/* a last name left open ends here */
	e->shstrtab_size = str->size;
	for (i = 0; i < e->nr_secs; i++)
		if (e->secs[i].name >= e->shstrtab_size && e->secs[i].name)
			return ELFR_SECTION;
	return ELFR_OK;
}

int elfr_open(struct elfr *e, const struct elfr_source *src)
{
	struct ehdr h;
	int err;

	memset(e, 0, sizeof(*e));
	e->src = *src;
	err = read_ehdr(e, &h);
	if (!err)
		err = extended_counts(e, &h);
	if (!err)
		err = read_segs(e, &h);
	if (!err)
		err = read_secs(e, &h);
	if (err)
		elfr_close(e);
	return err;
}

void elfr_close(struct elfr *e)
{
	free(e->segs);
	free(e->secs);
	free(e->shstrtab);
	e->segs = NULL;
	e->secs = NULL;
	e->shstrtab = NULL;
	e->nr_segs = e->nr_secs = 0;
}

const char *elfr_strerror(int err)
{
	static const char *const why[ELFR_NR_ERRORS] = {
		[ELFR_OK] = "no error",
		[ELFR_NOT_ELF] = "not an ELF file",
		[ELFR_CLASS] = "an ELF class this reader does not know",
		[ELFR_DATA] = "an ELF byte order this reader does not know",
		[ELFR_VERSION] = "an ELF version this reader does not know",
		[ELFR_TRUNCATED] = "shorter than its ELF header",
		[ELFR_PHDRS] = "its program header table is malformed or lies beyond the end of the file",
		[ELFR_SHDRS] = "its section header table is malformed or lies beyond the end of the file",
		[ELFR_SHSTRTAB] = "its section name table is missing or malformed",
		[ELFR_SECTION] = "a section lies beyond the end of the file or has no name",
		[ELFR_SEGMENT] = "a loadable segment lies beyond the end of the file or wraps the address space",
		[ELFR_SYMTAB] = "a symbol or string table is malformed or lies beyond the end of the file",
		[ELFR_TOO_BIG] = "more headers than this reader holds",
		[ELFR_NOMEM] = "out of memory",
		[ELFR_IO] = "cannot read it (the file changed or shrank while being read?)",
		[ELFR_NOT_FOUND] = "not found",
	};

	return err >= 0 && err < ELFR_NR_ERRORS ? why[err] : "unknown error";
}

const struct elfr_sec *elfr_section(const struct elfr *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nr_secs; i++)
		if (e->secs[i].type != SHT_NULL &&
		    !strcmp(e->shstrtab + e->secs[i].name, name))
			return &e->secs[i];
	return NULL;
}

const struct elfr_seg *elfr_first_load(const struct elfr *e)
{
	size_t i;

	for (i = 0; i < e->nr_segs; i++)
		if (e->segs[i].type == PT_LOAD)
			return &e->segs[i];
	return NULL;
}

bool elfr_holds(const struct elfr *e, uint64_t vaddr)
{
	size_t i;

	/* elfr_open() checked that vaddr + memsz does not wrap. */
	for (i = 0; i < e->nr_segs; i++)
		if (e->segs[i].type == PT_LOAD && vaddr >= e->segs[i].vaddr &&
		    vaddr - e->segs[i].vaddr < e->segs[i].memsz)
			return true;
	return false;
}

#define SYM_CHUNK	256

/* One symbol in the host's form. */
struct sym {
	uint32_t name;
	unsigned char info;
	uint16_t shndx;
	uint64_t value, size;
};

/* Symbol @i of the chunk @raw (entries of the file's class and order). */
static void decode_sym(const struct elfr *e, const unsigned char *raw,
		       size_t i, struct sym *y)
{
	Elf64_Sym y64;
	Elf32_Sym y32;

	if (e->class == ELFCLASS64) {
		memcpy(&y64, raw + i * sizeof(y64), sizeof(y64));
		*y = (struct sym){ h32(e, y64.st_name), y64.st_info,
			h16(e, y64.st_shndx), h64(e, y64.st_value),
			h64(e, y64.st_size) };
	} else {
		memcpy(&y32, raw + i * sizeof(y32), sizeof(y32));
		*y = (struct sym){ h32(e, y32.st_name), y32.st_info,
			h16(e, y32.st_shndx), h32(e, y32.st_value),
			h32(e, y32.st_size) };
	}
}

/* Name @off of string table @str into @name: cut if longer than @len. */
static int read_name(const struct elfr *e, const struct elfr_sec *str,
		     uint32_t off, char *name, size_t len)
{
	uint64_t n = str->size - off;	/* off < size: checked by the caller */

	if (n > len - 1)
		n = len - 1;
	if (rd(e, name, n, str->offset + off))
		return ELFR_SYMTAB;
	name[n] = '\0';
	/* A name the table leaves open at its end is no name. */
	if (strlen(name) == n && n == str->size - off)
		return ELFR_SYMTAB;
	return ELFR_OK;
}

int elfr_symbol(const struct elfr *e, uint32_t type, uint64_t vaddr,
		char *name, size_t len, uint64_t *size)
{
	unsigned char raw[SYM_CHUNK * sizeof(Elf64_Sym)];
	const struct elfr_sec *s = NULL, *str;
	uint64_t entsize, n, i, chunk;
	struct sym y;
	size_t k;

	for (k = 0; k < e->nr_secs && !s; k++)
		if (e->secs[k].type == type)
			s = &e->secs[k];
	if (!s || !len)
		return ELFR_NOT_FOUND;
	entsize = e->class == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (s->link >= e->nr_secs || e->secs[s->link].type != SHT_STRTAB)
		return ELFR_SYMTAB;
	str = &e->secs[s->link];
	n = s->size / entsize;	/* the section lies in the file: elfr_open() */
	/* Read in chunks: one read per symbol would be a system call each. */
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < SYM_CHUNK ? n - i : SYM_CHUNK;
		if (rd(e, raw, chunk * entsize, s->offset + i * entsize))
			return ELFR_SYMTAB;
		for (k = 0; k < chunk; k++) {
			decode_sym(e, raw, k, &y);
			if (!(i + k) || (y.info & 0xf) != STT_OBJECT ||
			    y.shndx == SHN_UNDEF || y.value != vaddr ||
			    y.name >= str->size ||
			    read_name(e, str, y.name, name, len))
				continue;
			*size = y.size;
			return ELFR_OK;
		}
	}
	return ELFR_NOT_FOUND;
}
