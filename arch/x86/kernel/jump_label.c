// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * x86-64 site patching, safe while other threads execute the sites: the
 * breakpoint protocol, with a SIGTRAP handler that emulates the instruction
 * being installed for any thread that runs into a half-written site.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <asm/jump_label.h>
#include "../../../kernel/internal.h"
#include "trap_regs.h"

#define INT3		0xcc
#define JMP32		0xe9

static const uint8_t nop5[JUMP_LABEL_NOP_SIZE] = { ARCH_JUMP_LABEL_NOP5 };

struct x86_site {
	uintptr_t addr;		/* first: sk_text_poke_begin() reads it */
	uintptr_t target;
	uint8_t old[JUMP_LABEL_NOP_SIZE];	/* what the site holds now */
	uint8_t insn[JUMP_LABEL_NOP_SIZE];	/* what the site will hold */
	bool jump;		/* the new instruction is the jump */
	uint8_t done;		/* steps written: 0..3, see the table below */
	bool orphan;		/* stuck, and its object unregistered */
};

/*
 * A batch is what the trap handler reads: published before the first INT3
 * goes in, withdrawn after the last one is gone.  While @undo is set the
 * sites are being brought back, and a trapping thread runs the old
 * instruction instead of the new one.  A batch that could not be brought
 * back is not withdrawn: it goes on the @stuck list, emulated until
 * arch_jump_label_repair() brings its sites back.  @handlers counts handler
 * runs in progress, so that a batch is reused or freed only once none can
 * still be reading it.  Only the holder of jump_label_mutex changes @live
 * and @stuck.
 */
struct batch {
	struct x86_site *sites;
	size_t n;
	bool undo;
	struct batch *next;
};

static struct x86_site *queue;
static size_t nr_queued, queue_cap;

static struct batch the_batch;
static struct batch *live;
static struct batch *stuck;
static int handlers;
static unsigned long batch_gen;	/* odd while a batch is live */
unsigned long sk_trap_emulations;
unsigned long sk_stuck_sites;

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

/*
 * 0 and the state, -EBUSY for a breakpoint (INT3) over either instruction's
 * tail (a debugger's or a uprobe's: its owner will put the first byte back,
 * so the site must not change under it), -EILSEQ for anything else.
 */
int arch_jump_label_decode(const struct jump_entry *entry,
			   enum jump_label_type *type)
{
	uintptr_t code = jump_entry_code(entry);
	const uint8_t *p = (const uint8_t *)code;
	uint8_t jmp[JUMP_LABEL_NOP_SIZE];
	size_t tail = JUMP_LABEL_NOP_SIZE - 1;

	make_insn(jmp, JUMP_LABEL_JMP, code, jump_entry_target(entry));
	if (!memcmp(p, nop5, sizeof(nop5)))
		*type = JUMP_LABEL_NOP;
	else if (!memcmp(p, jmp, sizeof(jmp)))
		*type = JUMP_LABEL_JMP;
	else if (p[0] == INT3 && (!memcmp(p + 1, nop5 + 1, tail) ||
				  !memcmp(p + 1, jmp + 1, tail)))
		return -EBUSY;
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

int arch_jump_label_check(const struct jump_entry *entry,
			  enum jump_label_type type)
{
	enum jump_label_type now;
	int err = arch_jump_label_decode(entry, &now);

