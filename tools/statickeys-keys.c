// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * statickeys-keys [-a] [-k GLOB] [--json] PID...: the keys of running
 * processes, read from outside
 * and never changed (--set, --dyndbg and --sites ask the process itself,
 * through its control channel: keys_control.c): its mappings, each mapped file's __jump_table (found
 * through the file, read from the process, where the library has sorted
 * it), the keys and the site bytes from /proc/<pid>/mem.  The table is the
 * one statickeys_print_keys() prints (kernel/symbols.c writes both).
 *
 * The process may belong to someone else and be hostile: the files are the
 * ones it maps, opened through /proc/<pid>/map_files (never by a name it
 * chose), the program through /proc/<pid>/exe, else by name with no
 * symbolic link followed and only if the file is still the one mapped; never a read that can block; every ELF offset
 * checked (lib/elf.c); each object left out is named, with the reason.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
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
/* An architecture without a patcher (ARCH=generic) has no sites to read. */
#if defined(__has_include) && __has_include(<asm/jump_label.h>)
#include <asm/jump_label.h>
#else
#define JUMP_LABEL_NOP_SIZE	4
#endif
#include <statickeys/statickeys.h>
#include "../kernel/symbols.h"
#include "../lib/elf.h"
#include "keys_control.h"

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

/* What the options ask for; the same for every process listed. */
static bool opt_all;			/* the library's internal keys too */
static bool opt_json;
static char **opt_keys;			/* -k GLOB: names to list */
static size_t nr_opt_keys;

/* Under --json: the reasons of the objects left out, said at the end. */
static char **left_out_why;
static size_t nr_left_out_why;
static bool first_key;

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
#ifdef ARCH_JUMP_LABEL_NOP5	/* x86 (not ARCH=generic on it) */
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
	(void)now;
	(void)off;
	return false;	/* no patcher: no sites */
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
	char *why = NULL, **v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	fprintf(stderr, "%s: ", prog);
	sk_fputs_escaped(o->name, stderr);
	fprintf(stderr, ": not read: %s\n",
		why ? why : "(out of memory for the reason)");
	o->state = OBJ_LEFT_OUT;
	nr_left_out++;
	v = opt_json && why ? realloc(left_out_why, (nr_left_out_why + 2) *
				      sizeof(*v)) : NULL;
	if (!v) {
		free(why);
		return;
	}
	left_out_why = v;
	v[nr_left_out_why++] = strdup(o->name);
	v[nr_left_out_why++] = why;
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

/* @fd if it leads to the inode @o maps, else closed: -1. */
static int if_mapped(int fd, const struct obj *o, struct stat *st)
{
	if (fd >= 0 && !fstat(fd, st) && st->st_ino == o->ino)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* stat() of @o's file gave another device than the maps line (btrfs). */
static bool other_device(const struct obj *o, const struct stat *st)
{
	return major(st->st_dev) != o->major || minor(st->st_dev) != o->minor;
}

/*
 * The kernel writes a newline of a path as \012 in /proc/<pid>/maps (it
 * escapes nothing else): @o's file by its name with the newlines back, if
 * that leads to the mapping's inode; -1 otherwise (and for a name without
 * \012), when the caller tries the name as written, since a path may
 * hold those four characters itself.
 */
static int open_newline_name(const struct obj *o, struct stat *st)
{
	char *name, *w;
	const char *r;
	int fd;

	if (!strstr(o->name, "\\012") || !(name = strdup(o->name)))
		return -1;
	for (r = o->name, w = name; *r; w++)
		if (!strncmp(r, "\\012", 4)) {
			*w = '\n';
			r += 4;
		} else {
			*w = *r++;
		}
	*w = '\0';
	fd = if_mapped(open_name(name), o, st);
	free(name);
	return fd;
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
	/*
	 * The program itself through /proc/<pid>/exe (a peer who may read the
	 * process may follow it): no directory on its name is searched.
	 */
	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	fd = if_mapped(open(path, O_PATH | O_CLOEXEC), o, st);
	if (fd < 0)
		fd = open_newline_name(o, st);
	if (fd >= 0) {
		*unsure = other_device(o, st);
		return fd;
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
	*unsure = other_device(o, st);
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
		fprintf(stderr, "%s: ", prog);
		sk_fputs_escaped(o->name, stderr);
		fprintf(stderr, ": key %#lx left unnamed: %s\n",
			(unsigned long)key, elfr_strerror(err));
		incomplete = true;
	}
	ro = elfr_section(&o->elf, "__sk_ro_after_init");
	if (ro && at >= ro->addr && at - ro->addr < ro->size)
		info->flags |= STATICKEYS_KEY_RO;
}

/* ---- what is listed, and how ---- */

/*
 * The library's own keys, not the program's: a key of libstatickeys.so
 * that it does not export (its .dynsym has no symbol there), or one of the
 * library's internal names, found where a program linked the static
 * library.  Only the probe key of kernel/text_poke.c is internal today.
 */
static const char *const internal_names[] = { "sk_probe_key" };

static bool is_internal(uintptr_t key, const char *name)
{
	struct obj *o = obj_at(key);
	const char *base;
	char sym[8];
	uint64_t size;
	size_t i;

	for (i = 0; name && i < sizeof(internal_names) / sizeof(*internal_names); i++)
		if (!strcmp(name, internal_names[i]))
			return true;
	if (!o || !obj_ready(o))
		return false;
	base = strrchr(o->name, '/');
	base = base ? base + 1 : o->name;
	if (strncmp(base, "libstatickeys.so", strlen("libstatickeys.so")))
		return false;
	return elfr_symbol(&o->elf, SHT_DYNSYM, key - o->bias, sym, sizeof(sym),
			   &size) == ELFR_NOT_FOUND;
}

/* -k: the key's name matches one of the patterns (a nameless key, none). */
static bool name_wanted(const char *name)
{
	size_t i;

	if (!nr_opt_keys)
		return true;
	for (i = 0; name && i < nr_opt_keys; i++)
		if (!fnmatch(opt_keys[i], name, 0))
			return true;
	return false;
}

/*
 * A JSON string: valid UTF-8 passes, control characters, '"' and '\' are
 * escaped, and each byte that is not part of valid UTF-8 (a file name may
 * hold any byte) becomes U+FFFD.  NULL is null.
 */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, i;
	uint32_t c;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	c = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return n;
}

