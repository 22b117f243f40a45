// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * x86-64 site patching, safe while other threads execute the sites: the
 * breakpoint protocol, with a SIGTRAP handler that emulates the instruction
 * being installed for any thread that runs into a half-written site.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <asm/jump_label.h>
#include "../../../kernel/internal.h"

#define INT3		0xcc
#define JMP32		0xe9

static const uint8_t nop5[JUMP_LABEL_NOP_SIZE] = { ARCH_JUMP_LABEL_NOP5 };

struct x86_site {
	uintptr_t addr;		/* first: sk_text_poke_begin() reads it */
	uintptr_t target;
	uint8_t insn[JUMP_LABEL_NOP_SIZE];	/* what the site will hold */
	bool jump;
};

/*
 * The queue being built, and the batch being written.  @live is what the
 * trap handler reads: published before the first INT3 goes in, withdrawn
 * after the last one is gone; @handlers counts handler runs in progress so
 * that the batch is freed only once none can still be reading it.
 */
static struct x86_site *queue;
static size_t nr_queued, queue_cap;

static struct x86_site *live;
static size_t nr_live;
static int handlers;
static unsigned long batch_gen;	/* odd while a batch is live */

static struct sigaction old_trap;
static bool trap_installed;

static void make_insn(uint8_t *insn, enum jump_label_type type,
		      uintptr_t code, uintptr_t target)
{
	int32_t disp = (int32_t)(target - (code + JUMP_LABEL_NOP_SIZE));

	if (type == JUMP_LABEL_NOP) {
		memcpy(insn, nop5, sizeof(nop5));
		return;
	}
	insn[0] = JMP32;
	memcpy(insn + 1, &disp, sizeof(disp));
}

int arch_jump_label_decode(const struct jump_entry *entry,
			   enum jump_label_type *type)
{
	uintptr_t code = jump_entry_code(entry);
	uint8_t jmp[JUMP_LABEL_NOP_SIZE];

	make_insn(jmp, JUMP_LABEL_JMP, code, jump_entry_target(entry));
	if (!memcmp((void *)code, nop5, sizeof(nop5)))
		*type = JUMP_LABEL_NOP;
	else if (!memcmp((void *)code, jmp, sizeof(jmp)))
		*type = JUMP_LABEL_JMP;
	else
		return -EILSEQ;
	return 0;
}

void arch_jump_label_describe(const struct jump_entry *entry, char *buf,
			      size_t len)
{
	const uint8_t *p = (const uint8_t *)jump_entry_code(entry);

	snprintf(buf, len, "%02x %02x %02x %02x %02x", p[0], p[1], p[2],
		 p[3], p[4]);
}

int arch_jump_label_transform_queue(struct jump_entry *entry,
				    enum jump_label_type type)
{
	enum jump_label_type now;
	struct x86_site *s;

	if (arch_jump_label_decode(entry, &now))
		return -EILSEQ;
	if (now == type)
		return 0;
	if (sk_reserve((void **)&queue, &queue_cap, nr_queued, sizeof(*queue)))
		return -ENOMEM;
	s = &queue[nr_queued++];
	s->addr = jump_entry_code(entry);
	s->target = jump_entry_target(entry);
	s->jump = type == JUMP_LABEL_JMP;
	make_insn(s->insn, type, s->addr, s->target);
	return 0;
}

void arch_jump_label_transform_discard(void)
{
	nr_queued = 0;
}

static struct x86_site *find_live(struct x86_site *v, size_t n, uintptr_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr < a)
			lo = mid + 1;
		else if (v[mid].addr > a)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

static void chain_trap(int sig, siginfo_t *info, void *uc)
{
	if (old_trap.sa_flags & SA_SIGINFO) {
		old_trap.sa_sigaction(sig, info, uc);
	} else if (old_trap.sa_handler == SIG_IGN) {
		return;
	} else if (old_trap.sa_handler != SIG_DFL) {
		old_trap.sa_handler(sig);
	} else {
		/* Default action, delivered once this handler returns. */
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	}
}

