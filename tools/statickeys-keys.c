// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * statickeys-keys <pid>: the keys of a running process, read from outside
 * and never changed: its mappings, each mapped file's __jump_table (found
 * through the file, read from the process, where the library has sorted
 * it), the keys and the site bytes from /proc/<pid>/mem.  The table is the
 * one statickeys_print_keys() prints (kernel/symbols.c writes both).
 *
 * The process may belong to someone else and be hostile: the files are the
 * ones it maps, opened through /proc/<pid>/map_files (never by a name it
 * chose), else by name with no symbolic link followed and only if the file
 * is still the one mapped; never a read that can block; every ELF offset
 * checked (elf-reader.c); each object left out is named, with the reason.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include <linux/jump_label.h>
#include <linux/jump_label_ratelimit.h>
#include <asm/jump_label.h>
#include "../kernel/symbols.h"
#include "elf-reader.h"

#define ENTRY_BRANCH	JUMP_ENTRY_BRANCH
#define ENTRY_DEAD	2UL	/* bit 1: the library refused the site */

#define MAX_TABLE	(64UL << 20)	/* bytes of one __jump_table */
#define FUSE_MAGIC	0x65735546

#if defined(__x86_64__)
#define ELF_MACHINE	EM_X86_64
#elif defined(__i386__)
#define ELF_MACHINE	EM_386
#elif defined(__aarch64__)
#define ELF_MACHINE	EM_AARCH64
#elif defined(__riscv)
#define ELF_MACHINE	EM_RISCV
#elif defined(__arm__)
#define ELF_MACHINE	EM_ARM
#endif
#define ELF_CLASS	(sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

static const char *prog = "statickeys-keys";
static int mem_fd;
static long pid;
static uid_t pid_uid;
static unsigned int nr_left_out;	/* objects not read, each named */
static bool incomplete;			/* something else is missing */

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


/* ---- the process's mappings and the objects they map ---- */

struct map {
	uintptr_t start, end;
	uint64_t offset;
	size_t obj;
};

enum obj_state { OBJ_UNTRIED, OBJ_READ, OBJ_SKIPPED, OBJ_LEFT_OUT };

/* One mapped file, told apart by device and inode, not by name. */
struct obj {
	char *name;			/* as /proc/<pid>/maps gives it */
	unsigned int major, minor;
	uint64_t ino;
	size_t low;			/* its lowest mapping */
	bool exec;			/* mapped executable somewhere */
	enum obj_state state;
	int fd;
	struct elfr elf;
	uintptr_t bias;			/* run-time address minus file address */
};

static struct map *maps;
static size_t nr_maps;
static struct obj *objs;
static size_t nr_objs;

/* Object @o could not be read: one line naming it and why. */
__attribute__((format(printf, 2, 3)))
static void left_out(struct obj *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: not read: ", prog, o->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	o->state = OBJ_LEFT_OUT;
	nr_left_out++;
}

static size_t obj_of(unsigned int major, unsigned int minor, uint64_t ino,
		     const char *name)
{
	struct obj *v;
	size_t i;

	for (i = 0; i < nr_objs; i++)
		if (objs[i].ino == ino && objs[i].major == major &&
		    objs[i].minor == minor)
			return i;
	v = realloc(objs, (nr_objs + 1) * sizeof(*v));
	if (!v)
		return SIZE_MAX;
	objs = v;
	objs[nr_objs] = (struct obj){ .name = strdup(name), .major = major,
		.minor = minor, .ino = ino, .low = nr_maps, .fd = -1 };
	return objs[nr_objs].name ? nr_objs++ : SIZE_MAX;
}