static void json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	while (*p) {
		if (*p == '"' || *p == '\\') {
			printf("\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			printf("\\u%04x", *p++);
		} else if (*p < 0x80) {
			putchar(*p++);
		} else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, stdout);
			p += n;
		} else {
			fputs("\\ufffd", stdout);
			p++;
		}
	}
	putchar('"');
}

static void json_key(const struct statickeys_key_info *k, bool internal)
{
	size_t i;

	printf("%s\n    {\"address\": \"%#lx\", \"name\": ", first_key ? "" : ",",
	       (unsigned long)(uintptr_t)k->key);
	first_key = false;
	json_str(k->name);
	printf(", \"name_source\": \"%s\", \"object\": ", k->name_table);
	json_str(k->object);
	printf(", \"default\": %s, \"read_only\": %s, \"deferred\": %s, "
	       "\"internal\": %s, \"count\": %d, \"enabled\": %s, \"sites\": [",
	       k->flags & STATICKEYS_KEY_TRUE ? "true" : "false",
	       k->flags & STATICKEYS_KEY_RO ? "true" : "false",
	       k->flags & STATICKEYS_KEY_DEFERRED ? "true" : "false",
	       internal ? "true" : "false", k->count,
	       k->enabled ? "true" : "false");
	for (i = 0; i < k->nr_sites; i++)
		printf("%s\n      {\"address\": \"%#lx\", \"target\": \"%#lx\", "
		       "\"likely\": %s, \"state\": \"%s\"}", i ? "," : "",
		       (unsigned long)(uintptr_t)k->sites[i].addr,
		       (unsigned long)(uintptr_t)k->sites[i].target,
		       k->sites[i].likely ? "true" : "false",
		       sk_site_state_name(k->sites[i].state));
	printf("%s]}", k->nr_sites ? "\n    " : "");
}

static void print_key(const struct rec *r, size_t n,
		      struct statickeys_site_info *sites)
{
	struct statickeys_key_info info = { 0 };
	struct static_key key;
	uint8_t bytes[JUMP_LABEL_NOP_SIZE];
	bool internal;
	char name[512];
	size_t i;

	describe(r[0].key, &info, name, sizeof(name));
	internal = is_internal(r[0].key, info.name);
	if ((internal && !opt_all) || !name_wanted(info.name))
		return;
	if (!read_mem(r[0].key, &key, sizeof(key))) {
		fprintf(stderr, "%s: key %#lx: cannot read it: %s\n", prog,
			(unsigned long)r[0].key, strerror(errno));
		incomplete = true;
		return;
	}
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
	if (opt_json)
		json_key(&info, internal);
	else
		sk_key_print(stdout, &info);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [-a] [-k GLOB]... [--json] PID...\n"
		"       %s PID --set NAME=on|off | --dyndbg QUERY | --sites...\n"
		"       %s -V | --version\n"
		"List the static keys of running processes, read-only: each key's name,\n"
		"object, type, count, branch direction and sites (statickeys-keys(1)).\n"
		"  -a, --all        the library's internal keys too\n"
		"  -k, --key GLOB   only keys whose name matches GLOB (fnmatch; repeatable)\n"
		"      --json       one JSON document (schema in statickeys-keys(1))\n"
		"  -V, --version    the version of statickeys this tool belongs to\n"
		"Through the control channel of a process that opened one (in order, repeatable):\n"
		"      --set NAME=on|off  switch the key NAME (a symbol, or 0x and its address)\n"
		"      --dyndbg QUERY     run a dynamic-debug query\n"
		"      --sites            list its dynamic-debug sites\n",
		prog, prog, prog);
}