/*
 * A thread executed an INT3.  If it is one of ours, behave as the new
 * instruction would: continue at the jump target or after the site.  If the
 * byte is no longer INT3, the site was completed since: run it again.  The
 * answer is trusted only if no batch was published or withdrawn while it was
 * worked out (@batch_gen is odd while a batch is live); otherwise look again,
 * since the INT3 seen may belong to a batch that started after the trap.
 * Only an INT3 that stays put with no batch of ours claiming it is someone
 * else's.
 */
static void trap_handler(int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *rip = &uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t site = (uintptr_t)*rip - 1;

	if (info->si_code != SI_KERNEL) {
		chain_trap(sig, info, ucv);
		return;
	}
	for (;;) {
		unsigned long gen;
		struct x86_site *s = NULL, *v;
		uint8_t byte;

		__atomic_fetch_add(&handlers, 1, __ATOMIC_ACQUIRE);
		gen = __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE);
		v = __atomic_load_n(&live, __ATOMIC_ACQUIRE);
		if (v)
			s = find_live(v, __atomic_load_n(&nr_live, __ATOMIC_RELAXED),
				      site);
		if (s)
			*rip = s->jump ? (greg_t)s->target
				       : (greg_t)(site + JUMP_LABEL_NOP_SIZE);
		__atomic_fetch_sub(&handlers, 1, __ATOMIC_RELEASE);
		if (s)
			return;
		byte = *(volatile uint8_t *)site;
		if (byte != INT3) {
			*rip = (greg_t)site;
			return;
		}
		if (gen == __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE))
			break;
	}
	chain_trap(sig, info, ucv);
}

/*
 * Install the handler, or reinstall it if the program replaced it since:
 * whatever handler it finds becomes the one it chains to.
 */
static int install_trap_handler(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur))
		return -errno;
	if (trap_installed && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == trap_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old_trap))
		return -errno;
	trap_installed = true;
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct x86_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Write @len bytes at @off of every queued site from its new instruction. */
static int poke_all(size_t off, size_t len, const uint8_t *forced)
{
	size_t i;
	int err;

	for (i = 0; i < nr_queued; i++) {
		const uint8_t *src = forced ? forced : queue[i].insn + off;

		err = sk_text_poke(queue[i].addr + off, src, len);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The protocol, for the whole batch at once (three serializing steps
 * whatever the number of sites):
 *
 *   step  every site's bytes            a thread reaching a site
 *   1     INT3 + old tail               traps, emulates the new insn
 *   2     INT3 + new tail               traps, emulates the new insn
 *   3     new first byte + new tail     runs the new insn
 *
 * Each step is followed by a core-serializing barrier so that no CPU can
 * still be executing bytes of the step before.
 */
int arch_jump_label_transform_apply(void)
{
	static const uint8_t int3 = INT3;
	int err;

	if (!nr_queued)
		return 0;
	qsort(queue, nr_queued, sizeof(*queue), cmp_site);
	err = install_trap_handler();
	if (!err)
		err = sk_text_poke_begin(queue, nr_queued, sizeof(*queue),
					 JUMP_LABEL_NOP_SIZE);
	if (err) {
		nr_queued = 0;
		return err;
	}

	__atomic_store_n(&nr_live, nr_queued, __ATOMIC_RELAXED);
	__atomic_store_n(&live, queue, __ATOMIC_RELEASE);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);

	err = poke_all(0, 1, &int3);
	sk_sync_core();
	if (!err)
		err = poke_all(1, JUMP_LABEL_NOP_SIZE - 1, NULL);
	sk_sync_core();
	if (!err)
		err = poke_all(0, 1, NULL);
	sk_sync_core();
	if (err)
		sk_warn("writing a site failed half-way (%s): sites may hold INT3 (handled, but slow)",
			strerror(-err));

	__atomic_store_n(&live, NULL, __ATOMIC_RELEASE);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&handlers, __ATOMIC_ACQUIRE))
		;
	sk_text_poke_end();
	sk_count_sites_written(nr_queued);
	nr_queued = 0;
	return err;
}
