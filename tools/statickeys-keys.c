// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * statickeys-keys <pid>: the keys of a running process, read from outside
 * and never changed: its mappings, each mapped file's __jump_table (found
 * through the file, read from the process, where the library has sorted
 * it), the keys and the site bytes from /proc/<pid>/mem.  The table is the
 * one statickeys_print_keys() prints (kernel/symbols.c writes both).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <asm/jump_label.h>
#include "../kernel/symbols.h"

#define ENTRY_BRANCH	JUMP_ENTRY_BRANCH
#define ENTRY_DEAD	2UL	/* bit 1: the library refused the site */

static const char *prog = "statickeys-keys";
static int mem_fd;

struct rec {
	uintptr_t key, code, target;
	bool likely, dead;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static bool read_mem(uintptr_t addr, void *buf, size_t len)
{
	return pread(mem_fd, buf, len, (off_t)addr) == (ssize_t)len;
}

/*
 * The instruction at a site, from its bytes: the encodings the arch
 * patchers write (arch/<arch>/kernel/jump_label.c), which this tool cannot
 * link.  Per architecture, @jmp is the jump a site to @target would hold.
 */
#if defined(__x86_64__) || defined(__i386__)
static enum statickeys_site_state decode(const uint8_t *p, uintptr_t code,
					 uintptr_t target)
{
	static const uint8_t nop[JUMP_LABEL_NOP_SIZE] = { ARCH_JUMP_LABEL_NOP5 };
	uint8_t jmp[JUMP_LABEL_NOP_SIZE];
	int32_t disp = (int32_t)(target - (code + JUMP_LABEL_NOP_SIZE));

	jmp[0] = ARCH_JUMP_LABEL_JMP32_OPCODE;
	memcpy(jmp + 1, &disp, sizeof(disp));
	if (!memcmp(p, nop, sizeof(nop)))
		return STATICKEYS_SITE_NOP;
	if (!memcmp(p, jmp, sizeof(jmp)))
		return STATICKEYS_SITE_JMP;
	if (p[0] == 0xcc && (!memcmp(p + 1, nop + 1, sizeof(nop) - 1) ||
			     !memcmp(p + 1, jmp + 1, sizeof(jmp) - 1)))
		return STATICKEYS_SITE_INT3;
	return STATICKEYS_SITE_OTHER;
}
#else
/* One 32-bit instruction: the NOP, or the branch to the site's target. */
static bool insn32_forms(uint32_t now, uintptr_t code, uintptr_t target,
			 uint32_t *nop, uint32_t *jmp)
{
	uint32_t off = (uint32_t)(target - code);
#if defined(__aarch64__)
	*nop = 0xd503201fU;				/* nop */
	*jmp = 0x14000000U | ((off >> 2) & 0x03ffffffU);	/* b */
#elif defined(__riscv)
	*nop = 0x00000013U;				/* addi x0, x0, 0 */
	*jmp = 0x0000006fU | ((off & 0x100000U) << 11) |	/* jal x0 */
	       ((off & 0x7feU) << 20) | ((off & 0x800U) << 9) |
	       (off & 0xff000U);
#elif defined(__arm__)
	uint32_t t = off - 4, s = (t >> 24) & 1;

	/* ARM: nop and b (from pc + 8); Thumb-2: nop.w and b.w (pc + 4). */
	*nop = 0xe320f000U;
	*jmp = 0xea000000U | (((off - 8) >> 2) & 0x00ffffffU);
	if (now != *nop && now != *jmp) {
		*nop = 0x8000f3afU;
		*jmp = (0xf000U | (s << 10) | ((t >> 12) & 0x3ffU)) |
		       (0x9000U | (!(((t >> 23) & 1) ^ s) << 13) |
			(!(((t >> 22) & 1) ^ s) << 11) |
			((t >> 1) & 0x7ffU)) << 16;
	}
#else
	return false;
#endif
	return true;
}

static enum statickeys_site_state decode(const uint8_t *p, uintptr_t code,
					 uintptr_t target)
{
	uint32_t now, nop, jmp;

	memcpy(&now, p, sizeof(now));
	if (!insn32_forms(now, code, target, &nop, &jmp))
		return STATICKEYS_SITE_OTHER;
	if (now == nop)
		return STATICKEYS_SITE_NOP;
	return now == jmp ? STATICKEYS_SITE_JMP : STATICKEYS_SITE_OTHER;
}
#endif

/* The table of @f, as the process holds it: appended to *@recs. */
static int read_table(const struct sk_elf *f, struct rec **recs, size_t *n)
{
	struct jump_entry *tab;
	uintptr_t addr;
	size_t size, i;
	struct rec *v;

	if (!sk_elf_section(f, "__jump_table", &addr, &size) || !size)
		return 0;
	tab = malloc(size);
	v = realloc(*recs, (*n + size / sizeof(*tab)) * sizeof(*v));
	if (!tab || !v) {
		free(tab);
		return -ENOMEM;
	}
	*recs = v;
	if (!read_mem(addr, tab, size)) {
		fprintf(stderr, "%s: %s: cannot read its __jump_table at %#lx: %s\n",
			prog, f->path, (unsigned long)addr, strerror(errno));
		free(tab);
		return 0;
	}
	for (i = 0; i < size / sizeof(*tab); i++) {
		uintptr_t at = addr + i * sizeof(*tab);

		if (!(tab[i].key & ~(ENTRY_BRANCH | ENTRY_DEAD)))
			continue;
		v[(*n)++] = (struct rec){
			.key = tab[i].key & ~(ENTRY_BRANCH | ENTRY_DEAD),
			.code = at + tab[i].code,
			.target = at + sizeof(int32_t) + tab[i].target,
			.likely = tab[i].key & ENTRY_BRANCH,
			.dead = tab[i].key & ENTRY_DEAD,
		};
	}
	free(tab);
	return 0;
}

static bool key_read_only(struct sk_elf_cache *c, const char *object,
			  uintptr_t key)
{
	const struct sk_elf *f = sk_elf_cache_get(c, object);
	uintptr_t addr;
	size_t size;

	return f && sk_elf_section(f, "__sk_ro_after_init", &addr, &size) &&
	       key >= addr && key < addr + size;
}

static void print_key(struct sk_elf_cache *c, const struct rec *r, size_t n,
		      struct statickeys_site_info *sites)
{
	struct statickeys_key_info info = { 0 };
	struct static_key key;
	uint8_t bytes[JUMP_LABEL_NOP_SIZE];
	size_t i;

