// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * A process read from its files (kernel/symbols.h): mappings, ELF symbol
 * tables and the printed key table, for the library and statickeys-keys.
 * No loader call, no library lock: the caller decides where it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

int sk_maps_read(pid_t pid, struct sk_map **maps, size_t *n)
{
	char file[64], line[PATH_MAX + 128];
	struct sk_map *v = NULL, *t;
	size_t cap = 0, used = 0;
	FILE *f;

	if (pid)
		snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	else
		snprintf(file, sizeof(file), "/proc/self/maps");
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int path_at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off,
			   &path_at) < 3 || !path_at || line[path_at] != '/')
			continue;
		if (used == cap) {
			cap = cap ? 2 * cap : 64;
			t = realloc(v, cap * sizeof(*v));
			if (!t) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = t;
		}
		line[strcspn(line, "\n")] = '\0';
		v[used] = (struct sk_map){ s, e, off, "" };
		snprintf(v[used++].path, PATH_MAX, "%s", line + path_at);
	}
	fclose(f);
	*maps = v;
	*n = used;
	return 0;
}

const struct sk_map *sk_maps_find(const struct sk_map *maps, size_t n,
				  uintptr_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &maps[i];
	return NULL;
}

/* [@off, @off + @len) lies inside the file, whatever the file says. */
static bool in_file(const struct sk_elf *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* A string of a section at [@off, @off + @len): NUL-terminated inside it. */
static const char *file_string(const struct sk_elf *f, uint64_t off,
			       uint64_t len, uint64_t at)
{
	const char *s = (const char *)f->base + off + at;

	if (at >= len || !memchr(s, '\0', len - at))
		return NULL;
	return s;
}

static const ElfW(Shdr) *section_headers(const struct sk_elf *f, size_t *n)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->base;

	if (!eh->e_shoff || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	    !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr))))
		return NULL;
	*n = eh->e_shnum;
	return (const ElfW(Shdr) *)(f->base + eh->e_shoff);
}

/*
 * The bias, from the lowest mapping of the file: it maps the page of the
 * first PT_LOAD's file offset at that segment's address plus the bias.
 */
static int find_bias(struct sk_elf *f, const struct sk_map *maps, size_t n)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(f->base + eh->e_phoff);
	const struct sk_map *low = NULL;
	size_t i;

	if (!in_file(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(*ph)))
		return -ENOEXEC;
	for (i = 0; i < n; i++)
		if (!strcmp(maps[i].path, f->path) &&
		    (!low || maps[i].start < low->start))
			low = &maps[i];
	if (!low)
		return -ENOENT;
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			f->bias = low->start - ph[i].p_vaddr + ph[i].p_offset -
				  (uintptr_t)low->offset;
			return 0;
		}
	return -ENOEXEC;
}

int sk_elf_open(struct sk_elf *f, const char *path, const struct sk_map *maps,
		size_t n)
{
	const ElfW(Ehdr) *eh;
	struct stat st;
	void *p;
	int fd, err;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh)) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	f->base = p;
	f->size = st.st_size;
	eh = p;
	err = memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	      eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
							    : ELFCLASS32) ?
	      -ENOEXEC : find_bias(f, maps, n);
	if (err)
		sk_elf_close(f);
	return err;
}

void sk_elf_close(struct sk_elf *f)
{
	if (f->base)
		munmap((void *)f->base, f->size);
	f->base = NULL;
}

/* The symbol of one table (SHT_SYMTAB or SHT_DYNSYM) at @addr, or NULL. */
static const char *table_symbol(const struct sk_elf *f, unsigned int type,
				uintptr_t addr, size_t *size)
{
	const ElfW(Shdr) *sh;
	size_t nsh, i, j;

	sh = section_headers(f, &nsh);
	for (i = 0; sh && i < nsh; i++) {
		const ElfW(Sym) *sym;
		const char *str;

		if (sh[i].sh_type != type || sh[i].sh_link >= nsh ||
		    !in_file(f, sh[i].sh_offset, sh[i].sh_size) ||
		    !in_file(f, sh[sh[i].sh_link].sh_offset,
			     sh[sh[i].sh_link].sh_size))
			continue;
		sym = (const ElfW(Sym) *)(f->base + sh[i].sh_offset);
		for (j = 1; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (ELF64_ST_TYPE(sym[j].st_info) != STT_OBJECT ||
			    sym[j].st_shndx == SHN_UNDEF ||
			    sym[j].st_value + f->bias != addr)
				continue;
			str = file_string(f, sh[sh[i].sh_link].sh_offset,
					  sh[sh[i].sh_link].sh_size,
					  sym[j].st_name);
			if (!str)
				continue;
			*size = sym[j].st_size;
			return str;
		}
	}
	return NULL;
}

const char *sk_elf_symbol(const struct sk_elf *f, uintptr_t addr,
			  const char **table, size_t *size)
{
	const char *name = table_symbol(f, SHT_SYMTAB, addr, size);

	*table = "symtab";
	if (!name) {
		name = table_symbol(f, SHT_DYNSYM, addr, size);
		*table = "dynsym";
	}
	if (!name)
		*table = "none";
	return name;
}

