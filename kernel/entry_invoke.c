// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * The handler every entry ends in, and the program's hook on it.  Both
 * dispatchers (kernel/entry.c straight, arch/<arch>/entry/common.c after
 * the random offset) call down to it; it calls only the gate below.
 */
#include <statickeys/entry.h>

#include "entry.h"

static statickeys_entry_hook_t sk_hook;
static void *sk_hook_arg;

/*
 * sk_invoke_syscall() - the system-call handler every entry ends in: the
 * hook sees an address of this frame, below the random offset; then the
 * call itself, through the gate the filter lets pass.
 */
void sk_invoke_syscall(struct pt_regs *regs)
{
	statickeys_entry_hook_t fn = __atomic_load_n(&sk_hook, __ATOMIC_ACQUIRE);

	if (fn) {
		struct statickeys_entry_info info = {
			.nr = regs->nr,
			.regs = regs,
			.sp = __builtin_frame_address(0),
			.path = regs->path,
			.nested = regs->flags & SK_REGS_NESTED,
		};

		fn(&info, __atomic_load_n(&sk_hook_arg, __ATOMIC_RELAXED));
	}
	regs->ret = sk_syscall_gate(regs->nr, regs->args[0], regs->args[1],
				    regs->args[2], regs->args[3], regs->args[4],
				    regs->args[5]);
}

SK_EXPORT void statickeys_entry_set_hook(statickeys_entry_hook_t fn, void *arg)
{
	__atomic_store_n(&sk_hook_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&sk_hook, fn, __ATOMIC_RELEASE);
}