	return err ? err : now == type;
}

static int apply_queue(void);

/*
 * The sites to write become the records the steps and the trap handler
 * read (queue[]: sk_text_poke_begin() and the stuck list take its layout),
 * each to take the instruction it does not hold.
 */
int arch_jump_label_transform_apply(struct jump_entry **vec, size_t n)
{
	enum jump_label_type now;
	struct x86_site *s;

	if (sk_reserve_n((void **)&queue, &queue_cap, n, sizeof(*queue)))
		return -ENOMEM;
	for (nr_queued = 0; nr_queued < n; nr_queued++) {
		s = &queue[nr_queued];
		if (arch_jump_label_decode(vec[nr_queued], &now)) {
			nr_queued = 0;	/* checked when queued: cannot be */
			return -EILSEQ;
		}
		s->addr = jump_entry_code(vec[nr_queued]);
		s->target = jump_entry_target(vec[nr_queued]);
		s->jump = now == JUMP_LABEL_NOP;
		s->done = 0;
		s->orphan = false;
		memcpy(s->old, (const void *)s->addr, sizeof(s->old));
		make_insn(s->insn, !now, s->addr, s->target);
	}
	return apply_queue();
}

/* A fork() child has none of the threads that were in the handler. */
void arch_jump_label_fork_child(void)
{
	__atomic_store_n(&handlers, 0, __ATOMIC_RELAXED);
}

static struct x86_site *find_site(const struct batch *b, uintptr_t a)
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

/* ---- SIGTRAP: the library's handler and the program's ---- */

/*
 * The library's handler has NR_LEVELS entry points, one per level of a
 * stack of the dispositions it displaced: entry k was installed over
 * below[k] and stands for it.  A program handler installed over entry k
 * keeps entry k's address as its predecessor; when it chains to it, entry
 * k hands a trap that is not the library's to below[k], the disposition
 * that handler would have found had the library not been there, and so on
 * down.  So which entry the kernel holds says how much of the stack the
 * program still has, and a program (or a plugin at dlclose()) that puts
 * its predecessor back drops the levels above it with its own handler:
 *
 *   SIGTRAP holds          before each step of an update
 *   entry k                nothing written; levels above k are free
 *   a foreign handler D    below[n] = D, entry n installed, n levels + 1
 *   D == below[j]          the program went back to D: below[j] = D,
 *                          entry j installed, j + 1 levels
 *
 * A chain only goes down (a handler found over entry k goes to a level
 * above k), so every handler runs once per trap and none loops, unless
 * the program's own handlers would loop without the library.  below[] and
 * nr_levels change under jump_label_mutex; handlers read them lock-free
 * (a level is written again only once the program dropped it or went
 * back to it, and an SA_RESETHAND handler's level is reset by the handler).
 */
#define NR_LEVELS	64

static struct sigaction below[NR_LEVELS];
static int nr_levels;

static void trap_handler(int level, int sig, siginfo_t *info, void *ucv);

#define TRAP_ENTRY(a, b)						\
static void trap_entry_##a##b(int sig, siginfo_t *info, void *uc)	\
{									\
	trap_handler(a * 8 + b, sig, info, uc);				\
}
#define TRAP_ENTRIES(a)							\
	TRAP_ENTRY(a, 0) TRAP_ENTRY(a, 1) TRAP_ENTRY(a, 2) TRAP_ENTRY(a, 3) \
	TRAP_ENTRY(a, 4) TRAP_ENTRY(a, 5) TRAP_ENTRY(a, 6) TRAP_ENTRY(a, 7)
TRAP_ENTRIES(0) TRAP_ENTRIES(1) TRAP_ENTRIES(2) TRAP_ENTRIES(3)
TRAP_ENTRIES(4) TRAP_ENTRIES(5) TRAP_ENTRIES(6) TRAP_ENTRIES(7)

#define E8(a)								\
	trap_entry_##a##0, trap_entry_##a##1, trap_entry_##a##2,	\
	trap_entry_##a##3, trap_entry_##a##4, trap_entry_##a##5,	\
	trap_entry_##a##6, trap_entry_##a##7
static void (*const trap_entries[NR_LEVELS])(int, siginfo_t *, void *) = {
	E8(0), E8(1), E8(2), E8(3), E8(4), E8(5), E8(6), E8(7),
};

/* The level of the entry @sa installs, or -1 if it is not one of ours. */
static int entry_level(const struct sigaction *sa)
{
	int k;

	if (!(sa->sa_flags & SA_SIGINFO))
		return -1;
	for (k = 0; k < NR_LEVELS; k++)
		if (sa->sa_sigaction == trap_entries[k])
			return k;
	return -1;
}

static void default_action(int sig)
{
	struct sigaction dfl;
	sigset_t set;

	/* Delivered when the handler returns, or now if not blocked. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise(sig);
}

/*
 * SIG_DFL or SIG_IGN below @level, for a trap that is not the library's.
 * If the kernel delivered it to this entry, do what the kernel would have:
 * the default action, or nothing for an ignored SIGTRAP that was sent
 * (si_code <= 0: raise(), kill); one it raised for an int3 or a debug
 * exception is never ignored.  If a program handler chained to this entry,
 * it took the entry for a handler; with SIG_DFL or SIG_IGN there it would
 * have called nothing, so nothing is done.
 */
static void no_handler(int level, int sig, const siginfo_t *info,
		       const struct sigaction *sa)
{
	struct sigaction cur;

	if (sigaction(sig, NULL, &cur) || entry_level(&cur) != level)
		return;
	if (sa->sa_handler == SIG_IGN && info->si_code <= 0)
		return;
	default_action(sig);
}

/* A trap that is not the library's: to below[@level], as the kernel would. */
static void pass_down(int level, int sig, siginfo_t *info, void *uc)
{
	struct sigaction sa = below[level];
	sigset_t mask, old;

	if (!(sa.sa_flags & SA_SIGINFO) &&
	    (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)) {
		no_handler(level, sig, info, &sa);
		return;
	}
	/* One-shot handlers are reset when delivered, as by the kernel. */
	if (sa.sa_flags & SA_RESETHAND) {
		memset(&below[level], 0, sizeof(below[level]));
		below[level].sa_handler = SIG_DFL;
	}
	mask = sa.sa_mask;
	if (!(sa.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (sa.sa_flags & SA_SIGINFO)
		sa.sa_sigaction(sig, info, uc);
	else
		sa.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static bool same_action(const struct sigaction *a, const struct sigaction *b)
{
	if ((a->sa_flags ^ b->sa_flags) & SA_SIGINFO)
		return false;
	return a->sa_flags & SA_SIGINFO ? a->sa_sigaction == b->sa_sigaction
					: a->sa_handler == b->sa_handler;
}

/* The level whose entry goes in over @cur, a disposition not ours. */
static int displace(const struct sigaction *cur)
{
	int k;

	for (k = nr_levels - 1; k >= 0; k--)
		if (same_action(&below[k], cur))
			break;
	if (k < 0 && nr_levels == NR_LEVELS) {
		/* @cur chains to the top entry, which stays what it was. */
		SK_WARN_ONCE(1, "%d SIGTRAP handlers installed over the library's, one over the other: the newest is left out when a trap is passed on",
			     NR_LEVELS + 1);
		return NR_LEVELS - 1;
	}
	if (k < 0)
		k = nr_levels;
	below[k] = *cur;
	nr_levels = k + 1;
	return k;
}

/*
 * The handler's answer for one batch: 1 if @site is one of its sites (the
 * instruction is emulated in @rip), 0 if not.
 */
static int emulate(const struct batch *b, uintptr_t site, greg_t *rip)
{
	const struct x86_site *s = find_site(b, site);
	bool jump;

	if (!s)
		return 0;
	jump = s->jump != __atomic_load_n(&b->undo, __ATOMIC_ACQUIRE);
	*rip = jump ? (greg_t)s->target : (greg_t)(site + JUMP_LABEL_NOP_SIZE);
	__atomic_fetch_add(&sk_trap_emulations, 1, __ATOMIC_RELAXED);
	return 1;
}

/*
 * A thread executed an INT3.  If it is one of ours, behave as the
 * instruction being installed (or, while a failed batch is undone, the one
 * being restored) would: continue at the jump target or after the site.  If
 * the byte is no longer INT3, the site was completed since: run it again.
 * The answer is trusted only if no batch was published or withdrawn while
 * it was worked out (@batch_gen is odd while a batch is live); otherwise
 * look again, since the INT3 seen may belong to a batch that started after
 * the trap.  Only an INT3 that stays put with no batch of ours claiming it
 * is someone else's.  The kernel reports an INT3 as SI_KERNEL, valgrind as
 * TRAP_BRKPT; anything else (raise(), kill) is never ours.  A trap that
 * is not ours goes to the disposition entry @level stands for.
 */
static void trap_handler(int level, int sig, siginfo_t *info, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *rip = &uc->uc_mcontext.gregs[SK_REG_IP];
	uintptr_t site = (uintptr_t)*rip - 1;
	const struct batch *b;

	if (info->si_code != SI_KERNEL && info->si_code != TRAP_BRKPT) {
		pass_down(level, sig, info, ucv);
		return;
	}
	for (;;) {
		unsigned long gen;
		int found = 0;
		uint8_t byte;

		__atomic_fetch_add(&handlers, 1, __ATOMIC_SEQ_CST);
		gen = __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE);
		b = __atomic_load_n(&live, __ATOMIC_SEQ_CST);
		if (b)
			found = emulate(b, site, rip);
		for (b = __atomic_load_n(&stuck, __ATOMIC_SEQ_CST); b && !found;
		     b = __atomic_load_n(&b->next, __ATOMIC_SEQ_CST))
			found = emulate(b, site, rip);
		__atomic_fetch_sub(&handlers, 1, __ATOMIC_RELEASE);
		if (found)
			return;
		byte = *(volatile uint8_t *)site;
		if (byte != INT3) {
			*rip = (greg_t)site;
			return;
		}
		if (gen == __atomic_load_n(&batch_gen, __ATOMIC_ACQUIRE))
			break;
	}
	pass_down(level, sig, info, ucv);
}

/* ---- other copies of the library in the process ---- */

/*
 * Two copies of the library can live in one process: two plugins that each
 * link libstatickeys.a privately, or one loaded with dlmopen().  Each
 * installs its own handler, and each would take the other's for a program
 * handler and stack it, one level an update.  So a copy's handler carries
 * a mark another copy can read, and an owner it can ask: its restorer (the
 * code a handler returns through, which the kernel reports with the
 * handler) is the library's own, 64-byte aligned, with the same bytes as
 * the C library's (debuggers and unwinders know a signal frame by them),
 * followed by a marker, a version and where its peer description lies:
 *
 *   offset  bytes
 *   0       the restorer: rt_sigreturn, as the C library's
 *   16      "statickeys trap\0"
 *   32      version (1), 32 bits
 *   36      struct sk_trap_peer, relative to this field, 32 bits
 *
 * The block never crosses a page, and a foreign restorer is read with
 * process_vm_readv(), which cannot fault.  Version 1 of the description
 * (later versions only add fields at its end, and raise the number):
 */
#define SK_TRAP_MARK		"statickeys trap"
#define SK_TRAP_PEER_VERSION	1

struct sk_trap_link {
	void *handler;		/* sa_sigaction, or sa_handler */
	void *restorer;		/* NULL without SA_RESTORER */
};

struct sk_trap_peer {
	uint32_t version;
	uint32_t size;
	/*
	 * What @entry, if it is one of the copy's entries, hands a trap that
	 * is not its copy's: false if it is not, or if that is SIG_DFL or
	 * SIG_IGN.  Reads only, lock-free, as the handler does.
	 */
	bool (*below)(const void *entry, struct sk_trap_link *to);
};

#ifndef SA_RESTORER
#define SA_RESTORER	0x04000000
#endif

#ifdef __x86_64__
#define SK_RT_SIGRETURN	".byte 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05\n"	/* mov $15, %rax; syscall */
#else
#define SK_RT_SIGRETURN	".byte 0xb8, 0xad, 0, 0, 0, 0xcd, 0x80\n"	/* mov $173, %eax; int $0x80 */
#endif

static bool peer_below(const void *entry, struct sk_trap_link *to);

static const struct sk_trap_peer trap_peer __asm__("sk_trap_peer")
	__attribute__((used)) = {
	.version = SK_TRAP_PEER_VERSION,
	.size = sizeof(struct sk_trap_peer),
	.below = peer_below,
};

/* Local symbols: each copy has its own. */
extern const char sk_trap_restorer[] __asm__("sk_trap_restorer");
__asm__(".pushsection .text\n"
	".balign 64\n"
	".type sk_trap_restorer, @function\n"
	"sk_trap_restorer:\n"
	SK_RT_SIGRETURN
	".balign 16, 0xcc\n"
	".ascii \"" SK_TRAP_MARK "\\0\"\n"
	".long 1\n"
	".long sk_trap_peer - .\n"
	".size sk_trap_restorer, . - sk_trap_restorer\n"
	".popsection\n");

static bool under_tsan(void);

static bool peer_below(const void *entry, struct sk_trap_link *to)
{
	const struct sigaction *sa;
	int k;

	for (k = 0; k < NR_LEVELS; k++)
		if ((const void *)trap_entries[k] == entry)
			break;
	if (k == NR_LEVELS)
		return false;
	sa = &below[k];
	if (!(sa->sa_flags & SA_SIGINFO) &&
	    (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN))
		return false;
	to->handler = sa->sa_flags & SA_SIGINFO ? (void *)sa->sa_sigaction :
						  (void *)sa->sa_handler;
	to->restorer = sa->sa_flags & SA_RESTORER ? (void *)sa->sa_restorer :
						    NULL;
	return true;
}

/* The description of the copy whose restorer is @restorer, or NULL. */
static const struct sk_trap_peer *trap_peer_of(const void *restorer)
{
	unsigned char mark[40];
	struct iovec local = { mark, sizeof(mark) };
	struct iovec remote = { (void *)restorer, sizeof(mark) };
	const struct sk_trap_peer *p;
	uint32_t version;
	int32_t rel;

	if (!restorer || ((uintptr_t)restorer & 63))
		return NULL;
	/*
	 * Where the call is refused (a sandbox, an emulator without it), the
	 * block is read directly: it is code the kernel returns through, and
	 * aligned as it is it lies in that code's page (execute-only memory,
	 * which x86 has only through protection keys, would fault).
	 */
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) !=
	    (ssize_t)sizeof(mark)) {
		if (errno != ENOSYS && errno != EPERM)
			return NULL;
		memcpy(mark, restorer, sizeof(mark));
	}
	if (memcmp(mark + 16, SK_TRAP_MARK, sizeof(SK_TRAP_MARK)))
		return NULL;
	memcpy(&version, mark + 32, sizeof(version));
	memcpy(&rel, mark + 36, sizeof(rel));
	p = (const struct sk_trap_peer *)((uintptr_t)restorer + 36 + rel);
	if (version < 1 || p->version < 1 ||
	    p->size < sizeof(struct sk_trap_peer))
		return NULL;
	return p;
}

/*
 * The level of the entry of ours that @cur, another copy's entry, hands
 * foreign traps to, through other copies' entries only; -1 if none.
 */
#define MAX_PEERS	16

static int peer_level(const struct sigaction *cur)
{
	struct sk_trap_link at = { (void *)cur->sa_sigaction,
				   cur->sa_flags & SA_RESTORER ?
				   (void *)cur->sa_restorer : NULL }, to;
	const struct sk_trap_peer *p;
	int depth, k;

	if (!(cur->sa_flags & SA_SIGINFO))
		return -1;
	for (depth = 0; depth < MAX_PEERS; depth++) {
		p = trap_peer_of(at.restorer);
		if (!p || !p->below(at.handler, &to))
			return -1;
		for (k = 0; k < NR_LEVELS; k++)
			if ((void *)trap_entries[k] == to.handler)
				return k;
		at = to;
	}
	return -1;
}

/*
 * SIGTRAP's disposition as the kernel holds it, restorer included (glibc
 * reports it, musl does not), and our entry with our restorer.  Under
 * ThreadSanitizer, whose runtime keeps the program's dispositions itself,
 * through the C library: other copies are then not recognised.
 */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;		/* the kernel's sigset: 64 signals */
};

static int get_trap_action(struct sigaction *cur)
{
	struct k_sigaction k;

	if (under_tsan())
		return sigaction(SIGTRAP, NULL, cur);
	if (syscall(SYS_rt_sigaction, SIGTRAP, NULL, &k, sizeof(k.mask)))
		return -1;
	memset(cur, 0, sizeof(*cur));
	cur->sa_handler = (void (*)(int))k.handler;
	cur->sa_flags = (int)k.flags;
	cur->sa_restorer = (void (*)(void))k.restorer;
	sigemptyset(&cur->sa_mask);
	memcpy(&cur->sa_mask, &k.mask, sizeof(k.mask));
	return 0;
}

static int set_trap_action(const struct sigaction *sa)
{
	struct k_sigaction k = { (void *)sa->sa_sigaction,
				 (unsigned long)sa->sa_flags | SA_RESTORER,
				 (void *)sk_trap_restorer, 0 };

	if (under_tsan())
		return sigaction(SIGTRAP, sa, NULL);
	return syscall(SYS_rt_sigaction, SIGTRAP, &k, NULL, sizeof(k.mask));
}

/*
 * Make sure one of the library's entries is the handler installed.  Called
 * before the writes of every step: a program that replaced it (or reset
 * SIGTRAP to SIG_DFL) between two steps gets it back before the next INT3
 * goes in or comes out, and its own handler goes on the stack of levels.
 */
static int install_trap_handler(void)
{
	struct sigaction sa, cur;
	int k;

	if (get_trap_action(&cur))
		return -EACCES;
	k = entry_level(&cur);
	if (k < 0)	/* another copy's, which hands our traps to us */
		k = peer_level(&cur);
	if (k >= 0) {
		nr_levels = k + 1;	/* what stood above went away */
		return 0;
	}
	/*
	 * SA_NODEFER: a signal handler that interrupts this one may run a
	 * site that holds INT3; with SIGTRAP blocked the kernel would kill
	 * the process.  pass_down() blocks it for the program's handlers.
	 * SA_ONSTACK: on a thread's alternate stack where it has one, so that
	 * a thread short of stack at a site survives the signal frame.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_entries[displace(&cur)];
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (set_trap_action(&sa))
		return -EACCES;
	return 0;
}

/*
 * A thread that meets an INT3 with SIGTRAP blocked is killed, and the
 * process with it: the kernel unblocks the signal and resets it to SIG_DFL
 * before it delivers it.  Daemons block every signal in their workers.  So
 * before the first INT3 of an update goes in, every thread's blocked mask
 * is read from /proc/self/task/<tid>/stat, and the update is
 * refused, naming the thread, if one blocks SIGTRAP.  (SIG_IGN, SIG_DFL or
 * a program's handler in place of the library's are taken care of by
 * install_trap_handler() before every step; a thread short of stack for
 * the signal frame cannot be seen from here: see the rules for programs.)
 *
 * glibc blocks every signal for a moment inside some of its functions
 * (pthread_create() in the new thread and its creator, pthread_kill(),
 * raise(), posix_spawn()), with its own internal signals (32 and 33) in
 * the set: masks no program can set through glibc, and code that runs no
 * site.  Such a mask is passed over.  A thread that blocks SIGTRAP itself
 * is looked at again, 1 ms apart, and the update refused only if it never
 * had SIGTRAP unblocked meanwhile.  A thread that blocks SIGTRAP after the
 * check is not seen: the rule for programs stays.  Where /proc cannot be
 * read the check is skipped.
 */
#define BLOCKED_TRIES	50

/*
 * What a look at one thread's mask says:
 *
 *   MASK_TAKES_IT   SIGTRAP is not blocked
 *   MASK_BLOCKS_IT  it is, by the program's doing
 *   MASK_LIBC       it is, inside glibc (signals 32 and 33 blocked too)
 *   MASK_SANITIZER  every standard signal is, in a ThreadSanitizer process:
 *                   its own thread (see under_tsan())
 *   MASK_EMULATOR   under a user-mode emulator, a thread that runs none of
 *                   the program's code now (see emulated())
 *   MASK_GONE       the thread ended, or its files say nothing readable
 *   MASK_ERROR      the files could not be read for want of a resource
 *                   (errno says which): nothing can be told
 */
enum trap_mask {
	MASK_TAKES_IT, MASK_BLOCKS_IT, MASK_LIBC, MASK_SANITIZER,
	MASK_EMULATOR, MASK_GONE, MASK_ERROR
};

/* Whether a resource ran out: the look failed, not the thread. */
static bool out_of_resources(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/*
 * Read @tid's file @file into @buf; @val: where @field first appears.
 * MASK_TAKES_IT when it was read (a placeholder: the caller decides),
 * MASK_GONE or MASK_ERROR when not.
 */
static enum trap_mask task_field(int task, const char *tid, const char *file,
				 const char *field, char *buf, size_t size,
				 const char **val)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tid, file);
	fd = openat(task, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return out_of_resources(errno) ? MASK_ERROR : MASK_GONE;
	/* pread: should the number be another file's by now, it is only read. */
	n = pread(fd, buf, size - 1, 0);
	if (n < 0 && out_of_resources(errno)) {
		close(fd);
		return MASK_ERROR;
	}
	close(fd);
	if (n <= 0)
		return MASK_GONE;
	buf[n] = 0;
	*val = strstr(buf, field);
	return *val ? MASK_TAKES_IT : MASK_GONE;
}

/*
 * Whether the program runs under ThreadSanitizer, built into it or into
 * this library: its runtime defines __tsan_init, and starts a thread of
 * its own that blocks every standard signal (1 to 30, SIGSYS aside) and
 * runs no site.
 */
extern void __tsan_init(void) __attribute__((weak));

static bool under_tsan(void)
{
#ifdef __SANITIZE_THREAD__
	return true;
#else
	return __tsan_init != NULL;
#endif
}

/*
 * Whether the program runs under a user-mode emulator (qemu-i386,
 * qemu-x86_64): the kernel's threads are then the emulator's.  qemu
 * answers /proc/self/exe with the program, while the link the kernel keeps
 * for each thread (/proc/self/task/<tid>/exe, @tid in directory @task)
 * names the emulator itself: the two differ only under emulation.  Found
 * out once.
 *
 * There, each thread of the program is one host thread, whose host mask
 * qemu sets to the program's own mask whenever it goes back to running the
 * program's code, SIGSEGV and SIGBUS left out: it needs both delivered to
 * any thread that runs translated code (a fault in the program's memory, a
 * write to a page it translated).  A thread whose host mask blocks SIGBUS
 * runs none of the program's code at that moment: one of qemu's own
 * helpers (made blocking nearly every signal, and never running the
 * program's code), or a program thread inside qemu's signal bookkeeping
 * for the length of a system call, which sets its mask again before it
 * runs a site.  Such a thread is passed over, as one that blocks SIGTRAP
 * only after the check.
 */
static bool emulated(int task, const char *tid)
{
	static int ret = -1;
	char a[256], b[256], path[32];
	ssize_t n, m;

	if (ret >= 0)
		return ret;
	snprintf(path, sizeof(path), "%s/exe", tid);
	n = readlink("/proc/self/exe", a, sizeof(a));
	m = readlinkat(task, path, b, sizeof(b));
	if (n <= 0 || m <= 0)
		return false;	/* not known: looked at again next time */
	ret = n != m || memcmp(a, b, n);
	return ret;
}

/*
 * How thread @tid's mask stands, and its name in @name.  Its stat file has
 * the name and the low 31 bits of the mask (after the name, field 30 of
 * the rest, "blocked"), and costs less to make than its status file, read
 * only for the 64 bits of a mask that blocks SIGTRAP.
 */
static enum trap_mask trap_mask(int task, const char *tid, char *name,
				size_t len)
{
	const unsigned long long libc = 3ULL << 31;	/* signals 32, 33 */
	/*
	 * Signals 1 to 30 but SIGKILL and SIGSTOP, which no mask holds: the
	 * sanitizer runtimes' own threads block them all (gcc's libtsan the
	 * real-time ones and SIGSYS too, clang's not SIGSYS).
	 */
	const unsigned long long std = ((1ULL << 30) - 1) &
				       ~(1ULL << (SIGKILL - 1)) &
				       ~(1ULL << (SIGSTOP - 1));
	unsigned long long blk;
	enum trap_mask m;
	char buf[2048];
	const char *p, *q;
	int i;

	m = task_field(task, tid, "stat", "(", buf, sizeof(buf), &p);
	if (m != MASK_TAKES_IT)
		return m;
	q = strrchr(p, ')');	/* the name may hold ')' */
	if (!q)
		return MASK_GONE;
	snprintf(name, len, "%.*s", (int)(q - p - 1), p + 1);
	for (p = q + 2, i = 3; p && i < 32; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p)
		return MASK_GONE;
	if (!(strtoull(p, NULL, 10) & (1ULL << (SIGTRAP - 1))))
		return MASK_TAKES_IT;
	m = task_field(task, tid, "status", "\nSigBlk:", buf, sizeof(buf), &p);
	if (m != MASK_TAKES_IT)
		return m;
	blk = strtoull(p + 8, NULL, 16);
	if ((blk & (1ULL << (SIGBUS - 1))) && emulated(task, tid))
		return MASK_EMULATOR;
	if (blk & libc)
		return MASK_LIBC;
	return (blk & std) == std && under_tsan() ? MASK_SANITIZER :
						    MASK_BLOCKS_IT;
}

static bool shares_memory(pid_t pid);

/*
 * How a process outside the thread group that shares this memory stands
 * (a clone(CLONE_VM) without CLONE_THREAD: see sharers_take_traps()), in
 * the words of trap_mask(): MASK_BLOCKS_IT if a trap would kill it, as it
 * blocks SIGTRAP or has no handler for it (SIG_DFL, SIG_IGN: its
 * dispositions are its own, those it had when it was made); MASK_TAKES_IT
 * if it has a handler (the library's, inherited, or the program's own).
 * @dir is its /proc directory; its name goes in @name.
 */
static enum trap_mask sharer_mask(int unused, const char *dir, char *name,
				  size_t len)
{
	const unsigned long long libc = 3ULL << 31;	/* signals 32, 33 */
	const unsigned long long trap = 1ULL << (SIGTRAP - 1);
	unsigned long long blk, cgt;
	enum trap_mask m;
	const char *p, *q;
	char buf[2048];

	(void)unused;
	/* Looked at again: it may have called execve() or ended since. */
	if (!shares_memory(atoi(dir + strlen("/proc/"))))
		return MASK_GONE;
	m = task_field(AT_FDCWD, dir, "status", "\nSigBlk:", buf, sizeof(buf),
		       &p);
	if (m != MASK_TAKES_IT)
		return m;
	q = strstr(p, "\nSigCgt:");
	if (!q)
		return MASK_GONE;
	if (!strncmp(buf, "Name:\t", 6))
		snprintf(name, len, "%.*s", (int)strcspn(buf + 6, "\n"), buf + 6);
	blk = strtoull(p + 8, NULL, 16);
	cgt = strtoull(q + 8, NULL, 16);
	if (blk & libc)		/* inside glibc: vfork() for posix_spawn() */
		return MASK_LIBC;
	return (blk & trap) || !(cgt & trap) ? MASK_BLOCKS_IT : MASK_TAKES_IT;
}

/*
 * Whether @tid (read by @mask) keeps SIGTRAP from reaching a handler, by
 * its own doing: 1 if it does, 0 if not, -errno if its files could not be
 * read.
 */
static int keeps_sigtrap_blocked(enum trap_mask (*mask)(int, const char *,
							char *, size_t),
				 int task, const char *tid, char *name,
				 size_t len)
{
	const struct timespec ms = { 0, 1000000 };
	bool blocked = false;
	int i;

	for (i = 0; i < BLOCKED_TRIES; i++) {
		switch (mask(task, tid, name, len)) {
		case MASK_TAKES_IT:
		case MASK_SANITIZER:
		case MASK_EMULATOR:
		case MASK_GONE:
			return 0;
		case MASK_ERROR:
			return -errno;
		case MASK_BLOCKS_IT:
			blocked = true;
			break;
		case MASK_LIBC:
			break;
		}
		nanosleep(&ms, NULL);
	}
	return blocked;
}

/*
 * The check could not be made for want of a resource: the update is
 * refused with that error (nothing is written; the next change looks
 * again), never let through blind.
 */
static int cannot_look(int err, size_t nr_sites)
{
	sk_warn("reading /proc/self/task to see which threads block SIGTRAP: %s: nothing written to the %zu sites, key unchanged",
		strerror(-err), nr_sites);
	return err;
}

/*
 * 0, -EBUSY if thread @tid (in directory @task) blocks SIGTRAP, -errno if
 * that could not be found out; @self is the caller's thread id.
 */
static int thread_takes_traps(int task, const char *tid, pid_t self,
			      size_t nr_sites)
{
	char name[64] = "?";
	sigset_t cur;
	int ret;

	if (atoi(tid) == self) {	/* ours is at hand, and no passing state */
		if (pthread_sigmask(SIG_BLOCK, NULL, &cur) ||
		    !sigismember(&cur, SIGTRAP))
			return 0;
		trap_mask(task, tid, name, sizeof(name));	/* its name */
	} else {
		ret = keeps_sigtrap_blocked(trap_mask, task, tid, name,
					    sizeof(name));
		if (ret <= 0)
			return ret < 0 ? cannot_look(ret, nr_sites) : 0;
	}
	sk_warn("thread %s (%s) blocks SIGTRAP: it would be killed if it ran one of the %zu sites being changed while they hold INT3; nothing written, key unchanged (leave SIGTRAP unblocked in every thread: Documentation/static-keys.rst, rules for programs)",
		tid, name, nr_sites);
	return -EBUSY;
}

/*
 * Processes that share this memory outside the thread group: made with
 * clone(CLONE_VM) and without CLONE_THREAD (a raw clone(), vfork()).  They
 * run the sites, but are in no /proc/self/task and have signal
 * dispositions of their own, so the kernel's word decides: kcmp(KCMP_VM)
 * says whether a process has this memory.  Looked for among the children
 * of every thread and the parent; where the kernel says some task shares
 * it (unshare(CLONE_VM) fails with EINVAL) and the process has no other
 * thread, one not found there is still refused, unnamed.
 */
static bool shares_memory(pid_t pid)
{
	return pid > 0 && !syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0);
}

/* 0, -EBUSY if process @pid, which shares the memory, would die of a trap. */
static int sharer_takes_traps(pid_t pid, size_t nr_sites)
{
	char dir[32], name[64] = "?";
	int ret;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	ret = keeps_sigtrap_blocked(sharer_mask, -1, dir, name, sizeof(name));
	if (ret <= 0)
		return ret < 0 ? cannot_look(ret, nr_sites) : 0;
	sk_warn("process %d (%s) shares this memory (clone(CLONE_VM) without CLONE_THREAD) but has no SIGTRAP handler or blocks SIGTRAP: it would be killed if it ran one of the %zu sites being changed while they hold INT3; nothing written, key unchanged (Documentation/static-keys.rst, rules for programs)",
		(int)pid, name, nr_sites);
	return -EBUSY;
}

/* The children of thread @tid: each one that shares the memory is looked at. */
static int children_take_traps(int task, const char *tid, size_t nr_sites,
			       int *sharers)
{
	char buf[4096];
	const char *p;
	char *end;
	long pid;
	int err = 0;

	if (task_field(task, tid, "children", "", buf, sizeof(buf), &p) !=
	    MASK_TAKES_IT)
		return 0;	/* none, or no such file */
	for (; !err && (pid = strtol(p, &end, 10)) > 0; p = end)
		if (shares_memory(pid)) {
			++*sharers;
			err = sharer_takes_traps(pid, nr_sites);
		}
	return err;
}

/* After the threads: the parent, and a sharer the kernel knows of. */
static int others_take_traps(int threads, int sharers, size_t nr_sites)
{
	pid_t parent = getppid();
	int err;

	if (shares_memory(parent)) {
		sharers++;
		err = sharer_takes_traps(parent, nr_sites);
		if (err)
			return err;
	}
	if (sharers || threads != 1 || !unshare(CLONE_VM) || errno != EINVAL)
		return 0;
	sk_warn("a process outside this thread group shares this memory (clone(CLONE_VM) without CLONE_THREAD), and it is neither a child nor the parent (or kcmp() cannot say): it would be killed if it ran one of the %zu sites being changed while they hold INT3 without a SIGTRAP handler; nothing written, key unchanged (Documentation/static-keys.rst, rules for programs)",
		nr_sites);
	return -EBUSY;
}

/*
 * 0 if every thread of the process can take the update's traps.  A probe
 * of a write method is passed over: only the prober runs the probe site,
 * after the update.  A process without a readable /proc cannot be looked
 * at: the update goes on, and the first time that happens it is said,
 * since a thread that blocks SIGTRAP would then be killed unannounced.
 */
static int threads_take_traps(size_t nr_sites)
{
	int err = 0, threads = 0, sharers = 0;
	struct dirent *e;
	pid_t self;
	DIR *d;

	if (sk_text_poke_probing())
		return 0;
	self = gettid();	/* a system call: once, not once a thread */
	d = opendir("/proc/self/task");
	err = d ? 0 : errno;
	if (out_of_resources(err))
		return cannot_look(-err, nr_sites);
	if (!d) {
		SK_WARN_ONCE(true, "/proc/self/task cannot be read (%s): threads that block SIGTRAP cannot be seen, and one that ran a site being changed would be killed (Documentation/static-keys.rst, rules for programs)",
			     strerror(err));
		return 0;
	}
	while (!err && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		threads++;
		err = thread_takes_traps(dirfd(d), e->d_name, self, nr_sites);
		if (!err)
			err = children_take_traps(dirfd(d), e->d_name, nr_sites,
						  &sharers);
	}
	closedir(d);
	return err ? err : others_take_traps(threads, sharers, nr_sites);
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
static void step_bytes(const struct x86_site *s, int step, bool undo,
		       uint8_t *out)
{
	const uint8_t *tail = (step == 1 || (undo && step == 2)) ? s->old : s->insn;

	memcpy(out, tail, JUMP_LABEL_NOP_SIZE);
	if (undo && step == 1)
		out[0] = s->old[0];
	else if (step < 3 || undo)
		out[0] = INT3;
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

/* The sites [@i, @j) of the queue, written in @step together. */
struct group {
	size_t i, j;
	int step;
	bool undo;
	uintptr_t start;
};

/*
 * The bytes of a group's write: the code as it is now, the sites' bytes of
 * the step over it.  Called just before every attempt at the write; false
 * if every site holds its bytes already.
 */
static bool fill_group(uint8_t *buf, void *arg)
{
	const struct group *g = arg;
	size_t k, len = queue[g->j - 1].addr + JUMP_LABEL_NOP_SIZE - g->start;
	bool differs = false;

	if (g->j - g->i > 1 || g->start != queue[g->i].addr)
		memcpy(buf, (const void *)g->start, len);
	for (k = g->i; k < g->j; k++) {
		uint8_t *p = buf + (queue[k].addr - g->start);

		step_bytes(&queue[k], g->step, g->undo, p);
		differs = differs || memcmp(p, (const void *)queue[k].addr,
					    JUMP_LABEL_NOP_SIZE);
	}
	return differs;
}

/* Whether every site of the group holds its bytes of @buf: the read-back. */
static bool group_landed(const uint8_t *buf, void *arg)
{
	const struct group *g = arg;
	size_t k;

	for (k = g->i; k < g->j; k++)
		if (memcmp(buf + (queue[k].addr - g->start),
			   (const void *)queue[k].addr, JUMP_LABEL_NOP_SIZE))
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
	uintptr_t prev = queue[k - 1].addr + JUMP_LABEL_NOP_SIZE;

	if (queue[k].addr == prev)
		return mode != MERGE_NONE;
	return bridge && queue[k].addr - prev <= SK_BRIDGE_GAP &&
	       queue[k].addr + JUMP_LABEL_NOP_SIZE <= seg_end;
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
 * One step over the whole queue, in as few writes as the write method makes
 * worth it (a pwrite() costs about the same whatever its length, up to a
 * few kilobytes: Documentation/benchmarks.rst).  Within a write, only the
 * bytes the step changes change value: the code between sites is written
 * back as it was read just before (the race that leaves is described in
 * Documentation/static-keys.rst, "Writers of the same code").  A failed
 * write marks its sites as reached, so that undoing rewrites them: writing
 * a site's old bytes back is harmless.
 */
static uint8_t step_buf[SK_BRIDGE_SPAN];

static int write_step(int step, bool undo)
{
	enum merge_mode mode = sk_test_write_by_site ? MERGE_NONE : merge_mode;
	size_t max = mode == MERGE_BRIDGE ? sk_text_poke_bridge_max() : 0;
	size_t limit = max ? max : 64 * JUMP_LABEL_NOP_SIZE;
	struct group g = { .step = step, .undo = undo };
	const struct sk_fill f = { fill_group, group_landed, &g };
	uintptr_t seg_start, seg_end = 0, from, end;
	size_t i = 0, j, k;
	/*
	 * The first step forwards comes straight after the apply installed
	 * the handler: asking the kernel again would only repeat its answer.
	 * In a process that had no other thread when the batch began, only
	 * a signal handler of this thread could change SIGTRAP between two
	 * steps, which the rules for programs forbid: the apply's look is
	 * the batch's.  Undoing looks before every step: it is the rare path.
	 */
	int err = (step == 1 || sk_text_poke_alone()) && !undo ? 0 :
		  install_trap_handler();

	while (i < nr_queued && !err) {
		if (!in_step(&queue[i], step, undo)) {
			i++;
			continue;
		}
		if (max && queue[i].addr >= seg_end &&
		    sk_text_segment(queue[i].addr, &seg_start, &seg_end) < 0)
			seg_end = 0;
		from = seg_end ? page_start(queue[i].addr, seg_start) : queue[i].addr;
		for (j = i + 1; j < nr_queued && in_step(&queue[j], step, undo) &&
		     queue[j].addr + JUMP_LABEL_NOP_SIZE - from <= limit &&
		     joins(j, seg_end, mode, max != 0); j++)
			;
		end = queue[j - 1].addr + JUMP_LABEL_NOP_SIZE;
		g.start = write_start(queue[i].addr, end, from);
		g.i = i;
		g.j = j;
		err = sk_text_poke_fill(g.start, step_buf, end - g.start, &f);
		for (k = i; k < j; k++)
			queue[k].done = undo ? (uint8_t)(step - 1) : (uint8_t)step;
		if (err && undo)
			for (k = i; k < j; k++)
				queue[k].done = (uint8_t)step;
		i = j;
	}
	return err;
}

static int run_steps(void)
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
static bool undo_steps(void)
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

/* A stuck batch with room for @n sites (none in it yet), before @next. */
static struct batch *new_stuck_batch(size_t n, struct batch *next)
{
	struct batch *b = malloc(sizeof(*b));

	if (b)
		*b = (struct batch){ .sites = malloc(n * sizeof(*b->sites)),
				     .undo = true, .next = next };
	if (b && !b->sites) {
		free(b);
		b = NULL;
	}
	return b;
}

/*
 * Keep a batch that could not be brought back published, on a copy of its
 * own, until arch_jump_label_repair() brings its sites back.
 */
static void keep_emulating(void)
{
	struct batch *b = new_stuck_batch(nr_queued, stuck);

	if (!b) {
		sk_warn("out of memory keeping %zu half-written sites emulated: the process may die on one",
			nr_queued);
		return;
	}
	memcpy(b->sites, queue, nr_queued * sizeof(*b->sites));
	b->n = nr_queued;
	__atomic_store_n(&stuck, b, __ATOMIC_RELEASE);
	sk_stuck_sites += nr_queued;
}

/*
 * The queue becomes the live batch: a trapping thread finds its sites and
 * runs the new instruction, or with @undo the old one.
 */
static void publish(bool undo)
{
	the_batch = (struct batch){ .sites = queue, .n = nr_queued, .undo = undo };
	__atomic_store_n(&live, &the_batch, __ATOMIC_RELEASE);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);
}

/*
 * No handler run can still be reading a batch unlinked before this call.
 * The unlinking store and the load of @handlers here, the increment and
 * the loads of @live, @stuck and the links in the handler are all seq_cst:
 * in their one total order either the increment comes first and is seen
 * here, or the unlinking store does and the handler cannot find the batch.
 * (Not a fence after the store: the same on x86, but ThreadSanitizer does
 * not model fences, and gcc says so with -fsanitize=thread.)
 */
static void wait_for_handlers(void)
{
	while (__atomic_load_n(&handlers, __ATOMIC_SEQ_CST))
		;
}

static void withdraw(void)
{
	__atomic_store_n(&live, NULL, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&batch_gen, 1, __ATOMIC_RELEASE);
	wait_for_handlers();
}

/*
 * How far a stuck site is from its old instruction, read from the site:
 * its record may be older than its bytes (a write that failed may not have
 * landed; a site put back by one repair may have been changed since).  No
 * INT3 first: a whole instruction, not ours to touch (0).  INT3 over the
 * old tail: only the first byte to put back (1).  INT3 over anything else:
 * the old tail first (2).
 */
static uint8_t stuck_progress(const struct x86_site *s)
{
	const uint8_t *p = (const uint8_t *)s->addr;

	if (p[0] != INT3)
		return 0;
	return memcmp(p + 1, s->old + 1, JUMP_LABEL_NOP_SIZE - 1) ? 2 : 1;
}

/*
 * Undo a stuck batch again, through the queue (empty between updates),
 * writing only the sites that still hold INT3.  Returns how many it put
 * back, or -1 if some could not be.
 */
static long undo_stuck(struct batch *b)
{
	size_t i, n = 0;
	bool ok;

	for (nr_queued = 0; nr_queued < b->n; nr_queued++)
		if (sk_reserve((void **)&queue, &queue_cap, nr_queued,
			       sizeof(*queue))) {
			nr_queued = 0;
			return -1;
		}
	memcpy(queue, b->sites, b->n * sizeof(*queue));
	for (i = 0; i < nr_queued; i++) {
		queue[i].done = queue[i].orphan ? 0 : stuck_progress(&queue[i]);
		n += queue[i].done != 0;
	}
	if (!n) {
		nr_queued = 0;
		return 0;
	}
	if (install_trap_handler() ||
	    sk_text_poke_begin(queue, nr_queued, sizeof(*queue),
			       JUMP_LABEL_NOP_SIZE)) {
		nr_queued = 0;
		return -1;
	}
	publish(true);		/* its sites run their old instructions */
	ok = undo_steps();
	withdraw();
	sk_text_poke_end();
	nr_queued = 0;
	return ok ? (long)n : -1;
}

/* Put @nb (NULL: nothing) where @b was on the stuck list, and free @b. */
static void replace_stuck(struct batch **pp, struct batch *b, struct batch *nb)
{
	__atomic_store_n(pp, nb ? nb : b->next, __ATOMIC_SEQ_CST);
	sk_stuck_sites -= b->n - (nb ? nb->n : 0);
	wait_for_handlers();
	free(b->sites);
	free(b);
}

/*
 * Whether a stuck site stays on the list: an orphan stays (its bytes may
 * be gone: never read) unless a new object now lies over it, whose code
 * is fresh; any other site while it still holds INT3.
 */
static bool keep_stuck(const struct x86_site *s, uintptr_t start,
		       uintptr_t end, bool fresh)
{
	if (fresh && s->addr >= start && s->addr < end)
		return false;
	return s->orphan || stuck_progress(s);
}

/*
 * Keep of @b only the sites keep_stuck() keeps.  Returns the batch now in
 * its place, NULL if none is left (the next one took its place).
 */
static struct batch *prune_stuck(struct batch **pp, struct batch *b,
				 uintptr_t start, uintptr_t end, bool fresh)
{
	struct batch *nb = NULL;
	size_t i, keep = 0;

	for (i = 0; i < b->n; i++)
		keep += keep_stuck(&b->sites[i], start, end, fresh);
	if (keep == b->n)
		return b;
	if (keep) {
		nb = new_stuck_batch(keep, b->next);
		if (!nb) {
			sk_warn("out of memory dropping %zu sites from the emulated ones",
				b->n - keep);
			return b;
		}
		for (i = 0; i < b->n; i++)
			if (keep_stuck(&b->sites[i], start, end, fresh))
				nb->sites[nb->n++] = b->sites[i];
	}
	replace_stuck(pp, b, nb);
	return nb;
}

/*
 * Afterwards every site on the stuck list holds INT3 or is an orphan, so
 * its key refuses changes (arch_jump_label_decode(): -EBUSY) and no later
 * batch rewrites it behind the list's back; a site that holds a whole
 * instruction again is dropped, and a thread that trapped on it before
 * runs it again.
 *
 * An unregistered object's stuck sites become orphans: still emulated,
 * since its code may still run (at exit, the program's own), but never
 * read or written again.  They are dropped when an object registers over
 * their addresses: that code is freshly mapped.
 */
void arch_jump_label_repair(uintptr_t start, uintptr_t end,
			    enum sk_stuck_how how)
{
	struct batch **pp = &stuck, *b;
	size_t i;
	long n;

	while ((b = *pp)) {
		n = how == SK_STUCK_FRESH ? 0 : undo_stuck(b);
		if (n > 0)
			sk_warn("%ld sites left half-written by a failed change are back to their old instructions",
				n);
		b = prune_stuck(pp, b, start, end, how == SK_STUCK_FRESH);
		if (!b)
			continue;
		for (i = 0; how == SK_STUCK_ORPHAN && i < b->n; i++)
			if (b->sites[i].addr >= start && b->sites[i].addr < end)
				b->sites[i].orphan = true;
		pp = &b->next;
	}
}

/*
 * Undo a batch that failed with @err and say what happened: whether
 * anything had been written at all, and what could not be brought back
 * (those sites stay emulated).  Returns the error the batch reports.
 */
static int fail_batch(int err)
{
	char cause[256];
	size_t landed = sk_text_poke_landed();
	bool undone;

	snprintf(cause, sizeof(cause), "%s", sk_text_poke_why());
	err = sk_text_poke_status(err);
	undone = undo_steps();
	if (!sk_text_poke_probing())
		sk_warn("writing %zu sites failed (%s): %s", nr_queued, cause,
			!undone ? "some sites could not be restored: they stay emulated (they run their old instruction) until a later change brings them back, key unchanged" :
			landed ? "every site is back to its old instruction, key unchanged" :
			"nothing was written, key unchanged");
	if (!undone)
		keep_emulating();
	return err;
}

static int apply_queue(void)
{
	int err;

	if (!nr_queued)
		return 0;
	err = sk_sort_queue((void **)&queue, nr_queued, sizeof(*queue));
	if (!err)
		err = sk_text_poke_begin(queue, nr_queued, sizeof(*queue),
					 JUMP_LABEL_NOP_SIZE);
	if (err) {
		nr_queued = 0;
		return err;
	}
	/* sk_text_poke_begin() counted the threads: alone, none to look at. */
	if (!sk_text_poke_alone())
		err = threads_take_traps(nr_queued);
	if (!err)
		err = install_trap_handler();
	if (err) {
		sk_text_poke_end();
		nr_queued = 0;
		return err;
	}

	publish(false);
	err = run_steps();
	if (err)
		err = fail_batch(err);

	withdraw();
	sk_text_poke_end();
	if (!err)
		sk_count_sites_written(nr_queued);
	nr_queued = 0;
	return err;
}

/* Introspection: a site on the stuck list is emulated.  Called locked. */
bool arch_jump_label_stuck(uintptr_t addr)
{
	const struct batch *b;

	for (b = stuck; b; b = b->next)
		if (find_site(b, addr))
			return true;
	return false;
}