/* The file-backed mappings of the process: 0 or -errno. */
static int maps_read(void)
{
	char file[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	snprintf(file, sizeof(file), "/proc/%ld/maps", pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		unsigned long long s, e, off, ino;
		unsigned int major, minor;
		char perms[5];
		int at = 0;
		struct map *v;
		size_t o;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &s, &e,
			   perms, &off, &major, &minor, &ino, &at) < 7 ||
		    !at || line[at] != '/' || !ino || s >= e)
			continue;
		line[strcspn(line, "\n")] = '\0';
		v = realloc(maps, (nr_maps + 1) * sizeof(*v));
		o = v ? obj_of(major, minor, ino, line + at) : SIZE_MAX;
		if (v)
			maps = v;
		if (o == SIZE_MAX) {
			err = -ENOMEM;
			break;
		}
		maps[nr_maps] = (struct map){ s, e, off, o };
		if (maps[objs[o].low].start > s || objs[o].low == nr_maps)
			objs[o].low = nr_maps;
		objs[o].exec |= perms[2] == 'x';
		nr_maps++;
	}
	free(line);
	fclose(f);
	return err;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/*
 * The name of the mapped file, opened as a path only (O_PATH: no open of a
 * FIFO or device, nothing that blocks), with no symbolic link followed on
 * the way (openat2's RESOLVE_NO_SYMLINKS; O_NOFOLLOW for the last
 * component where openat2 is missing).
 */
static int open_name(const char *name)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof(how));

	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
#endif
	return open(name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * A descriptor of exactly the file @o maps, opened O_PATH: through
 * /proc/<pid>/map_files (the mapping's own file, deleted or not; needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else by name if the name still
 * leads to it: the same inode and device.  btrfs (a device per subvolume)
 * and overlayfs give stat() another device than the maps line: with the
 * inode alone, *@unsure asks obj_open() to compare the bytes too.  -1
 * after saying why not.
 */
static int open_mapped(struct obj *o, struct stat *st, bool *unsure)
{
	const struct map *m = &maps[o->low];
	bool deleted = ends_with(o->name, " (deleted)");
	char path[96];
	int fd, denied;

	snprintf(path, sizeof(path), "/proc/%ld/map_files/%lx-%lx", pid,
		 (unsigned long)m->start, (unsigned long)m->end);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		/* Still the mapping listed: another file there is no answer. */
		if (!fstat(fd, st) && st->st_ino == o->ino)
			return fd;
		close(fd);
		left_out(o, "unmapped while being read");
		return -1;
	}
	denied = errno;
	if (denied == ENOENT) {
		left_out(o, "unmapped while being read");
		return -1;
	}
	if (denied != EPERM && denied != EACCES) {
		left_out(o, "%s: %s", path, strerror(denied));
		return -1;
	}
	fd = open_name(o->name);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT && deleted)
			left_out(o, "deleted after it was mapped (reading a deleted file takes /proc/<pid>/map_files: CAP_SYS_ADMIN)");
		else if (err == ELOOP)
			left_out(o, "its name leads through a symbolic link, not followed (the mapped file itself takes /proc/<pid>/map_files: CAP_SYS_ADMIN)");
		else
			left_out(o, "%s", strerror(err));
		return -1;
	}
	if (fstat(fd, st) || st->st_ino != o->ino) {
		left_out(o, "%s after it was mapped: the name leads to another file now (device %x:%x inode %llu, the mapping's %x:%x inode %llu; the mapped file itself takes /proc/<pid>/map_files: CAP_SYS_ADMIN)",
			 deleted ? "deleted" : "replaced",
			 major(st->st_dev), minor(st->st_dev),
			 (unsigned long long)st->st_ino, o->major, o->minor,
			 (unsigned long long)o->ino);
		close(fd);
		return -1;
	}
	*unsure = major(st->st_dev) != o->major || minor(st->st_dev) != o->minor;
	return fd;
}

/*
 * The start of @o's lowest mapping, as the process has it and as the file
 * opened has it, agree: the ELF header and program headers, which nothing
 * writes (a site could lie further on in a program's only segment).
 */
