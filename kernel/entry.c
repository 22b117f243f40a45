// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The entry path randomize_kstack_offset needs in a process: per-thread
 * entry stacks, the process's system calls trapped by seccomp into a SIGSYS
 * handler on them, the direct way in, and the per-entry hook.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/randomize_kstack.h>
#include <statickeys/entry.h>

#include "entry.h"

#ifndef SYS_SECCOMP
#define SYS_SECCOMP		1	/* si_code of a seccomp SIGSYS */
#endif

/* SECCOMP_RET_DATA of our filter, si_errno of our SIGSYS. */
#define SK_TRAP_TAG		0x5c4b

/* Room for the handler, the hook and the kernel's signal frame. */
#define SK_STACK_WORK		(64 * 1024)

/*
 * A thread's entry stack: its "kernel stack", a guard page at @base, the
 * register frame at @top.  Also the thread's sigaltstack once the trap is
 * installed, so a SIGSYS starts at the same place every time.  @depth counts
 * the entries running on the thread; @dead is set by the thread-exit
 * destructor so that a late entry does not map a new stack.
 */
struct sk_entry_thread {
	char *base;
	size_t size;
	char *top;
	unsigned int depth;
	bool altstack;
	bool dead;
	struct kstack_state *kstack;
};

/*
 * Thread-local storage of the default model, the one a library loaded late
 * (dlopen()) can have: every access may be a call (__tls_get_addr), so an
 * entry asks once (sk_this_thread()) and passes the thread's state down in
 * its register frame.
 */
static __thread struct sk_entry_thread sk_thread;

static inline struct sk_entry_thread *sk_this_thread(void)
{
	struct sk_entry_thread *t = &sk_thread;

	/* the compiler would compute the address again at every use */
	__asm__("" : "+r"(t));
	return t;
}

static unsigned int sk_path_now;	/* 0 until the trap is installed */
static pthread_mutex_t sk_install_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t sk_thread_key;
static pthread_once_t sk_thread_key_once = PTHREAD_ONCE_INIT;

/* ---- entry stacks ---- */

static bool sk_raw_failed(long ret)
{
	return ret < 0 && ret > -4096;
}

static size_t sk_stack_size(void)
{
	size_t page = getauxval(AT_PAGESZ);
	size_t sig = getauxval(AT_MINSIGSTKSZ);
	size_t size;

	if (!page)
		page = 4096;
	if (sig < (size_t)MINSIGSTKSZ)
		sig = MINSIGSTKSZ;
	size = SK_STACK_WORK + 4 * sig + KSTACK_OFFSET_MASK + 16;
	return page + ((size + page - 1) & ~(page - 1));
}

/* Thread exit: stop using the stack, then unmap it. */
static void sk_thread_exit(void *p)
{
	struct sk_entry_thread *t = p;
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (t->altstack)
		sk_raw_syscall(SYS_sigaltstack, &ss, NULL, 0, 0, 0, 0);
	sk_raw_syscall(SYS_munmap, t->base, t->size, 0, 0, 0, 0);
	t->base = NULL;
	t->altstack = false;
	t->dead = true;
}

static void sk_thread_key_create(void)
{
	pthread_key_create(&sk_thread_key, sk_thread_exit);
}

/* The part of the entry stack above the guard page. */
static stack_t sk_altstack_of(const struct sk_entry_thread *t)
{
	size_t page = getauxval(AT_PAGESZ);

	return (stack_t) {
		.ss_sp = t->base + page,
		.ss_size = t->top - t->base - page,
	};
}

static int sk_set_altstack(struct sk_entry_thread *t)
{
	stack_t ss = sk_altstack_of(t);
	long ret;

	ret = sk_raw_syscall(SYS_sigaltstack, &ss, NULL, 0, 0, 0, 0);
	if (sk_raw_failed(ret))
		return ret;
	t->altstack = true;
	return 0;
}

/*
 * Map the calling thread's entry stack, and make it the sigaltstack when
 * @alt.  Raw system calls only: this runs inside the SIGSYS handler too.
 * Every path runs this before a thread's first entry, so it also seeds the
 * thread's offset generator: the entries themselves never test for a seed.
 */
static int sk_thread_stack(struct sk_entry_thread *t, bool alt)
{
	size_t page = getauxval(AT_PAGESZ), size = sk_stack_size();
	long p;

	if (!t->base) {
#ifdef CONFIG_RANDOMIZE_KSTACK_OFFSET
		t->kstack = &kstack_state;
		if (!kstack_state.prng)
			kstack_state.prng = kstack_prng_seed();
#endif
		p = sk_raw_syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (sk_raw_failed(p))
			return p;
		sk_raw_syscall(SYS_mprotect, p, page ? page : 4096, PROT_NONE,
			       0, 0, 0);
		t->base = (char *)p;
		t->size = size;
		t->top = t->base + size;
		pthread_once(&sk_thread_key_once, sk_thread_key_create);
		pthread_setspecific(sk_thread_key, t);
	}
	return alt && !t->altstack ? sk_set_altstack(t) : 0;
}

