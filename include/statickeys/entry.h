/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * An entry path for randomize_kstack_offset in a process: the process's own
 * system calls, trapped with seccomp into a handler on a per-thread entry
 * stack, or the same dispatcher called directly.  See
 * Documentation/randomize-kstack.rst.
 */
#ifndef _STATICKEYS_ENTRY_H
#define _STATICKEYS_ENTRY_H

#include <stddef.h>

#include <statickeys/export.h>

SK_BEGIN_DECLS

/* How an entry came in (struct statickeys_entry_info.path). */
#define STATICKEYS_ENTRY_DIRECT		1	/* statickeys_entry_syscall() */
#define STATICKEYS_ENTRY_SECCOMP	2	/* SECCOMP_RET_TRAP, SIGSYS */

/* At most this many system calls can be trapped. */
#define STATICKEYS_ENTRY_MAX_SYSCALLS	64

/*
 * What the hook sees, once per entry, from inside the handler: @sp is an
 * address in the handler's frame, below the random offset; @regs is the
 * saved register frame, above it.  @nested is set for an entry that started
 * while another one of the same thread was running (it is not at the top
 * of the entry stack) or on a thread's first trapped call, before the
 * thread had its entry stack.
 */
struct statickeys_entry_info {
	long nr;
	const void *regs;
	const void *sp;
	unsigned int path;
	unsigned int nested;
};

typedef void (*statickeys_entry_hook_t)(const struct statickeys_entry_info *info,
					void *arg);

/**
 * statickeys_entry_install() - trap these system calls into the entry
 * @nrs: system-call numbers (SYS_getpid, ...)
 * @count: how many, at most STATICKEYS_ENTRY_MAX_SYSCALLS
 *
 * Installs a SIGSYS handler and a seccomp filter (for every thread) that
 * traps @nrs, except from the library's own system-call instruction, which
 * the handler uses to make the call on the program's behalf.  Irreversible:
 * sets no_new_privs, and the filter outlives execve() (where the handler
 * does not: a trapped call in the new image kills it).  Signal and
 * process-control calls (rt_sigreturn, clone, execve, ...) are refused.
 *
 * Return: 0; -EINVAL for a refused or out-of-range number, -EBUSY if
 * installed already, or the error of prctl()/seccomp() (-EINVAL or -ENOSYS
 * where seccomp is unavailable, as under qemu-user): nothing is trapped
 * then, and statickeys_entry_syscall() is the way in.
 */
int statickeys_entry_install(const long *nrs, size_t count);

/**
 * statickeys_entry_syscall() - enter the dispatcher directly
 * @nr: system-call number
 * @a0: first argument, and so on up to @a5
 *
 * Switches to the calling thread's entry stack, saves the register frame at
 * its top and runs the same dispatcher as the trap path.
 *
 * Return: the kernel's result: a value, or -errno (errno is not touched).
 */
long statickeys_entry_syscall(long nr, long a0, long a1, long a2, long a3,
			      long a4, long a5);

/**
 * statickeys_entry_set_hook() - call @fn(@info, @arg) inside every entry
 * @fn: the hook, or NULL for none; it runs on the entry stack, with SIGSYS
 *	blocked on the trap path: it must not make trapped system calls
 * @arg: passed to @fn
 */
void statickeys_entry_set_hook(statickeys_entry_hook_t fn, void *arg);

/**
 * statickeys_entry_path() - the path system calls take now
 *
 * Return: STATICKEYS_ENTRY_SECCOMP once statickeys_entry_install()
 * succeeded, else STATICKEYS_ENTRY_DIRECT.
 */
unsigned int statickeys_entry_path(void);

/**
 * statickeys_entry_path_name() - "seccomp" or "direct"
 * @path: a STATICKEYS_ENTRY_* value
 *
 * Return: a constant string; "none" for anything else.
 */
const char *statickeys_entry_path_name(unsigned int path);

/**
 * statickeys_entry_thread_init() - give the calling thread its entry stack
 *
 * Optional: a thread gets it on its first entry otherwise (that first
 * trapped call then runs on the thread's own stack, marked @nested).
 *
 * Return: 0 or -errno.
 */
int statickeys_entry_thread_init(void);

SK_END_DECLS

#endif /* _STATICKEYS_ENTRY_H */
