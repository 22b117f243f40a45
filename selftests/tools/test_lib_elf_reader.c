// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The library's own ELF reader (kernel/symbols.c) against the hostile
 * corpus of statickeys-keys' reader: since misuse warnings name keys from
 * the symbol tables of the mapped file, the library reads files in ordinary
 * runs, so a forged or damaged file must give no name, never a crash.
 * Each file is read in a forked child (a crash is a failed check).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"
#include "../../kernel/symbols.h"

static const char *path;

/* Open @path as if mapped at 0x10000 and ask for a name and a section. */
static int read_one(void *arg)
{
	struct sk_map map = { 0x10000, 0x30000, 0, 0, "" };
	struct stat st;
	const char *table;
	uintptr_t addr;
	size_t size;
	struct sk_elf f;
	uintptr_t a;

	(void)arg;
	snprintf(map.path, sizeof(map.path), "%s", path);
	/* Opened by name: the inode the maps line would give. */
	if (stat(path, &st))
		return 2;
	map.ino = st.st_ino;
	if (sk_elf_open(&f, path, &map, 1))
		return 0;
	for (a = 0x10000; a < 0x10400; a += 8)
		(void)sk_elf_symbol(&f, a, &table, &size);
	(void)sk_elf_section(&f, "__jump_table", &addr, &size);
	sk_elf_close(&f);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(void)
{
	struct dirent **ents;
	char buf[4096];
	int n, i, files = 0, st;

	n = scandir(ELF_CORPUS, &ents, NULL, by_name);
	if (n < 0) {
		tap_plan(1);
		tap_ok(0, "the corpus %s can be listed", ELF_CORPUS);
		return tap_exit();
	}
	for (i = 0; i < n; i++)
		files += ents[i]->d_name[0] != '.';
	tap_plan(files);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "%s/%s", ELF_CORPUS, ents[i]->d_name);
		path = buf;
		st = tap_fork(read_one, NULL);
		tap_ok(st == 0, "%s: read without a crash (status %d)",
		       ents[i]->d_name, st);
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return tap_exit();
}