static bool sk_on_entry_stack(const struct sk_entry_thread *t, const void *p)
{
	return (const char *)p >= t->base && (const char *)p < t->top;
}

/* ---- the handler and the hook ---- */

/*
 * Every entry, both paths: one site of randomize_kstack_offset, then a jump
 * to the randomizing dispatcher or straight to the handler.  With the key
 * off this costs the site alone: no frame, and no second site on the way
 * out (the arch dispatcher uses the unconditional halves of the macros).
 */
static void sk_dispatch(struct pt_regs *regs)
{
	if (randomize_kstack_offset_enabled()) {
		sk_do_syscall(regs);
		return;
	}
	sk_invoke_syscall(regs);
}

/* ---- the trap path ---- */

/*
 * SIGSYS from our filter.  The kernel has pushed its signal frame (the
 * saved registers) at the top of the entry stack; the struct pt_regs below
 * it is therefore at the same address on every entry of the thread.
 */
static void sk_sigsys(int sig, siginfo_t *info, void *ctx)
{
	struct sk_entry_thread *t = sk_this_thread();
	ucontext_t *uc = ctx;
	struct pt_regs regs;
	int saved_errno = errno;

	(void)sig;
	if (info->si_code != SYS_SECCOMP)
		return;				/* kill -SYS: nothing to do */
	if (info->si_errno != SK_TRAP_TAG) {
		regs.ret = -ENOSYS;		/* another filter's trap */
		sk_arch_regs_to_uc(&regs, uc);
		return;
	}
	/* Its first trap: map the stack now (and seed), use it from the next. */
	if (!t->base && !t->dead)
		sk_thread_stack(t, false);
	sk_arch_regs_from_uc(&regs, uc);
	regs.path = STATICKEYS_ENTRY_SECCOMP;
	regs.kstack = t->kstack;
	regs.flags = t->depth || !sk_on_entry_stack(t, &regs) ?
		     SK_REGS_NESTED : 0;
	t->depth++;
	sk_dispatch(&regs);
	t->depth--;
	sk_arch_regs_to_uc(&regs, uc);
	/*
	 * First trap of this thread: the next one starts on its own stack.
	 * sigreturn restores the sigaltstack saved in the frame, so the new
	 * one goes there rather than through sigaltstack().
	 */
	if (!t->altstack && !t->dead && !t->depth && t->base) {
		uc->uc_stack = sk_altstack_of(t);
		t->altstack = true;
	}
	errno = saved_errno;
}

/*
 * Calls that must not run inside a signal handler: the mask and the stack
 * are the handler's there (sigreturn would undo a mask change), and a new
 * thread or image would start from the handler's frame.
 */
static const long sk_refused[] = {
	SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_rt_sigsuspend,
	SYS_sigaltstack, SYS_clone, SYS_execve, SYS_execveat,
	SYS_restart_syscall,
#ifdef SYS_clone3
	SYS_clone3,
#endif
#ifdef SYS_fork
	SYS_fork,
#endif
#ifdef SYS_vfork
	SYS_vfork,
#endif
};

static bool sk_nr_refused(long nr)
{
	size_t i;

	if (nr < 0 || nr >= 4096)
		return true;
	for (i = 0; i < sizeof(sk_refused) / sizeof(sk_refused[0]); i++)
		if (nr == sk_refused[i])
			return true;
	return false;
}

#define SK_LD(field)							\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define SK_LD_OFF(off)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SK_RET(v)	BPF_STMT(BPF_RET | BPF_K, (v))

/*
 * The filter, in order: another ABI passes; the gate passes, known by the
 * address after its syscall instruction (both halves; little-endian); each
 * of @nrs jumps to the final TRAP; the rest passes.  Returns the length.
 */
static size_t sk_build_filter(struct sock_filter *f, const long *nrs,
			      size_t count)
{
	uint64_t gate = (uintptr_t)sk_syscall_gate_ret;
	size_t ip = offsetof(struct seccomp_data, instruction_pointer);
	size_t n = 0, i;

	f[n++] = (struct sock_filter)SK_LD(arch);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      sk_arch_audit, 1, 0);
	f[n++] = (struct sock_filter)SK_RET(SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)SK_LD_OFF(ip);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      (uint32_t)gate, 0, 3);
	f[n++] = (struct sock_filter)SK_LD_OFF(ip + 4);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      (uint32_t)(gate >> 32), 0, 1);
	f[n++] = (struct sock_filter)SK_RET(SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)SK_LD(nr);
	for (i = 0; i < count; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)nrs[i],
						      count - i, 0);
	f[n++] = (struct sock_filter)SK_RET(SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)SK_RET(SECCOMP_RET_TRAP | SK_TRAP_TAG);
	return n;
}