static bool same_start(const struct obj *o)
{
	const struct map *m = &maps[o->low];
	unsigned char a[1024], b[1024];
	size_t len = sizeof(a);

	if (m->end - m->start < len)
		len = m->end - m->start;
	return pread(o->fd, a, len, (off_t)m->offset) == (ssize_t)len &&
	       read_mem(m->start, b, len) && !memcmp(a, b, len);
}

/*
 * Open @o's file for reading: the O_PATH descriptor of open_mapped(),
 * reopened through /proc/self/fd once it is known to be a regular file
 * (the same inode: no name is looked up again).  A mapped device or the
 * like holds no object: skipped without a word.
 */
static void obj_open(struct obj *o)
{
	struct statfs sfs;
	struct stat st, st2;
	bool unsure = false;
	char path[64];
	int pfd;

	o->state = OBJ_SKIPPED;
	pfd = open_mapped(o, &st, &unsure);
	if (pfd < 0)
		return;
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		return;
	}
	/* Its server could stall every read: only a process's own user's. */
	if (!fstatfs(pfd, &sfs) && sfs.f_type == FUSE_MAGIC &&
	    pid_uid != geteuid()) {
		left_out(o, "on a FUSE file system of another user, whose server could stall the read");
		close(pfd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	o->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (o->fd < 0 || fstat(o->fd, &st2) || st2.st_ino != st.st_ino ||
	    st2.st_dev != st.st_dev) {
		left_out(o, "cannot open it: %s", o->fd < 0 ? strerror(errno)
							   : "changed while opened");
		return;
	}
	if (unsure && !same_start(o)) {
		left_out(o, "replaced after it was mapped: the name leads to a file of the same inode on device %x:%x, not %x:%x, whose first bytes are not those mapped (the mapped file itself takes /proc/<pid>/map_files: CAP_SYS_ADMIN)",
			 major(st.st_dev), minor(st.st_dev), o->major, o->minor);
		return;
	}
	o->state = OBJ_READ;
}

/* The pread() source of the ELF reader: all @len bytes or an error. */
static int fd_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	int fd = *(int *)ctx;
	ssize_t r;

	while (len) {
		r = pread(fd, buf, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		buf = (char *)buf + r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Read @o's ELF headers and find its bias; state says how it went. */
static void obj_read_elf(struct obj *o)
{
	struct elfr_source src = { fd_read, &o->fd, 0 };
	const struct map *low = &maps[o->low];
	const struct elfr_seg *first;
	struct stat st;
	int err;

	if (fstat(o->fd, &st) || st.st_size < 0) {
		left_out(o, "%s", strerror(errno));
		return;
	}
	src.size = (uint64_t)st.st_size;
	err = elfr_open(&o->elf, &src);
	if (err == ELFR_NOT_ELF) {
		o->state = OBJ_SKIPPED;		/* a data file: no keys there */
		return;
	}
	if (err) {
		left_out(o, "%s", elfr_strerror(err));
		return;
	}
#ifdef ELF_MACHINE
	if (o->elf.class != ELF_CLASS || o->elf.machine != ELF_MACHINE) {
		left_out(o, "an ELF file of another machine or class than this tool's");
		return;
	}
#endif
	first = elfr_first_load(&o->elf);
	if (!first) {
		left_out(o, "no loadable segment");
		return;
	}
	/*
	 * The lowest mapping maps file offset low->offset at low->start; the
	 * first PT_LOAD maps p_offset at p_vaddr plus the bias.  Wrapping
	 * arithmetic: a forged file only moves where the process is read.
	 */
	o->bias = (uintptr_t)(low->start - low->offset -
			      (first->vaddr - first->offset));
}

/* @o's headers read (once), or false: it was skipped or left out. */
static bool obj_ready(struct obj *o)
{
	if (o->state == OBJ_UNTRIED) {
		obj_open(o);
		if (o->state == OBJ_READ)
			obj_read_elf(o);
	}
	return o->state == OBJ_READ;
}

/* [@addr, @addr + @size) is mapped from @o's file, end to end. */
static bool obj_covers(size_t o, uintptr_t addr, uintptr_t size)
{
	uintptr_t end, at = addr;
	size_t i;

	if (__builtin_add_overflow(addr, size, &end))
		return false;
	while (at < end) {
		for (i = 0; i < nr_maps; i++)
			if (maps[i].obj == o && at >= maps[i].start &&
			    at < maps[i].end)
				break;
		if (i == nr_maps)
			return false;
		at = maps[i].end;
	}
	return true;
}

/* ---- the keys ---- */

/* @o's table, as the process holds it: appended to *@recs. */
static int read_table(size_t oi, struct rec **recs, size_t *n)
{
	struct obj *o = &objs[oi];
	const struct elfr_sec *sec = elfr_section(&o->elf, "__jump_table");
	struct jump_entry *tab;
	uintptr_t addr, size;
	size_t i;
	struct rec *v;

	if (!sec || !sec->size)
		return 0;
	addr = (uintptr_t)sec->addr + o->bias;
	if (sec->size > MAX_TABLE || sec->size % sizeof(*tab) ||
	    !obj_covers(oi, addr, (uintptr_t)sec->size)) {
		left_out(o, "its __jump_table (%#llx bytes at %#lx) is not a table of whole entries inside the object's mappings",
			 (unsigned long long)sec->size, (unsigned long)addr);
		return 0;
	}
	size = (uintptr_t)sec->size;
	tab = malloc(size);
	v = realloc(*recs, (*n + size / sizeof(*tab)) * sizeof(*v));
	if (v)
		*recs = v;
	if (!tab || !v) {
		free(tab);
		return -ENOMEM;
	}
	if (!read_mem(addr, tab, size)) {
		left_out(o, "cannot read its __jump_table at %#lx: %s",
			 (unsigned long)addr, strerror(errno));
		free(tab);
		return 0;
	}
	for (i = 0; i < size / sizeof(*tab); i++) {
		uintptr_t at = addr + i * sizeof(*tab);

		if (!(tab[i].key & ~(ENTRY_BRANCH | ENTRY_DEAD)))
			continue;
		v[(*n)++] = (struct rec){
			.key = tab[i].key & ~(ENTRY_BRANCH | ENTRY_DEAD),
			.code = at + (uintptr_t)(intptr_t)tab[i].code,
			.target = at + sizeof(int32_t) +
				  (uintptr_t)(intptr_t)tab[i].target,
			.likely = tab[i].key & ENTRY_BRANCH,
			.dead = tab[i].key & ENTRY_DEAD,
		};
	}
	free(tab);
	return 0;
}

/*
 * The object that holds @addr: the file mapped there or, for a .bss beyond
 * the file's last page (an anonymous mapping), the one whose segments say
 * so.  NULL if none.
 */
static struct obj *obj_at(uintptr_t addr)
{
	size_t i;

	for (i = 0; i < nr_maps; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &objs[maps[i].obj];
	for (i = 0; i < nr_objs; i++)
		if (objs[i].exec && obj_ready(&objs[i]) &&
		    elfr_holds(&objs[i].elf, addr - objs[i].bias))
			return &objs[i];
	return NULL;
}

/* Name, object and the flags the files tell, of the key at @key. */
static void describe(uintptr_t key, struct statickeys_key_info *info,
		     char *name, size_t len)
{
	struct obj *o = obj_at(key);
	const struct elfr_sec *ro;
	uint64_t size = 0, at;
	int err = ELFR_NOT_FOUND;

	info->key = (const void *)key;
	info->object = o ? o->name : "?";
	info->name_table = "none";
	if (!o || !obj_ready(o))
		return;
	at = key - o->bias;
	err = elfr_symbol(&o->elf, SHT_SYMTAB, at, name, len, &size);
	if (!err)
		info->name_table = "symtab";
	if (err == ELFR_NOT_FOUND) {
		err = elfr_symbol(&o->elf, SHT_DYNSYM, at, name, len, &size);
		if (!err)
			info->name_table = "dynsym";
	}
	if (!err) {
		info->name = name;
		/* Only a symbol knows the struct around the key. */
		if (size == sizeof(struct static_key_deferred))
			info->flags |= STATICKEYS_KEY_DEFERRED;
	} else if (err != ELFR_NOT_FOUND) {
		fprintf(stderr, "%s: %s: key %#lx left unnamed: %s\n", prog,
			o->name, (unsigned long)key, elfr_strerror(err));
		incomplete = true;
	}
	ro = elfr_section(&o->elf, "__sk_ro_after_init");
	if (ro && at >= ro->addr && at - ro->addr < ro->size)
		info->flags |= STATICKEYS_KEY_RO;
}

static void print_key(const struct rec *r, size_t n,
		      struct statickeys_site_info *sites)
{
	struct statickeys_key_info info = { 0 };
	struct static_key key;
	uint8_t bytes[JUMP_LABEL_NOP_SIZE];
	char name[512];
	size_t i;

	if (!read_mem(r[0].key, &key, sizeof(key))) {
		fprintf(stderr, "%s: key %#lx: cannot read it: %s\n", prog,
			(unsigned long)r[0].key, strerror(errno));
		incomplete = true;
		return;
	}
	describe(r[0].key, &info, name, sizeof(name));
	if (key.type & JUMP_TYPE_TRUE)
		info.flags |= STATICKEYS_KEY_TRUE;
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
static void refuse(const char *arg, int err)
{
	if (err == ENOENT || err == ESRCH) {
		fprintf(stderr, "%s: no process %s\n", prog, arg);
		return;
	}
	fprintf(stderr, "%s: may not read process %s: %s (its memory needs the permission ptrace does: the same user and a dumpable process, or CAP_SYS_PTRACE; see also /proc/sys/kernel/yama/ptrace_scope)\n",
		prog, arg, strerror(err));
}

static void free_all(struct rec *recs, struct statickeys_site_info *sites)
{
	size_t i;

	for (i = 0; i < nr_objs; i++) {
		elfr_close(&objs[i].elf);
		if (objs[i].fd >= 0)
			close(objs[i].fd);
		free(objs[i].name);
	}
	free(objs);
	free(maps);
	free(sites);
	free(recs);
}

int main(int argc, char **argv)
{
	struct statickeys_site_info *sites;
	struct rec *recs = NULL;
	size_t n = 0, i, j;
	char path[64], *end;
	struct stat st;
	int err = 0;

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
	if (mem_fd < 0 || fstat(mem_fd, &st)) {
		refuse(argv[1], errno);
		return 1;
	}
	pid_uid = st.st_uid;
	err = maps_read();
	if (err) {
		refuse(argv[1], -err);
		return 1;
	}
	/* Sites are code: the objects mapped executable hold the tables. */
	for (i = 0; i < nr_objs && !err; i++)
		if (objs[i].exec && obj_ready(&objs[i]))
			err = read_table(i, &recs, &n);
	sites = malloc((n ? n : 1) * sizeof(*sites));
	if (err || !sites) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (n)
		qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && recs[j].key == recs[i].key; j++)
			;
		print_key(recs + i, j - i, sites);
	}
	if (!n)
		fprintf(stderr, "%s: process %ld has no static-key site%s (none of its objects%s has a __jump_table: built with CONFIG_JUMP_LABEL=n, or no static keys)\n",
			prog, pid, nr_left_out ? " in the objects read" : "",
			nr_left_out ? " read" : "");
	if (nr_left_out || incomplete)
		fprintf(stderr, "%s: the listing of process %ld is incomplete: %u object%s not read, named above\n",
			prog, pid, nr_left_out, nr_left_out == 1 ? "" : "s");
	free_all(recs, sites);
	if (fflush(stdout))
		return 1;
	return nr_left_out || incomplete ? 3 : 0;
}
