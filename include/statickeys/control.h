/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The control channel, opt-in: another process of the same user (or root)
 * lists the keys and dynamic-debug sites, switches keys and runs queries,
 * as statickeys-keys(1) --set and --dyndbg do.  Documentation/control.rst
 * gives the protocol and the security model.
 */
#ifndef _STATICKEYS_CONTROL_H
#define _STATICKEYS_CONTROL_H

#include <statickeys/export.h>

SK_BEGIN_DECLS

struct static_key;

/**
 * statickeys_control_start() - open the control channel of this process.
 *
 * Binds the abstract Unix socket "@statickeys-control.<pid>" and starts the
 * one thread that serves it (named "sk-control", every signal blocked).
 * STATICKEYS_CONTROL=1 in the environment (read with secure_getenv()) calls
 * it when the main program has registered.  A process that never calls it
 * has neither the thread nor the socket.  The channel is not inherited: a
 * child of fork() has none until it calls this itself.
 *
 * Returns 0 (also when already open), or -errno: -EADDRINUSE (another
 * process holds the name), -EAGAIN (no thread), or what socket() or bind()
 * said.
 */
int statickeys_control_start(void);

/**
 * statickeys_control_private() - never change @key on a peer's request.
 * @key: the key (&k.key of a static_key_true/false)
 *
 * A private key is still listed; a request to change it is refused with
 * "error: key NAME is private".  Callable before or after
 * statickeys_control_start().  Returns 0, or -ENOMEM.
 */
int statickeys_control_private(struct static_key *key);

SK_END_DECLS

#endif /* _STATICKEYS_CONTROL_H */
