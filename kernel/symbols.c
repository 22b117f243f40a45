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

int sk_maps_read(struct sk_map **maps, size_t *n)
{
	char line[PATH_MAX + 128];
	struct sk_map *v = NULL, *t;
	size_t cap = 0, used = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		unsigned long ino;
		int path_at = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %lu %n", &s, &e, &off,
			   &ino, &path_at) < 4 || !path_at || line[path_at] != '/')
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
		v[used] = (struct sk_map){ s, e, off, ino, "" };
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

/* The lowest mapping of @path: the one that maps its first loaded page. */
static const struct sk_map *lowest(const char *path, const struct sk_map *maps,
				   size_t n)
{
	const struct sk_map *low = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(maps[i].path, path) &&
		    (!low || maps[i].start < low->start))
			low = &maps[i];
	return low;
}

/*
 * The bias: the lowest mapping maps the page of the first PT_LOAD's file
 * offset at that segment's address plus the bias.
 */
static int find_bias(struct sk_elf *f, const struct sk_map *low)
{
	const struct elfr_seg *first = elfr_first_load(&f->elf);

	if (!first)
		return -ENOEXEC;
	f->bias = low->start - first->vaddr + first->offset -
		  (uintptr_t)low->offset;
	return 0;
}

/*
 * The file mapped at @m, opened for reading, through whichever way reaches
 * it, each checked to lead to the inode the mapping has:
 *  - /proc/self/exe, for the main program: no directory on its name is
 *    searched, so a program that dropped privileges (setuid() to a user who
 *    may not enter the directory it was started from) still reads itself;
 *  - /proc/self/map_files, for any object, deleted or not, but only with
 *    CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE;
 *  - the name, if it still leads to the file mapped.
 * -errno of the last way tried (-ESTALE: a name that leads elsewhere now).
 */
static int open_mapped(const struct sk_map *m)
{
	char map_file[64];
	const char *ways[] = { "/proc/self/exe", map_file, m->path };
	struct stat st;
	int err = -ENOENT;
	size_t i;

	snprintf(map_file, sizeof(map_file), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)m->start, (unsigned long)m->end);
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		int fd = open(ways[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    st.st_ino == m->ino)
			return fd;
		err = -ESTALE;
		close(fd);
	}
	return err;
}

int sk_elf_open(struct sk_elf *f, const char *path, const struct sk_map *maps,
		size_t n)
{
	const struct sk_map *low = lowest(path, maps, n);
	struct elfr_source src = { elfr_mem_read, NULL, 0 };
	struct stat st;
	void *p;
	int fd, err;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!low)
		return -ENOENT;
	fd = open_mapped(low);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	src.ctx = p;
	src.size = st.st_size;
	if (elfr_open(&f->elf, &src)) {
		munmap(p, st.st_size);
		return -ENOEXEC;
	}
	f->base = p;
	f->size = st.st_size;
	/* Only a file of this process's class. */
	err = f->elf.class != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ?
	      -ENOEXEC : find_bias(f, low);
	if (err)
		sk_elf_close(f);
	return err;
}

void sk_elf_close(struct sk_elf *f)
{
	size_t i;

	if (!f->base)
		return;
	elfr_close(&f->elf);
	munmap((void *)f->base, f->size);
	f->base = NULL;
	for (i = 0; i < f->nr_names; i++)
		free(f->names[i]);
	free(f->names);
	f->names = NULL;
	f->nr_names = 0;
}

/*
 * The symbol of the first table of @type (SHT_SYMTAB or SHT_DYNSYM) at
 * @addr, kept with the file; NULL without one.
 */
static const char *table_symbol(struct sk_elf *f, uint32_t type,
				uintptr_t addr, size_t *size)
{
	char name[512], *copy, **v;
	uint64_t sz;

	if (elfr_symbol(&f->elf, type, addr - f->bias, name, sizeof(name), &sz))
		return NULL;
	v = realloc(f->names, (f->nr_names + 1) * sizeof(*v));
	if (!v)
		return NULL;
	f->names = v;
	copy = strdup(name);
	if (!copy)
		return NULL;
	v[f->nr_names++] = copy;
	*size = sz;
	return copy;
}

const char *sk_elf_symbol(struct sk_elf *f, uintptr_t addr,
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
	const struct elfr_sec *sec = elfr_section(&f->elf, name);

	if (!sec)
		return false;
	*addr = sec->addr + f->bias;
	*size = sec->size;
	return true;
}

struct sk_elf *sk_elf_cache_get(struct sk_elf_cache *c, const char *path)
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

/*
 * The file whose segments hold @addr: the one mapped there or, for a .bss
 * beyond the file's last page (an anonymous mapping), the one whose
 * segments say so.
 */
static struct sk_elf *file_at(struct sk_elf_cache *c, uintptr_t addr)
{
	const struct sk_map *m = sk_maps_find(c->maps, c->nr_maps, addr);
	struct sk_elf *f;
	size_t i;

	if (m)
		return sk_elf_cache_get(c, m->path);
	for (i = 0; i < c->nr_maps; i++) {
		f = sk_elf_cache_get(c, c->maps[i].path);
		if (f && elfr_holds(&f->elf, addr - f->bias))
			return f;
	}
	return NULL;
}

void sk_key_describe(struct sk_elf_cache *c, uintptr_t key,
		     size_t deferred_size, struct statickeys_key_info *info)
{
	struct sk_elf *f = file_at(c, key);
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

void sk_fputs_escaped(const char *s, FILE *f)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\%03o", c);
		else
			putc(c, f);
	}
}

/*
 * key <address> <name> <table> <object> <TRUE|FALSE>[,RO][,DEFERRED]
 *     count <n> <on|off> sites <n>
 *   site <address> <target> <likely|unlikely> <state>
 * The name and the object as sk_fputs_escaped() writes them.
 */
void sk_key_print(FILE *f, const struct statickeys_key_info *k)
{
	size_t i;

	fprintf(f, "key %p ", k->key);
	sk_fputs_escaped(k->name ? k->name : "-", f);
	fprintf(f, " %s ", k->name_table);
	sk_fputs_escaped(k->object, f);
	fprintf(f, " %s%s%s count %d %s sites %zu\n",
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
