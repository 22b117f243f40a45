// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The x86 breakpoint (INT3) protocol: a batch of sites written in three
 * serializing steps while other threads run them, and the answer to a
 * thread that traps on a half-written site (it runs the instruction being
 * installed).  SIGTRAP itself is kernel/trap.c's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/trap_regs.h>
#include "../../../kernel/trap.h"
#include "text_poke_bp.h"
#include "../../../lib/lifecycle.h"

/*
 * @handlers counts handler runs in progress, so that a batch is reused or
 * freed only once none can still be reading it.
 */
static struct x86_batch the_batch;
static struct x86_batch *live;
struct x86_batch *sk_bp_stuck;
static int handlers;
static unsigned long batch_gen;	/* odd while a batch is live */
unsigned long sk_trap_emulations;

/* A fork() child has none of the threads that were in the handler. */
static void fork_child(void)
{
	__atomic_store_n(&handlers, 0, __ATOMIC_RELAXED);
}
SK_LIFECYCLE(x86_bp, SK_LC_ARCH, NULL, NULL, fork_child);

struct x86_site *sk_bp_find_site(const struct x86_batch *b, uintptr_t a)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->sites[mid].addr < a)
			lo = mid + 1;
		else if (b->sites[mid].addr > a)
			hi = mid;
		else
			return &b->sites[mid];
	}
	return NULL;
}

/*
 * The handler's answer for one batch: 1 if @site is one of its sites (the
 * instruction is emulated: @uc goes on where it would), 0 if not.
 */
static int emulate(const struct x86_batch *b, uintptr_t site, void *uc)
{
	const struct x86_site *s = sk_bp_find_site(b, site);
	bool jump;

	if (!s)
		return 0;
	jump = s->jump != __atomic_load_n(&b->undo, __ATOMIC_ACQUIRE);
	sk_trap_set_pc(uc, jump ? x86_site_target(s) : site + JUMP_LABEL_NOP_SIZE);
	__atomic_fetch_add(&sk_trap_emulations, 1, __ATOMIC_RELAXED);
	return 1;
}

/*
 * A thread executed an INT3 (kernel/trap.c asks).  If it is one of ours,
 * behave as the instruction being installed (or, while a failed batch is
 * undone, the one being restored) would: continue at the jump target or
 * after the site.  If the byte is no longer INT3, the site was completed
 * since: run it again.  The answer is trusted only if no batch was
 * published or withdrawn while it was worked out (@batch_gen is odd while
 * a batch is live); otherwise look again, since the INT3 seen may belong
 * to a batch that started after the trap.  Only an INT3 that stays put
 * with no batch of ours claiming it is someone else's: false.
 */
static bool claim(void *uc)
{
	uintptr_t site = sk_trap_pc(uc) - 1;
	const struct x86_batch *b;

	for (;;) {
		unsigned long gen;
		int found = 0;
		uint8_t byte;

		__atomic_fetch_add(&handlers, 1, __ATOMIC_SEQ_CST);
		gen = __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE);
		b = __atomic_load_n(&live, __ATOMIC_SEQ_CST);
		if (b)
			found = emulate(b, site, uc);
		for (b = __atomic_load_n(&sk_bp_stuck, __ATOMIC_SEQ_CST);
		     b && !found; b = __atomic_load_n(&b->next, __ATOMIC_SEQ_CST))
			found = emulate(b, site, uc);
		__atomic_fetch_sub(&handlers, 1, __ATOMIC_RELEASE);
		if (found)
			return true;
		byte = *(volatile uint8_t *)site;
		if (byte != INT3) {
			sk_trap_set_pc(uc, site);
			return true;
		}
		if (gen == __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE))
			return false;
	}
}

/* SIGTRAP goes to kernel/trap.c's handler, which asks claim(). */
int sk_bp_install(void)
{
	return sk_trap_install(claim);
}

/* ---- the protocol ---- */

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
 * still be executing bytes of the step before.  A site's @done is the last
 * step written to it.  Undoing runs the same steps backwards over the sites
 * touched: INT3 back on those that reached step 3, the old tail on those
 * that reached step 2, then the old first byte; a thread trapping meanwhile
 * emulates the old instruction.
 */
/*
 * The bytes a site holds after @step, forwards, and after undoing @step:
 * each step changes only the first byte or only the tail.
 *
 *   step  forwards             undoing (sites that reached the step)
 *   1     INT3 + old tail      old first byte + old tail
 *   2     INT3 + new tail      INT3 + old tail
 *   3     new insn             INT3 + new tail
 */
