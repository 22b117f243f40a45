// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Sealing: an object's read-only keys are write-protected once it is
 * registered, and every change of one (or of the copy the program uses of
 * one) is refused.  The key core asks sk_key_sealed_by() before a change.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "registry.h"

/*
 * A read-only key that the program reaches through a copy: an x86-64 PIE
 * gets a copy relocation for an extern variable of a shared object, and
 * then every object uses the copy, which lives in the program's ordinary
 * data.  Find such keys by name, say so, and refuse changes to the copy
 * too; only its write protection is lost.
 *
 * The names come from the object's dynamic symbol table, every data symbol
 * inside [start, stop): dladdr() would give one name per address, and the
 * section's own __start_ symbol shares the first key's.  Asks the loader:
 * called with no library lock held.
 */
struct copy_scan {
	const char *start, *stop;
	const char **names;	/* data symbols in the range, and where */
	const void **at;
	size_t n;
};

/* The number of symbols of a GNU hash table: one past the highest chained. */
static size_t gnu_hash_symbols(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
	const uint32_t *buckets = h + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t i, last = 0;

	for (i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

/*
 * Collected inside dl_iterate_phdr(), looked up after it: its callback runs
 * with the loader's write lock held, and dlsym() takes the loader's lock.
 */
static void note_symbol(struct copy_scan *cs, const char *name, const void *p)
{
	const char **n = realloc(cs->names, (cs->n + 1) * sizeof(*n));
	const void **a;

	if (!n)
		return;
	cs->names = n;
	a = realloc(cs->at, (cs->n + 1) * sizeof(*a));
	if (!a)
		return;
	cs->at = a;
	n[cs->n] = name;
	a[cs->n++] = p;
}

static int copies_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct copy_scan *cs = data;
	const ElfW(Sym) *sym = NULL;
	const uint32_t *hash = NULL, *gnu = NULL;
	const char *str = NULL;
	const ElfW(Dyn) *d = NULL;
	size_t i, nsyms;
	bool mine = false;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (uintptr_t)cs->start >= s &&
		    (uintptr_t)cs->start < s + ph->p_memsz)
			mine = true;
		if (ph->p_type == PT_DYNAMIC)
			d = (const ElfW(Dyn) *)s;
	}
	if (!mine)
		return 0;
	/* glibc relocates these in place; an unrelocated one is an offset. */
#define DYN_PTR(v)	((v) < info->dlpi_addr ? (v) + info->dlpi_addr : (v))
	for (; d && d->d_tag != DT_NULL; d++) {
		uintptr_t v = DYN_PTR(d->d_un.d_ptr);

		if (d->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)v;
		else if (d->d_tag == DT_STRTAB)
			str = (const char *)v;
		else if (d->d_tag == DT_HASH)
			hash = (const uint32_t *)v;
		else if (d->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)v;
	}
#undef DYN_PTR
	if (!sym || !str || (!hash && !gnu))
		return 1;
	nsyms = hash ? hash[1] : gnu_hash_symbols(gnu);
	for (i = 1; i < nsyms; i++) {
		const char *p = (const char *)(info->dlpi_addr + sym[i].st_value);

		if (ELF64_ST_TYPE(sym[i].st_info) == STT_OBJECT &&
		    sym[i].st_shndx != SHN_UNDEF && p >= cs->start &&
		    p < cs->stop)
			note_symbol(cs, str + sym[i].st_name, p);
	}
	return 1;
}

/* Returns the number of copies found, in *@copies. */
size_t sk_seal_find_copies(char *start, char *stop, const char *objname,
			   void ***copies)
{
	struct copy_scan cs = { start, stop, NULL, NULL, 0 };
	size_t i, n = 0;
	void **v;

	*copies = NULL;
	dl_iterate_phdr(copies_cb, &cs);
	for (i = 0; i < cs.n; i++) {
		void *used = dlsym(RTLD_DEFAULT, cs.names[i]);

		if (!used || used == cs.at[i])
			continue;
		v = realloc(*copies, (n + 1) * sizeof(*v));
		if (!v)
			continue;
		*copies = v;
		v[n++] = used;
		sk_warn("read-only key %s of %s is used through a copy at %p (a copy relocation): changes to it are refused, but it cannot be write-protected; declare it weak, or build the program with -fPIC",
			cs.names[i], objname, used);
	}
	free(cs.names);
	free(cs.at);
	return n;
}

/*
 * The addresses that any sealed object's read-only keys, or their copies,
 * ever took: every key change asks key_sealed(), and most keys lie
 * outside (none at all in a process without read-only keys).  Only ever
 * widened, so an object gone leaves it wider than needed, never wrong.
 * Locked.
 */
static uintptr_t sealed_lo = UINTPTR_MAX, sealed_hi;

static void sealed_widen(uintptr_t lo, uintptr_t hi)
{
	if (lo < sealed_lo)
		sealed_lo = lo;
	if (hi > sealed_hi)
		sealed_hi = hi;
}

/* Make the object's read-only keys read-only.  Called locked. */
void sk_seal_object(struct sk_object *o, void **copies, size_t nr_copies)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t s = (uintptr_t)o->ro_page_start;
	uintptr_t e = (uintptr_t)o->ro_page_end;
	size_t i;

	o->sealed = true;
	o->copies = copies;
	o->nr_copies = nr_copies;
	if (o->ro_start != o->ro_stop)
		sealed_widen((uintptr_t)o->ro_start, (uintptr_t)o->ro_stop);
	for (i = 0; i < nr_copies; i++)
		sealed_widen((uintptr_t)copies[i], (uintptr_t)copies[i] + 1);
	if (o->ro_start == o->ro_stop)
		return;
	if (!s || !e || s % ps || e % ps || s > (uintptr_t)o->ro_start ||
	    e < (uintptr_t)o->ro_stop) {
		sk_warn("%s: read-only keys are refused changes but not write-protected: their pages are not their own (built with an older header?)",
			o->name);
		return;
	}
	if (mprotect((void *)s, e - s, PROT_READ))
		sk_warn("%s: mprotect of read-only keys failed: %s", o->name,
			strerror(errno));
}

/* ---- the registry as the key core and introspection see it ---- */

/* @key is one of @o's read-only keys, or the copy of one. */
static bool holds_ro_key(const struct sk_object *o,
			 const struct static_key *key)
{
	const char *p = (const char *)key;
	size_t i;

	if (p >= o->ro_start && p < o->ro_stop)
		return true;
	for (i = 0; i < o->nr_copies; i++)
		if (o->copies[i] == (void *)key)
			return true;
	return false;
}

/* The object whose sealed read-only keys hold @key, or NULL.  Locked. */
static struct sk_object *key_sealed(const struct static_key *key)
{
	struct sk_object *o;

	if ((uintptr_t)key < sealed_lo || (uintptr_t)key >= sealed_hi)
		return NULL;
	for (o = sk_registry_next(NULL); o; o = sk_registry_next(o))
		if (o->sealed && holds_ro_key(o, key))
			return o;
	return NULL;
}

const char *sk_key_sealed_by(const struct static_key *key)
{
	struct sk_object *o = key_sealed(key);

	return o ? o->name : NULL;
}

bool sk_key_read_only(const struct static_key *key)
{
	struct sk_object *o;

	for (o = sk_registry_next(NULL); o; o = sk_registry_next(o))
		if (holds_ro_key(o, key))
			return true;
	return false;
}
