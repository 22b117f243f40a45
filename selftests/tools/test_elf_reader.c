// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * lib/elf.c against the hostile files of selftests/tools/
 * elf-corpus/ (written by make_elf_corpus.py): each file gives the verdict
 * expected of it, and every file, the fuzzer's finds included, goes through
 * every call with the reader's promises checked, in a child (a crash is a
 * failed check).  make fuzz-elf fuzzes the same calls.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tap.h"
#include "elf_reader_one.h"

/* What the named corpus files must give. */
static const struct { const char *file; int err; } expect[] = {
	{ "good64", ELFR_OK }, { "good32", ELFR_OK }, { "big-endian64", ELFR_OK },
	{ "phoff-wraps", ELFR_PHDRS }, { "shoff-wraps", ELFR_SHDRS },
	{ "phnum-times-entsize-overflows", ELFR_PHDRS },
	{ "shoff-past-end", ELFR_SHDRS }, { "shentsize-wrong", ELFR_SHDRS },
	{ "shstrndx-out-of-range", ELFR_SHSTRTAB },
	{ "shstrndx-not-strtab", ELFR_SHSTRTAB },
	{ "shnum-extended-none", ELFR_OK },
	{ "section-offset-wraps", ELFR_SECTION },
	{ "section-size-huge", ELFR_SECTION },
	{ "jump-table-odd-size", ELFR_OK },
	{ "segment-wraps", ELFR_SEGMENT },
	{ "segment-filesz-past-end", ELFR_SEGMENT },
	{ "segment-filesz-over-memsz", ELFR_SEGMENT },
	{ "symtab-link-out-of-range", ELFR_OK },
	{ "strtab-name-left-open", ELFR_OK },
	{ "no-section-headers", ELFR_OK }, { "no-program-headers", ELFR_OK },
	{ "class-none", ELFR_CLASS }, { "data-none", ELFR_DATA },
	{ "elf32-shoff-wraps", ELFR_SHDRS }, { "elf32-phoff-wraps", ELFR_PHDRS },
	{ "big-endian64-shoff-wraps", ELFR_SHDRS },
	{ "truncated-header", ELFR_TRUNCATED },
};
#define NR_EXPECT ((int)(sizeof(expect) / sizeof(expect[0])))

static unsigned char *slurp(const char *path, size_t *size)
{
	unsigned char *p;
	struct stat st;
	FILE *f = fopen(path, "rb");

	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		return NULL;
	}
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	*size = p ? fread(p, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	return p;
}

struct one {
	unsigned char *data;
	size_t size;
};

/* Child: the verdict as exit status, 100 + n when n promises broke. */
static int run_one(void *arg)
{
	struct one *o = arg;
	int bad, err = elf_reader_one(o->data, o->size, &bad);

	return bad ? 100 + bad : err;
}

/* The good file's content, read back through the calls. */
static int good_content(void *arg)
{
	struct one *o = arg;
	struct mem_source m = { o->data, o->size };
	struct elfr_source src = { mem_read, &m, o->size };
	const struct elfr_sec *jt;
	struct elfr e;
	char name[8];
	uint64_t size = 0;
	int ok;

	if (elfr_open(&e, &src))
		return 1;
	jt = elfr_section(&e, "__jump_table");
	ok = jt && jt->addr == 0x1000 && jt->size == 32 &&
	     !elfr_symbol(&e, SHT_SYMTAB, 0x1000, name, sizeof(name), &size) &&
	     !strcmp(name, "key_a") && size == 16 &&
	     !elfr_symbol(&e, SHT_SYMTAB, 0x1010, name, 3, &size) &&
	     !strcmp(name, "ke") &&	/* cut to the buffer */
	     elfr_symbol(&e, SHT_DYNSYM, 0x1000, name, sizeof(name), &size) ==
		ELFR_NOT_FOUND &&
	     elfr_holds(&e, 0) && !elfr_holds(&e, 0x100000);
	elfr_close(&e);
	return !ok;
}

int main(void)
{
	char path[4096];
	struct dirent *d;
	struct one o;
	int i, rc, n = 0;
	DIR *dir = opendir(ELF_CORPUS);

	if (!dir) {
		tap_plan(1);
		tap_ok(0, "the corpus %s", ELF_CORPUS);
		return tap_exit();
	}
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	rewinddir(dir);
	tap_plan(NR_EXPECT + 1 + n);
	for (i = 0; i < NR_EXPECT; i++) {
		snprintf(path, sizeof(path), "%s/%s", ELF_CORPUS, expect[i].file);
		o.data = slurp(path, &o.size);
		rc = o.data ? tap_fork(run_one, &o) : -1;
		tap_ok(rc == expect[i].err, "%s: %s (got %d: %s)", expect[i].file,
		       elfr_strerror(expect[i].err), rc,
		       rc >= 0 && rc < 100 ? elfr_strerror(rc) : "crashed or broke a promise");
		if (!strcmp(expect[i].file, "good64") && o.data)
			tap_ok(tap_fork(good_content, &o) == 0,
			       "good64: its table, symbols (cut to the buffer) and segments read back");
		free(o.data);
	}
	/* Every file, whatever it is: no crash, no broken promise. */
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", ELF_CORPUS, d->d_name);
		o.data = slurp(path, &o.size);
		rc = o.data ? tap_fork(run_one, &o) : -1;
		tap_ok(rc >= 0 && rc < 100, "%s: no crash, no promise broken (%d)",
		       d->d_name, rc);
		free(o.data);
	}
	closedir(dir);
	return tap_exit();
}
