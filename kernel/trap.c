// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * SIGTRAP ownership: the library's handler, kept installed over whatever
 * the program puts there, which hands every trap that is not a patching
 * protocol's breakpoint on to the program's own handlers.  The protocol
 * says which traps are its own through the callback it installs with.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <asm/trap_regs.h>
#include "internal.h"
#include "trap.h"

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

/* The protocol's answer, set at every install (always the same one). */
static sk_trap_claim_fn claim_fn;

/* The code our handler returns through (with its mark, see below). */
extern const char sk_trap_restorer[] __asm__("sk_trap_restorer");

/*
 * A thread executed a breakpoint, or was sent SIGTRAP.  The kernel reports
 * a breakpoint (x86's INT3) as SI_KERNEL, valgrind as TRAP_BRKPT; anything
 * else (raise(), kill) is never the protocol's.  A trap the protocol does
 * not claim goes to the disposition entry @level stands for.
 */
static void trap_handler(int level, int sig, siginfo_t *info, void *ucv)
{
	sk_trap_claim_fn claim = __atomic_load_n(&claim_fn, __ATOMIC_ACQUIRE);

	/* Ours saved and put back by the program may lack our restorer. */
	sk_trap_mend_return(info, ucv, sk_trap_restorer);
	if ((info->si_code == SI_KERNEL || info->si_code == TRAP_BRKPT) &&
	    claim && claim(ucv))
		return;
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

static bool peer_below(const void *entry, struct sk_trap_link *to);

static const struct sk_trap_peer trap_peer __asm__("sk_trap_peer")
	__attribute__((used)) = {
	.version = SK_TRAP_PEER_VERSION,
	.size = sizeof(struct sk_trap_peer),
	.below = peer_below,
};

/* Local symbols: each copy has its own. */
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

	if (sk_under_tsan())
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

	if (sk_under_tsan())
		return sigaction(SIGTRAP, sa, NULL);
	return syscall(SYS_rt_sigaction, SIGTRAP, &k, NULL, sizeof(k.mask));
}

/**
 * sk_trap_install() - make sure one of the library's entries is SIGTRAP's
 * handler, and that @claim is asked about every breakpoint trap.
 * @claim: the patching protocol's callback (the same at every call).
 *
 * Called before the writes of every step: a program that replaced the
 * handler (or reset SIGTRAP to SIG_DFL) between two steps gets it back
 * before the next INT3 goes in or comes out, and its own handler goes on
 * the stack of levels.  Returns 0, or -EACCES if SIGTRAP's disposition
 * cannot be read or set.
 */
int sk_trap_install(sk_trap_claim_fn claim)
{
	struct sigaction sa, cur;
	int k;

	__atomic_store_n(&claim_fn, claim, __ATOMIC_RELEASE);
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