/* Why the memory of @pid cannot be read, for a person: a static string. */
static const char *refusal(int err)
{
	if (err == ENOENT || err == ESRCH)
		return NULL;	/* "no process" */
	return strerror(err);
}

static void refuse(const char *arg, int err)
{
	const char *why = refusal(err);

	if (!why) {
		fprintf(stderr, "%s: no process %s\n", prog, arg);
		return;
	}
	fprintf(stderr, "%s: may not read process %s: %s (its memory needs the permission ptrace does: the same user and a dumpable process, or CAP_SYS_PTRACE; see also /proc/sys/kernel/yama/ptrace_scope)\n",
		prog, arg, why);
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
	for (i = 0; i < nr_left_out_why; i++)
		free(left_out_why[i]);
	free(left_out_why);
	free(objs);
	free(maps);
	free(sites);
	free(recs);
	objs = NULL;
	maps = NULL;
	left_out_why = NULL;
	nr_objs = nr_maps = nr_left_out_why = 0;
	nr_left_out = 0;
	incomplete = false;
	if (mem_fd >= 0)
		close(mem_fd);
	mem_fd = -1;
}

/* --json: the end of one process's entry. */
static void json_process_end(const char *status, const char *error)
{
	size_t i;

	printf("%s], \"status\": \"%s\", \"error\": ", first_key ? "" : "\n  ",
	       status);
	json_str(error);
	printf(", \"left_out\": [");
	for (i = 0; i + 1 < nr_left_out_why; i += 2) {
		printf("%s\n    {\"object\": ", i ? "," : "");
		json_str(left_out_why[i] ? left_out_why[i] : "?");
		printf(", \"reason\": ");
		json_str(left_out_why[i + 1]);
		printf("}");
	}
	printf("%s]}", nr_left_out_why ? "\n  " : "");
}

/*
 * List process @arg (already checked to be a PID): 0 listed whole, 1 not
 * readable, 3 listed without what stderr names, -1 out of memory.
 * @header: more than one process is listed.
 */
/*
 * The process has no memory any more: it exited (or is a zombie) while
 * being read.  /proc/<pid>/mem, held open, reads nothing once the
 * process's memory is gone, whatever process has the pid now.
 */
static bool process_gone(void)
{
	char c;

	return nr_maps && pread(mem_fd, &c, 1, (off_t)maps[0].start) == 0;
}

static int list_process(const char *arg, bool header, bool first)
{
	struct statickeys_site_info *sites;
	struct rec *recs = NULL;
	size_t n = 0, i, j;
	char path[64];
	struct stat st;
	int err = 0, ret;

	pid = strtol(arg, NULL, 10);
	if (opt_json) {
		printf("%s\n  {\"pid\": %ld, \"keys\": [", first ? "" : ",", pid);
		first_key = true;
	}
	/* The kernel checks ptrace access when /proc/<pid>/mem is opened. */
	snprintf(path, sizeof(path), "/proc/%ld/mem", pid);
	mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mem_fd < 0 || fstat(mem_fd, &st) || (err = maps_read())) {
		err = err ? -err : errno;
		refuse(arg, err);
		if (opt_json)
			json_process_end("refused", refusal(err) ? refusal(err)
								 : "no process");
		free_all(NULL, NULL);
		return 1;
	}
	pid_uid = st.st_uid;
	if (header && !opt_json)
		printf("process %ld\n", pid);
	/* Sites are code: the objects mapped executable hold the tables. */
	for (i = 0; i < nr_objs && !err; i++)
		if (objs[i].exec && obj_ready(&objs[i]))
			err = read_table(i, &recs, &n);
	sites = malloc((n ? n : 1) * sizeof(*sites));
	if (err || !sites) {
		free_all(recs, sites);
		return -1;
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
	if ((nr_left_out || incomplete) && process_gone()) {
		fprintf(stderr, "%s: process %ld exited while it was being read\n",
			prog, pid);
		if (opt_json)
			json_process_end("refused", "no process");
		free_all(recs, sites);
		return 1;
	}
	if (nr_left_out || incomplete)
		fprintf(stderr, "%s: the listing of process %ld is incomplete: %u object%s not read, named above\n",
			prog, pid, nr_left_out, nr_left_out == 1 ? "" : "s");
	ret = nr_left_out || incomplete ? 3 : 0;
	if (opt_json)
		json_process_end(ret ? "incomplete" : "complete", NULL);
	free_all(recs, sites);
	return ret;
}