static int sk_load_filter(const long *nrs, size_t count)
{
	struct sock_filter f[STATICKEYS_ENTRY_MAX_SYSCALLS + 16];
	struct sock_fprog prog = { .filter = f };
	long ret;

	prog.len = sk_build_filter(f, nrs, count);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		      SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (ret < 0 && errno == ENOSYS)
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	if (ret < 0)
		return -errno;
	return ret ? -EAGAIN : 0;	/* > 0: a thread that could not sync */
}

/**
 * statickeys_entry_install() - trap these system calls into the entry
 * @nrs: system-call numbers
 * @count: how many, 1 to STATICKEYS_ENTRY_MAX_SYSCALLS
 *
 * See <statickeys/entry.h>.  The calling thread gets its entry stack now,
 * other threads on their first trapped call.
 *
 * Return: 0 or -errno; on failure nothing is trapped.
 */
SK_EXPORT int statickeys_entry_install(const long *nrs, size_t count)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_ONSTACK }, old;
	size_t i;
	int ret;

	if (!nrs || !count || count > STATICKEYS_ENTRY_MAX_SYSCALLS)
		return -EINVAL;
	for (i = 0; i < count; i++)
		if (sk_nr_refused(nrs[i]))
			return -EINVAL;
	pthread_mutex_lock(&sk_install_lock);
	ret = -EBUSY;
	if (sk_path_now)
		goto out;
	pthread_once(&sk_thread_key_once, sk_thread_key_create);
	ret = sk_thread_stack(&sk_thread, true);
	if (ret)
		goto out;
	sa.sa_sigaction = sk_sigsys;
	sigemptyset(&sa.sa_mask);
	ret = -errno;
	if (sigaction(SIGSYS, &sa, &old))
		goto out;
	ret = sk_load_filter(nrs, count);
	if (ret)
		sigaction(SIGSYS, &old, NULL);
	else
		__atomic_store_n(&sk_path_now, STATICKEYS_ENTRY_SECCOMP,
				 __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&sk_install_lock);
	return ret;
}

/* ---- the direct path ---- */

/**
 * statickeys_entry_syscall() - enter the dispatcher directly
 * @nr: system-call number
 * @a0: first argument, and so on up to @a5
 *
 * The register frame goes at the top of the thread's entry stack and the
 * dispatcher runs below it, as on the trap path.  Called while an entry of
 * the thread is running (from a hook or a signal handler), the frame stays
 * on the current stack and the entry is marked nested.
 *
 * Return: the kernel's result: a value, or -errno.
 */
SK_EXPORT long statickeys_entry_syscall(long nr, long a0, long a1, long a2,
					long a3, long a4, long a5)
{
	struct sk_entry_thread *t = sk_this_thread();
	struct pt_regs local, *regs = &local;
	bool top;

	if (!t->base && !t->dead)
		sk_thread_stack(t, false);
	top = t->base && !t->depth;
	if (top)
		regs = (struct pt_regs *)((uintptr_t)(t->top - sizeof(*regs)) &
					  ~(uintptr_t)15);
	/* field by field: a compound literal is zeroed first (rep stos) */
	regs->nr = nr;
	regs->args[0] = a0;
	regs->args[1] = a1;
	regs->args[2] = a2;
	regs->args[3] = a3;
	regs->args[4] = a4;
	regs->args[5] = a5;
	regs->ret = 0;
	regs->ip = (uintptr_t)__builtin_return_address(0);
	regs->path = STATICKEYS_ENTRY_DIRECT;
	regs->flags = top ? 0 : SK_REGS_NESTED;
	regs->kstack = t->kstack;
	t->depth++;
	if (top)
		sk_call_on_stack(sk_dispatch, regs, regs);
	else
		sk_dispatch(regs);
	t->depth--;
	return regs->ret;
}

/**
 * statickeys_entry_thread_init() - give the calling thread its entry stack
 *
 * Return: 0 or -errno.
 */
SK_EXPORT int statickeys_entry_thread_init(void)
{
	bool alt = __atomic_load_n(&sk_path_now, __ATOMIC_ACQUIRE) != 0;

	return sk_thread_stack(&sk_thread, alt);
}

/**
 * statickeys_entry_path() - the path system calls take now
 *
 * Return: STATICKEYS_ENTRY_SECCOMP or STATICKEYS_ENTRY_DIRECT.
 */
SK_EXPORT unsigned int statickeys_entry_path(void)
{
	unsigned int p = __atomic_load_n(&sk_path_now, __ATOMIC_ACQUIRE);

	return p ? p : STATICKEYS_ENTRY_DIRECT;
}

/**
 * statickeys_entry_path_name() - "seccomp", "direct" or "none"
 * @path: a STATICKEYS_ENTRY_* value
 *
 * Return: a constant string.
 */
SK_EXPORT const char *statickeys_entry_path_name(unsigned int path)
{
	switch (path) {
	case STATICKEYS_ENTRY_DIRECT:
		return "direct";
	case STATICKEYS_ENTRY_SECCOMP:
		return "seccomp";
	default:
		return "none";
	}
}
