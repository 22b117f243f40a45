/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The writer's own interface between its files (layer 1 of scripts/layers);
 * what the rest of the library calls is in kernel/internal.h.  The files,
 * each calling only those above it in this list (check-layers refuses a
 * loop):
 *
 *   text_poke_status.c   the method in use, the first failure of a batch,
 *                        the error a batch reports
 *   text_poke_pid.c      the process the writer's state belongs to
 *   sync_core.c          making every thread see the new bytes
 *   text_poke_procmem.c  the held descriptors, writes to /proc/self/mem
 *   text_poke_mprotect.c the segments made writable for a batch
 *   text_poke.c          prepare, write (plain and bridged), read back
 *   text_poke_probe.c    does a method's write take effect?
 *   text_poke_method.c   choosing the method; sk_text_poke_begin()/_end()
 */
#ifndef _STATICKEYS_KERNEL_TEXT_POKE_H
#define _STATICKEYS_KERNEL_TEXT_POKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "internal.h"

/* The methods, in the order they are tried (text_poke_method.c). */
enum poke_method { POKE_UNSET, POKE_PROCMEM, POKE_MPROTECT, POKE_NONE };
enum verdict { V_UNKNOWN, V_EXECUTES, V_NO_EFFECT };

#define POKE_TRIES	3	/* attempts at a write or an open */
#define SK_TP_WHY	256

/* text_poke_status.c */
extern __hidden const char *const sk_tp_method_names[];
extern __hidden enum poke_method sk_tp_method;
extern __hidden bool sk_tp_probing;
extern __hidden bool sk_tp_write_refused;	/* in this batch: choose again after it */
extern __hidden bool sk_tp_batch_failed;
extern __hidden size_t sk_tp_nr_landed;	/* writes of this batch that landed */
extern __hidden char sk_tp_why[SK_TP_WHY];
__hidden int sk_tp_failed(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
__hidden bool sk_tp_transient(int err);
__hidden void sk_tp_batch_reset(void);

/* text_poke_pid.c: the caller's process id; forget it in a child. */
__hidden pid_t sk_tp_pid(void);
__hidden void sk_tp_pid_forget(void);
__hidden bool sk_tp_pid_wiped(void);

/* sync_core.c: counts the serializing steps made. */
extern __hidden unsigned long sk_tp_sync_gen;

/* text_poke_procmem.c */
__hidden void sk_tp_look_alone(void);
__hidden int sk_tp_procmem_prepare(void);
__hidden int sk_tp_poke_procmem(uintptr_t addr, const void *bytes, size_t len);
__hidden void sk_tp_procmem_doubt(void);
__hidden bool sk_tp_procmem_elsewhere(void);

/* text_poke_mprotect.c */
__hidden int sk_tp_segments_open(const void *sites, size_t n, size_t stride,
				 size_t len);
__hidden void sk_tp_segments_restore(void);

/* text_poke.c */
__hidden int sk_tp_prepare(enum poke_method m, const void *sites, size_t n,
			   size_t stride, size_t len);
__hidden void sk_tp_finish(enum poke_method m);

/* text_poke_probe.c */
extern __hidden enum verdict sk_tp_verdicts[POKE_NONE];
__hidden int sk_tp_probe_by_update(void);
__hidden int sk_tp_probe_direct(enum poke_method m);
__hidden int sk_tp_probed(enum poke_method m, int err);

/* The address a queue record starts with. */
static inline uintptr_t rec_addr(const char *rec)
{
	uintptr_t a;

	memcpy(&a, rec, sizeof(a));
	return a;
}

/*
 * The upper layer's hook @name (kernel/internal.h, SK_WRITER_HOOK()), or
 * NULL (lib/section.h).
 */
SK_SECTION_TABLE(sk_hook_text_segment_fn *, __sk_hook_text_segment);
SK_SECTION_TABLE(sk_hook_key_update_fn *, __sk_hook_key_update);
#define sk_writer_hook(name)						\
	(sk_section_empty(__sk_hook_##name) ? NULL :			\
	 *sk_section_start(__sk_hook_##name))

#endif /* _STATICKEYS_KERNEL_TEXT_POKE_H */