	sk_key_describe(c, r[0].key, sizeof(struct static_key_deferred), &info);
	if (!read_mem(r[0].key, &key, sizeof(key))) {
		fprintf(stderr, "%s: key %#lx: cannot read it: %s\n", prog,
			(unsigned long)r[0].key, strerror(errno));
		return;
	}
	if (key.type & JUMP_TYPE_TRUE)
		info.flags |= STATICKEYS_KEY_TRUE;
	if (key_read_only(c, info.object, r[0].key))
		info.flags |= STATICKEYS_KEY_RO;
	info.count = key.enabled;
	info.enabled = key.enabled != 0;
	for (i = 0; i < n; i++) {
		sites[i] = (struct statickeys_site_info){
			(const void *)r[i].code, (const void *)r[i].target,
			r[i].likely, STATICKEYS_SITE_DEAD };
		if (r[i].dead)
			continue;
		sites[i].state = read_mem(r[i].code, bytes, sizeof(bytes)) ?
			decode(bytes, r[i].code, r[i].target) :
			STATICKEYS_SITE_OTHER;
	}
	info.nr_sites = n;
	info.sites = sites;
	sk_key_print(stdout, &info);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s PID\n"
		"List the static keys of a running process, read-only: each key's name,\n"
		"object, type, count, branch direction and sites (statickeys-keys(1)).\n",
		prog);
}

/* Why the memory of @pid cannot be read, for a person. */
static void refuse(const char *pid, int err)
{
	if (err == ENOENT || err == ESRCH) {
		fprintf(stderr, "%s: no process %s\n", prog, pid);
		return;
	}
	fprintf(stderr, "%s: may not read process %s: %s (its memory needs the permission ptrace does: the same user and a dumpable process, or CAP_SYS_PTRACE; see also /proc/sys/kernel/yama/ptrace_scope)\n",
		prog, pid, strerror(err));
}

int main(int argc, char **argv)
{
	struct sk_elf_cache cache = { 0 };
	struct statickeys_site_info *sites;
	struct sk_map *maps;
	struct rec *recs = NULL;
	size_t nr_maps, n = 0, i, j;
	char path[64], *end;
	long pid;
	int err;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	errno = 0;
	pid = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || pid <= 0 || pid > 0x7fffffff) {
		fprintf(stderr, "%s: '%s' is not a process ID\n", prog, argv[1]);
		return 2;
	}
	/* The kernel checks ptrace access when /proc/<pid>/mem is opened. */
	snprintf(path, sizeof(path), "/proc/%ld/mem", pid);
	mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mem_fd < 0) {
		refuse(argv[1], errno);
		return 1;
	}
	err = sk_maps_read((pid_t)pid, &maps, &nr_maps);
	if (err) {
		refuse(argv[1], -err);
		return 1;
	}
	cache.maps = maps;
	cache.nr_maps = nr_maps;
	for (i = 0; i < nr_maps && !err; i++) {
		const struct sk_elf *f;

		for (j = 0; j < i && strcmp(maps[j].path, maps[i].path); j++)
			;
		if (j < i)
			continue;	/* the file's other segments */
		f = sk_elf_cache_get(&cache, maps[i].path);
		if (f)
			err = read_table(f, &recs, &n);
	}
	sites = malloc((n ? n : 1) * sizeof(*sites));
	if (err || !sites) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && recs[j].key == recs[i].key; j++)
			;
		print_key(&cache, recs + i, j - i, sites);
	}
	if (!n)
		fprintf(stderr, "%s: process %ld has no static-key site (none of its objects has a __jump_table: built with CONFIG_JUMP_LABEL=n, or no static keys)\n",
			prog, pid);
	sk_elf_cache_free(&cache);
	free(sites);
	free(recs);
	free(maps);
	return fflush(stdout) ? 1 : 0;
}
