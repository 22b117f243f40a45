// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Writing instruction bytes into the running process: a batch's method is
 * got ready, every write is read back, and bridged writes cover several
 * sites at once.  The methods themselves are text_poke_procmem.c's and
 * text_poke_mprotect.c's; which one writes is text_poke_method.c's choice,
 * made by patching a probe site and executing it (text_poke_probe.c),
 * never by reading memory back (an emulator may keep running a stale
 * translation of bytes that read back as written).  kernel/text_poke.h
 * lists the writer's files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "text_poke.h"
#include "../lib/sort.h"

void (*sk_test_step_hook)(int step);
int (*sk_test_poke_hook)(uintptr_t addr, const void *bytes, size_t len);
bool sk_test_write_by_site;

/* Get @m ready to write @n sites; nothing is changed if it fails. */
int sk_tp_prepare(enum poke_method m, const void *sites, size_t n,
		  size_t stride, size_t len)
{
	switch (m) {
	case POKE_PROCMEM:
		return sk_tp_procmem_prepare();
	case POKE_MPROTECT:
		return sk_tp_segments_open(sites, n, stride, len);
	default:
		return sk_tp_failed(-EACCES, "no write method");
	}
}

/* The /proc/self/mem descriptor stays open for the next change. */
void sk_tp_finish(enum poke_method m)
{
	if (m == POKE_MPROTECT)
		sk_tp_segments_restore();
}

/*
 * A write that reported success may not have landed: a program thread that
 * closes descriptors can slip another file under the number between the
 * check and the write.  So every write is read back; one that did not land
 * is redone once through a descriptor opened and checked afresh.  Bytes
 * that are there already are not written again: undoing a write that never
 * landed writes nothing (and cannot fail where writing is refused).
 */
static int poke_once(uintptr_t addr, const void *bytes, size_t len);

/*
 * With @f, @bytes is a buffer that f->fill() fills from the code as it is
 * now before every attempt (a bridged write: see sk_text_poke_fill()), so
 * that a retry never puts back bytes read before someone else's write, and
 * f->landed() reads back only the bytes the write changes.
 */
static int poke_checked(uintptr_t addr, uint8_t *bytes, size_t len,
			const struct sk_fill *f)
{
	int err = 0, i;

	if (f ? !f->fill(bytes, f->arg) : !memcmp((const void *)addr, bytes, len))
		return 0;
	for (i = 0; i < POKE_TRIES; i++) {
		if (f && i && !f->fill(bytes, f->arg)) {
			sk_tp_nr_landed++;	/* the write before landed late */
			return 0;
		}
		err = poke_once(addr, bytes, len);
		if (!err && (f ? f->landed(bytes, f->arg) :
			     !memcmp((const void *)addr, bytes, len))) {
			sk_tp_nr_landed++;
			return 0;
		}
		if (!err)
			err = sk_tp_failed(-EIO, "the %zu bytes written at %p did not land (read back: they differ)",
					   len, (void *)addr);
		sk_tp_procmem_doubt();	/* a fresh, checked descriptor */
	}
	if ((err == -EACCES || err == -EPERM) && !sk_tp_write_refused) {
		size_t n = strlen(sk_tp_why);

		sk_tp_write_refused = true;
		snprintf(sk_tp_why + n, sizeof(sk_tp_why) - n,
			 " (the write method is chosen again at the next change)");
	}
	sk_tp_batch_failed = true;
	return err;
}

int sk_text_poke(uintptr_t addr, const void *bytes, size_t len)
{
	return poke_checked(addr, (uint8_t *)bytes, len, NULL);
}

/*
 * A bridged write: one write of @len bytes at @addr covering several sites
 * and the code between them.  f->fill() copies the code at @addr into @buf
 * and puts the sites' new bytes over it, and says whether any of them
 * differs from what the site holds (false: nothing to write); it is called
 * again, just before the write, for every retry.  f->landed() says whether
 * the sites hold their bytes of @buf after the write.  The code between
 * them is not read back: it was written with the values read just before,
 * so a comparison could only find another writer's bytes put there after
 * the library's write, which it has no reason to write over (see "Writers
 * of the same code" in Documentation/static-keys.rst); a write that did not
 * land (another file under the descriptor) left a site unchanged, and that
 * is what f->landed() sees.  Worth it only where a write costs a system
 * call.
 */
int sk_text_poke_fill(uintptr_t addr, uint8_t *buf, size_t len,
		      const struct sk_fill *f)
{
	return poke_checked(addr, buf, len, f);
}

size_t sk_text_poke_bridge_max(void)
{
	return sk_tp_method == POKE_PROCMEM ? SK_BRIDGE_SPAN : 0;
}

static int poke_once(uintptr_t addr, const void *bytes, size_t len)
{
	uint32_t word;

	if (sk_test_poke_hook) {
		int err = sk_test_poke_hook(addr, bytes, len);

		if (err)
			return sk_tp_failed(err, "the test hook failed the write at %p",
					    (void *)addr);
	}
	if (sk_tp_method == POKE_PROCMEM)
		return sk_tp_poke_procmem(addr, bytes, len);
	/* Single naturally aligned stores: a racing fetch sees old or new. */
	if (len == 1) {
		__atomic_store_n((uint8_t *)addr, *(const uint8_t *)bytes,
				 __ATOMIC_RELAXED);
	} else if (len == 4 && !(addr & 3)) {
		memcpy(&word, bytes, sizeof(word));	/* @bytes may be unaligned */
		__atomic_store_n((uint32_t *)addr, word, __ATOMIC_RELAXED);
	} else {
		memcpy((void *)addr, bytes, len);
	}
	return 0;
}

/* Records by the address each starts with (rec_addr()). */
int sk_sort_queue(void **queue, size_t n, size_t size)
{
	return sk_sort_addr(*queue, n, size);
}