static bool is_pid(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	return !errno && end != arg && !*end && v > 0 && v <= 0x7fffffff;
}

static const struct option long_opts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "key", required_argument, NULL, 'k' },
	{ "json", no_argument, NULL, 'j' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "set", required_argument, NULL, 'S' },
	{ "dyndbg", required_argument, NULL, 'D' },
	{ "sites", no_argument, NULL, 'L' },
	{ NULL, 0, NULL, 0 },
};

/* The control requests of the command line, in order. */
static char **requests;
static size_t nr_requests;

/* --set NAME=on|off as "set NAME on"; NULL when it is not that. */
static char *set_request(const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char *req;

	if (!eq || eq == arg || (strcmp(eq, "=on") && strcmp(eq, "=off")) ||
	    asprintf(&req, "set %.*s %s", (int)(eq - arg), arg, eq + 1) < 0)
		return NULL;
	return req;
}

static int add_request(int opt, const char *arg)
{
	char *req = NULL;

	if (opt == 'S' && !(req = set_request(arg))) {
		fprintf(stderr, "%s: --set %s: not NAME=on or NAME=off\n", prog, arg);
		return 2;
	}
	if (opt == 'D' && (strpbrk(arg, "\n\r") ||
			   asprintf(&req, "dyndbg %s", arg) < 0)) {
		fprintf(stderr, "%s: --dyndbg: one line (separate queries with ';')\n", prog);
		return 2;
	}
	if (opt == 'L' && !(req = strdup("sites")))
		return 1;
	requests = realloc(requests, (nr_requests + 1) * sizeof(*requests));
	if (!requests)
		return 1;
	requests[nr_requests++] = req;
	return 0;
}

/* Every request to the one process; 1 if any was refused. */
static int control_process(int argc, char **argv)
{
	int ret = 0;
	size_t i;

	if (argc - optind != 1 || opt_all || opt_json || nr_opt_keys) {
		fprintf(stderr, "%s: --set, --dyndbg and --sites take one PID and no -a, -k or --json\n",
			prog);
		return 2;
	}
	for (i = 0; i < nr_requests; i++) {
		ret |= control_request(atol(argv[optind]), requests[i],
				       strncmp(requests[i], "sites", 5), prog);
		free(requests[i]);
	}
	free(requests);
	return fflush(stdout) ? 1 : ret;
}

int main(int argc, char **argv)
{
	bool unreadable = false, partial = false;
	int c, i, r;

	mem_fd = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ak:Vh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt_all = true;
			break;
		case 'k':
			opt_keys = realloc(opt_keys, (nr_opt_keys + 1) * sizeof(*opt_keys));
			if (!opt_keys) {
				fprintf(stderr, "%s: out of memory\n", prog);
				return 1;
			}
			opt_keys[nr_opt_keys++] = optarg;
			break;
		case 'j':
			opt_json = true;
			break;
		case 'V':
			printf("%s (statickeys) %d.%d.%d\n", prog,
			       STATICKEYS_VERSION_MAJOR, STATICKEYS_VERSION_MINOR,
			       STATICKEYS_VERSION_PATCH);
			return fflush(stdout) ? 1 : 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'S':
		case 'D':
		case 'L':
			r = add_request(c, optarg);
			if (r)
				return r;
			break;
		default:
			if (optopt == 'k')
				fprintf(stderr, "%s: -k needs a pattern\n", prog);
			else if (optopt == 'S' || optopt == 'D')
				fprintf(stderr, "%s: %s needs an argument\n", prog,
					argv[optind - 1]);
			else if (optopt)
				fprintf(stderr, "%s: unknown option -%c\n", prog, optopt);
			else
				fprintf(stderr, "%s: unknown option %s\n", prog,
					argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	/* Every argument is checked before any process is read. */
	for (i = optind; i < argc; i++) {
		if (!is_pid(argv[i])) {
			fprintf(stderr, "%s: '%s' is not a process ID\n", prog, argv[i]);
			return 2;
		}
	}
	if (nr_requests)
		return control_process(argc, argv);
	if (opt_json)
		printf("{\"schema\": 1, \"tool\": \"%s\", \"version\": \"%d.%d.%d\", \"processes\": [",
		       prog, STATICKEYS_VERSION_MAJOR, STATICKEYS_VERSION_MINOR,
		       STATICKEYS_VERSION_PATCH);
	for (i = optind; i < argc; i++) {
		r = list_process(argv[i], argc - optind > 1, i == optind);
		if (r < 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
		unreadable |= r == 1;
		partial |= r == 3;
	}
	if (opt_json)
		printf("\n]}\n");
	free(opt_keys);
	if (fflush(stdout))
		return 1;
	return unreadable ? 1 : partial ? 3 : 0;
}
