/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * One input through every call of lib/elf.c, with the promises of
 * lib/elf.h checked: shared by the libFuzzer target fuzz_elf.c and the
 * plain replay test test_elf_reader.c.
 */
#ifndef _SELFTESTS_TOOLS_ELF_READER_ONE_H
#define _SELFTESTS_TOOLS_ELF_READER_ONE_H

#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/elf.h"

struct mem_source {
	const unsigned char *data;
	size_t size;
};

static int mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem_source *m = ctx;

	/* The reader promised to check the range: a broken promise aborts. */
	if (off > m->size || len > m->size - off) {
		fprintf(stderr, "elf-reader: read of %zu at %llu past %zu\n",
			len, (unsigned long long)off, m->size);
		__builtin_trap();
	}
	memcpy(buf, m->data + off, len);
	return 0;
}

/* The reader's verdict on @data: an elfr_error; checks broken: *@bad. */
static int elf_reader_one(const unsigned char *data, size_t size, int *bad)
{
	static const char *const names[] = {
		"__jump_table", "__sk_ro_after_init", ".symtab", "", "nothing",
	};
	struct mem_source m = { data, size };
	struct elfr_source src = { mem_read, &m, size };
	const struct elfr_sec *s;
	const struct elfr_seg *p;
	struct elfr e;
	unsigned char buf[64];
	char name[16];
	uint64_t sz;
	size_t i;
	int err;

	*bad = 0;
	err = elfr_open(&e, &src);
	if (err)
		return err;
	for (i = 0; i < e.nr_secs; i++) {
		s = &e.secs[i];
		if (s->type != SHT_NOBITS && s->type != SHT_NULL &&
		    (s->offset > size || s->size > size - s->offset))
			(*bad)++;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		s = elfr_section(&e, names[i]);
		if (s && (s < e.secs || s >= e.secs + e.nr_secs))
			(*bad)++;
		if (s && s->type != SHT_NOBITS && s->size <= sizeof(buf) &&
		    elfr_read(&e, buf, s->size, s->offset))
			(*bad)++;
	}
	p = elfr_first_load(&e);
	if (p) {
		elfr_holds(&e, p->vaddr);
		elfr_holds(&e, p->vaddr + p->memsz);
		if (p->filesz > p->memsz)
			(*bad)++;
	}
	for (i = 0; i < e.nr_secs && i < 8; i++) {
		sz = 0;
		if (!elfr_symbol(&e, SHT_SYMTAB, e.secs[i].addr, name,
				 sizeof(name), &sz) &&
		    strlen(name) >= sizeof(name))
			(*bad)++;
		elfr_symbol(&e, SHT_DYNSYM, e.secs[i].addr, name, 1, &sz);
	}
	if (!elfr_read(&e, buf, 1, size))	/* one past the end */
		(*bad)++;
	elfr_close(&e);
	return ELFR_OK;
}

#endif