bool sk_elf_section(const struct sk_elf *f, const char *name, uintptr_t *addr,
		    size_t *size)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->base;
	const ElfW(Shdr) *sh = NULL, *strs;
	size_t nsh = 0, i;

	sh = section_headers(f, &nsh);
	if (!sh || eh->e_shstrndx >= nsh)
		return false;
	strs = &sh[eh->e_shstrndx];
	if (!in_file(f, strs->sh_offset, strs->sh_size))
		return false;
	for (i = 0; i < nsh; i++) {
		const char *s = file_string(f, strs->sh_offset, strs->sh_size,
					    sh[i].sh_name);

		if (!s || strcmp(s, name))
			continue;
		*addr = sh[i].sh_addr + f->bias;
		*size = sh[i].sh_size;
		return true;
	}
	return false;
}

const struct sk_elf *sk_elf_cache_get(struct sk_elf_cache *c, const char *path)
{
	struct sk_elf **v, *f;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->files[i]->path, path))
			return c->files[i]->base ? c->files[i] : NULL;
	v = realloc(c->files, (c->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->files = v;
	f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	/* A file that cannot be opened is kept too: asked once. */
	sk_elf_open(f, path, c->maps, c->nr_maps);
	snprintf(f->path, sizeof(f->path), "%s", path);
	v[c->n++] = f;
	return f->base ? f : NULL;
}

void sk_elf_cache_free(struct sk_elf_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		sk_elf_close(c->files[i]);
		free(c->files[i]);
	}
	free(c->files);
	c->files = NULL;
	c->n = 0;
}

/* @addr lies in one of @f's loaded segments, its .bss included. */
static bool elf_holds(const struct sk_elf *f, uintptr_t addr)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)f->base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(f->base + eh->e_phoff);
	size_t i;

	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && addr >= f->bias + ph[i].p_vaddr &&
		    addr < f->bias + ph[i].p_vaddr + ph[i].p_memsz)
			return true;
	return false;
}

/*
 * The file whose segments hold @addr: the one mapped there or, for a .bss
 * beyond the file's last page (an anonymous mapping), the one whose
 * segments say so.
 */
static const struct sk_elf *file_at(struct sk_elf_cache *c, uintptr_t addr)
{
	const struct sk_map *m = sk_maps_find(c->maps, c->nr_maps, addr);
	const struct sk_elf *f;
	size_t i;

	if (m)
		return sk_elf_cache_get(c, m->path);
	for (i = 0; i < c->nr_maps; i++) {
		f = sk_elf_cache_get(c, c->maps[i].path);
		if (f && elf_holds(f, addr))
			return f;
	}
	return NULL;
}

void sk_key_describe(struct sk_elf_cache *c, uintptr_t key,
		     size_t deferred_size, struct statickeys_key_info *info)
{
	const struct sk_elf *f = file_at(c, key);
	size_t size = 0;

	info->key = (const void *)key;
	info->object = f ? f->path : "?";
	info->name = f ? sk_elf_symbol(f, key, &info->name_table, &size) : NULL;
	if (!info->name)
		info->name_table = "none";
	/* Only a symbol knows the struct around the key. */
	if (info->name && size == deferred_size)
		info->flags |= STATICKEYS_KEY_DEFERRED;
}

const char *sk_site_state_name(enum statickeys_site_state s)
{
	static const char *const names[] = {
		[STATICKEYS_SITE_NOP] = "NOP",
		[STATICKEYS_SITE_JMP] = "JMP",
		[STATICKEYS_SITE_INT3] = "INT3",
		[STATICKEYS_SITE_EMULATED] = "EMULATED",
		[STATICKEYS_SITE_OTHER] = "OTHER",
		[STATICKEYS_SITE_DEAD] = "DEAD",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s]
								  : "?";
}

/*
 * key <address> <name> <table> <object> <TRUE|FALSE>[,RO][,DEFERRED]
 *     count <n> <on|off> sites <n>
 *   site <address> <target> <likely|unlikely> <state>
 */
void sk_key_print(FILE *f, const struct statickeys_key_info *k)
{
	size_t i;

	fprintf(f, "key %p %s %s %s %s%s%s count %d %s sites %zu\n", k->key,
		k->name ? k->name : "-", k->name_table, k->object,
		k->flags & STATICKEYS_KEY_TRUE ? "TRUE" : "FALSE",
		k->flags & STATICKEYS_KEY_RO ? ",RO" : "",
		k->flags & STATICKEYS_KEY_DEFERRED ? ",DEFERRED" : "",
		k->count, k->enabled ? "on" : "off", k->nr_sites);
	for (i = 0; i < k->nr_sites; i++)
		fprintf(f, "  site %p %p %s %s\n", k->sites[i].addr,
			k->sites[i].target,
			k->sites[i].likely ? "likely" : "unlikely",
			sk_site_state_name(k->sites[i].state));
}
