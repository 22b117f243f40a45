// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The table of registered objects: one entry per executable or shared
 * object, as the kernel keeps its modules', with the segments the loader
 * gives it.  The list is guarded by jump_label_mutex, which its callers
 * hold (kernel/object.c for changes, the key core and introspection for
 * walks).
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>

#include "registry.h"

/* Guarded by jump_label_mutex; the newest first. */
static struct sk_object *objects;

struct find_segs {
	uintptr_t addr;
	struct sk_object *obj;
};

static int find_segs_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_segs *fs = data;
	struct sk_object *o = fs->obj;
	bool mine = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && fs->addr >= s &&
		    fs->addr < s + ph->p_memsz)
			mine = true;
	}
	if (!mine)
		return 0;
	snprintf(o->name, sizeof(o->name), "%s",
		 info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name
						       : "(main program)");
	/* Every loaded segment: code for patching, data for deferred work. */
	for (i = 0; i < info->dlpi_phnum && o->nsegs < MAX_SEGMENTS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct sk_segment *sg;

		if (ph->p_type != PT_LOAD)
			continue;
		sg = &o->segs[o->nsegs++];
		sg->start = info->dlpi_addr + ph->p_vaddr;
		sg->end = sg->start + ph->p_memsz;
		sg->prot = (ph->p_flags & PF_X ? PROT_EXEC : 0) |
			   (ph->p_flags & PF_R ? PROT_READ : 0) |
			   (ph->p_flags & PF_W ? PROT_WRITE : 0);
	}
	return 1;
}

int sk_text_segment(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	struct sk_object *o;
	int i;

	for (o = objects; o; o = o->next)
		for (i = 0; i < o->nsegs; i++)
			if ((o->segs[i].prot & PROT_EXEC) &&
			    addr >= o->segs[i].start && addr < o->segs[i].end) {
				*start = o->segs[i].start;
				*end = o->segs[i].end;
				return o->segs[i].prot;
			}
	return -1;
}
SK_WRITER_HOOK(text_segment, sk_text_segment);

bool sk_in_text(const struct sk_object *o, uintptr_t addr, size_t len)
{
	int i;

	for (i = 0; i < o->nsegs; i++)
		if ((o->segs[i].prot & PROT_EXEC) &&
		    addr >= o->segs[i].start && addr + len <= o->segs[i].end)
			return true;
	return false;
}

void sk_registry_fill(struct sk_object *o, uintptr_t addr)
{
	struct find_segs fs = { addr, o };

	dl_iterate_phdr(find_segs_cb, &fs);
}

struct sk_object *sk_registry_find(const void *handle)
{
	struct sk_object *o;

	for (o = objects; o; o = o->next)
		if (o->handle == handle)
			return o;
	return NULL;
}

struct sk_object *sk_registry_next(const struct sk_object *o)
{
	return o ? o->next : objects;
}

void sk_registry_link(struct sk_object *o)
{
	o->next = objects;
	objects = o;
}

void sk_registry_unlink(struct sk_object *o)
{
	struct sk_object **pp;

	for (pp = &objects; *pp; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
			return;
		}
	}
}

/* ---- the registry as the key core and introspection see it ---- */

bool sk_next_table(struct sk_object **o, struct jump_entry **start,
		   struct jump_entry **stop)
{
	*o = *o ? (*o)->next : objects;
	if (!*o)
		return false;
	*start = (*o)->start;
	*stop = (*o)->stop;
	return true;
}

bool sk_next_table_for(const struct static_key *key, struct sk_object **o,
		       struct jump_entry **start, struct jump_entry **stop)
{
	uintptr_t k = (uintptr_t)key;

	while (sk_next_table(o, start, stop))
		if (*start != *stop && k >= (uintptr_t)jump_entry_key(*start) &&
		    k <= (uintptr_t)jump_entry_key(*stop - 1))
			return true;
	return false;
}

bool sk_object_view(unsigned int i, struct sk_object_view *v)
{
	struct sk_object *o;

	for (o = objects; o && i; o = o->next)
		i--;
	if (!o)
		return false;
	v->name = o->name;
	v->start = o->start;
	v->stop = o->stop;
	return true;
}