struct step_plan {
	bool from_old;	/* the site's old instruction, else its new one */
	bool int3;	/* then INT3 over the first */
};

/* The table above as the plan of one step for every site in it. */
static struct step_plan step_plan(int step, bool undo)
{
	return (struct step_plan){
		.from_old = step == 1 || (undo && step == 2),
		.int3 = undo ? step > 1 : step < 3,
	};
}

/* Whether @s takes part in @step: undoing touches only what was done. */
static bool in_step(const struct x86_site *s, int step, bool undo)
{
	return !undo || s->done >= step;
}

/*
 * How a step groups its sites into writes (STATICKEYS_MERGE_WRITES, for
 * comparison in make bench): "0" one write per site, "touch" one per run of
 * sites that touch each other, and by default bridged writes where the
 * write method makes each write a system call (sk_text_poke_bridge_max()).
 */
enum merge_mode { MERGE_NONE, MERGE_TOUCH, MERGE_BRIDGE };

static enum merge_mode merge_mode = MERGE_BRIDGE;

static void __attribute__((constructor)) merge_setup(void)
{
	const char *env = secure_getenv("STATICKEYS_MERGE_WRITES");

	if (env && !strcmp(env, "0"))
		merge_mode = MERGE_NONE;
	else if (env && !strcmp(env, "touch"))
		merge_mode = MERGE_TOUCH;
}

/* The sites [@i, @j) of the batch, written in @step together. */
struct group {
	size_t i, j;
	int step;
	bool undo;
	uintptr_t start;
};

/* The bytes the write of @g covers: its start to its last site's end. */
static size_t group_len(const struct group *g)
{
	return the_batch.sites[g->j - 1].addr + JUMP_LABEL_NOP_SIZE - g->start;
}

/*
 * The bytes of a group's write: the code as it is now, the sites' bytes of
 * the step over it.  Called just before every attempt at the write; false
 * if every site holds its bytes already.  Going forwards, each site is
 * marked as having reached the step here, in the pass that reads it
 * anyway: a write that then fails may have landed, and undoing a site
 * that holds its old bytes rewrites them, which is harmless.
 */
static bool fill_group(uint8_t *buf, void *arg)
{
	struct x86_site *sites = the_batch.sites;
	const struct group *g = arg;
	size_t k, len = group_len(g);
	struct step_plan plan = step_plan(g->step, g->undo);
	bool differs = false;

	if (g->j - g->i > 1 || g->start != sites[g->i].addr)
		memcpy(buf, (const void *)g->start, len);
	for (k = g->i; k < g->j; k++) {
		uint8_t *p = buf + (sites[k].addr - g->start);

		x86_site_bytes(&sites[k], !plan.from_old, p);
		if (plan.int3)
			p[0] = INT3;
		if (!g->undo)
			sites[k].done = (uint8_t)g->step;
		differs = differs || memcmp(p, (const void *)sites[k].addr,
					    JUMP_LABEL_NOP_SIZE);
	}
	return differs;
}

/*
 * Whether every site of the group holds its bytes of @buf: the read-back.
 * The whole write compared at once first (one call over a run of bytes);
 * only where that finds a difference, which may be another writer's bytes
 * between the sites (see sk_text_poke_fill()), are the sites compared one
 * by one.
 */
static bool group_landed(const uint8_t *buf, void *arg)
{
	const struct x86_site *sites = the_batch.sites;
	const struct group *g = arg;
	size_t k, len = group_len(g);

	if (!memcmp(buf, (const void *)g->start, len))
		return true;
	for (k = g->i; k < g->j; k++)
		if (memcmp(buf + (sites[k].addr - g->start),
			   (const void *)sites[k].addr, JUMP_LABEL_NOP_SIZE))
			return false;
	return true;
}

/*
 * Whether site @k can join the write that ends with site @k - 1: it touches
 * that site (unless @mode is MERGE_NONE), or, bridged (@bridge), the code
 * between the two is short and lies in the segment that ends at @seg_end.
 * INT3 bytes between them are no reason to stop: most code holds some,
 * inside other instructions, and only the bytes of sites change value.
 */
static bool joins(size_t k, uintptr_t seg_end, enum merge_mode mode,
		  bool bridge)
{
	const struct x86_site *sites = the_batch.sites;
	uintptr_t prev = sites[k - 1].addr + JUMP_LABEL_NOP_SIZE;

	if (sites[k].addr == prev)
		return mode != MERGE_NONE;
	return bridge && sites[k].addr - prev <= SK_BRIDGE_GAP &&
	       sites[k].addr + JUMP_LABEL_NOP_SIZE <= seg_end;
}

/*
 * Where a bridged write starts: at the start of its first site's page (or
 * of the segment, @seg_start, if that is later) when it goes on past that
 * page.  The kernel copies a write to /proc/self/mem one page's length at a
 * time counted from where the write starts, and looks the destination up
 * for every page each piece touches: from the middle of a page every piece
 * straddles two pages, and a write over n pages costs 2n lookups instead of
 * n, the biggest cost of a step where sites are spread over many pages.
 * The bytes in front of the first site are written back as read, like those
 * between sites.  A write within one page starts at its first site.
 */
#define X86_PAGE_SIZE	4096	/* the kernel's PAGE_SIZE, i386 and x86-64 */

static uintptr_t page_start(uintptr_t addr, uintptr_t seg_start)
{
	uintptr_t page = addr & ~(uintptr_t)(X86_PAGE_SIZE - 1);

	return page > seg_start ? page : seg_start;
}

static uintptr_t write_start(uintptr_t first, uintptr_t end, uintptr_t from)
{
	return end - (first & ~(uintptr_t)(X86_PAGE_SIZE - 1)) <= X86_PAGE_SIZE ?
	       first : from;
}

/*
 * One step over the whole batch, in as few writes as the write method makes
 * worth it (a pwrite() costs about the same whatever its length, up to a
 * few kilobytes: Documentation/benchmarks.rst).  Within a write, only the
 * bytes the step changes change value: the code between sites is written
 * back as it was read just before (the race that leaves is described in
 * Documentation/static-keys.rst, "Writers of the same code").  A failed
 * write marks its sites as reached, so that undoing rewrites them: writing
 * a site's old bytes back is harmless.
 */
static uint8_t step_buf[SK_BRIDGE_SPAN];

/*
 * The groups of the forward steps: the same sites in the same writes in
 * all three, so the first step records them and the next two replay the
 * record instead of grouping again (one walk of the batch, not three).
 * Undoing groups anew: a step that failed half-way leaves fewer sites in
 * the next.  No memory for the record: every step groups for itself.
 */
struct span {
	size_t i, j;
	uintptr_t start;
};

static struct span *spans;
static size_t nr_spans, spans_cap;
static bool spans_kept;		/* spans[] holds the first step's groups */

/*
 * Write group @g of the step.  Forwards, fill_group() marked its sites as
 * reached; undoing, they are marked here as undone, or, if the write
 * failed, as still holding the step.
 */
static int write_group(struct group *g, const struct sk_fill *f)
{
	struct x86_site *sites = the_batch.sites;
	int err = sk_text_poke_fill(g->start, step_buf, group_len(g), f);
	uint8_t done = err ? (uint8_t)g->step : (uint8_t)(g->step - 1);
	size_t k;

	if (g->undo)
		for (k = g->i; k < g->j; k++)
			sites[k].done = done;
	return err;
}

static int write_step(int step, bool undo)
{
	struct x86_site *sites = the_batch.sites;
	enum merge_mode mode = sk_test_write_by_site ? MERGE_NONE : merge_mode;
	size_t max = mode == MERGE_BRIDGE ? sk_text_poke_bridge_max() : 0;
	size_t limit = max ? max : 64 * JUMP_LABEL_NOP_SIZE;
	struct group g = { .step = step, .undo = undo };
	const struct sk_fill f = { fill_group, group_landed, &g };
	uintptr_t seg_start, seg_end = 0, from, end;
	size_t i = 0, j;
	/*
	 * The first step forwards comes straight after the apply installed
	 * the handler: asking the kernel again would only repeat its answer.
	 * In a process that had no other thread when the batch began, only
	 * a signal handler of this thread could change SIGTRAP between two
	 * steps, which the rules for programs forbid: the apply's look is
	 * the batch's.  Undoing looks before every step: it is the rare path.
	 */
	int err = (step == 1 || sk_text_poke_alone()) && !undo ? 0 :
		  sk_bp_install();

	if (!undo && step > 1 && spans_kept) {
		for (i = 0; i < nr_spans && !err; i++) {
			g.i = spans[i].i;
			g.j = spans[i].j;
			g.start = spans[i].start;
			err = write_group(&g, &f);
		}
		return err;
	}
	spans_kept = !undo && step == 1;
	nr_spans = 0;
	while (i < the_batch.n && !err) {
		if (!in_step(&sites[i], step, undo)) {
			i++;
			continue;
		}
		if (max && sites[i].addr >= seg_end &&
		    sk_text_poke_segment(sites[i].addr, &seg_start, &seg_end) < 0)
			seg_end = 0;
		from = seg_end ? page_start(sites[i].addr, seg_start) : sites[i].addr;
		for (j = i + 1; j < the_batch.n && in_step(&sites[j], step, undo) &&
		     sites[j].addr + JUMP_LABEL_NOP_SIZE - from <= limit &&
		     joins(j, seg_end, mode, max != 0); j++)
			;
		end = sites[j - 1].addr + JUMP_LABEL_NOP_SIZE;
		g.start = write_start(sites[i].addr, end, from);
		g.i = i;
		g.j = j;
		if (spans_kept &&
		    sk_reserve((void **)&spans, &spans_cap, nr_spans, sizeof(*spans)))
			spans_kept = false;
		if (spans_kept)
			spans[nr_spans++] = (struct span){ i, j, g.start };
		err = write_group(&g, &f);
		i = j;
	}
	return err;
}

int sk_bp_run_steps(void)
{
	int step, err;

	for (step = 1; step <= 3; step++) {
		err = write_step(step, false);
		if (!err)
			err = sk_sync_core();
		if (err)
			return err;
		if (sk_test_step_hook)
			sk_test_step_hook(step);
	}
	return 0;	/* sk_text_poke() read every write back */
}

/*
 * Bring every touched site back; false if a write failed.  A step that
 * cannot serialize is no reason to stop: a thread still running a stale
 * INT3 finds the old byte back and runs the site again.
 */
bool sk_bp_undo_steps(void)
{
	bool ok = true;
	int step;

	__atomic_store_n(&the_batch.undo, true, __ATOMIC_RELEASE);
	for (step = 3; step >= 1; step--) {
		if (write_step(step, true))
			ok = false;
		sk_sync_core();
	}
	return ok;
}

/*
 * @sites become the live batch: a trapping thread finds them and runs the
 * new instruction, or with @undo the old one.
 */
void sk_bp_publish(struct x86_site *sites, size_t n, bool undo)
{
	the_batch = (struct x86_batch){ .sites = sites, .n = n, .undo = undo };
	__atomic_store_n(&live, &the_batch, __ATOMIC_RELEASE);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);
}

/*
 * No handler run can still be reading a batch unlinked before this call.
 * The unlinking store and the load of @handlers here, the increment and
 * the loads of @live, sk_bp_stuck and the links in the handler are all seq_cst:
 * in their one total order either the increment comes first and is seen
 * here, or the unlinking store does and the handler cannot find the batch.
 * (Not a fence after the store: the same on x86, but ThreadSanitizer does
 * not model fences, and gcc says so with -fsanitize=thread.)
 */
void sk_bp_wait_for_handlers(void)
{
	while (__atomic_load_n(&handlers, __ATOMIC_SEQ_CST))
		;
}

void sk_bp_withdraw(void)
{
	__atomic_store_n(&live, NULL, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);
	sk_bp_wait_for_handlers();
}

/*
 * Undo a batch that failed with @err and say what happened: whether
 * anything had been written at all, and what could not be brought back
 * (*@undone false: the caller keeps those sites emulated).  Returns the
 * error the batch reports.
 */
int sk_bp_fail(int err, bool *undone)
{
	char cause[256];
	size_t landed = sk_text_poke_landed();

	snprintf(cause, sizeof(cause), "%s", sk_text_poke_why());
	err = sk_text_poke_status(err);
	*undone = sk_bp_undo_steps();
	if (!sk_text_poke_probing())
		sk_warn("writing %zu sites failed (%s): %s", the_batch.n, cause,
			!*undone ? "some sites could not be restored: they stay emulated (they run their old instruction) until a later change brings them back, key unchanged" :
			landed ? "every site is back to its old instruction, key unchanged" :
			"nothing was written, key unchanged");
	return err;
}
