/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The boot command line of a process: read from STATICKEYS_CMDLINE before
 * main(), or given by the program.  Syntax and order of events are in
 * Documentation/boot-params.rst.
 */
#ifndef _STATICKEYS_CMDLINE_H
#define _STATICKEYS_CMDLINE_H

#include <stddef.h>

#include <statickeys/export.h>

SK_BEGIN_DECLS

/* The environment variable read once, before main(). */
#define STATICKEYS_CMDLINE_ENV	"STATICKEYS_CMDLINE"

/**
 * statickeys_parse_cmdline() - replace the command line and apply it now
 * @cmdline: the new command line, kernel syntax; copied, never modified
 *
 * Runs the early_param() then the __setup() handlers of every registered
 * object, object by object in the order they registered; objects loaded
 * later get this command line when they register.  Keys defined _RO are
 * sealed by now and refuse to change.  Strings handed to handlers stay
 * valid until their object is unloaded.  Calls never interleave: one waits
 * for the other.  Handlers run with no lock of the library held and may
 * dlopen() and dlclose() (even their own object, which stays mapped until
 * its handlers are done).  Must not be called where the dynamic loader's
 * lock may be held: from a constructor or destructor of a dlopen()ed
 * object, or a dl_iterate_phdr() callback.
 *
 * Return: 0; -EINVAL if @cmdline is NULL; -ENOMEM (nothing applied);
 * -EDEADLK if called from a parameter handler.
 */
int statickeys_parse_cmdline(const char *cmdline);

/**
 * statickeys_cmdline_unknown() - list the words no parameter took
 * @fn: called once per unknown word, as "name=value" or "name", in
 *	command-line order, with no lock of the library held; may be NULL
 *	to only count.  A newer command line does not change the list being
 *	walked.
 * @arg: passed to @fn
 *
 * A word is known once an early_param() of a registered object matched
 * its name or a __setup() handler returned 1 for it; an object loaded
 * later may still take a word that is unknown now.  Words after "--"
 * are not ours and are not listed.
 *
 * Return: the number of unknown words.
 */
size_t statickeys_cmdline_unknown(void (*fn)(const char *word, void *arg),
				  void *arg);

/**
 * statickeys_cmdline() - copy out the current command line
 * @buf: destination, may be NULL when @size is 0
 * @size: size of @buf; the copy is truncated and always terminated
 *
 * Return: the length of the whole command line (like strlcpy()): a return
 * value >= @size means @buf was too small.
 */
size_t statickeys_cmdline(char *buf, size_t size);

SK_END_DECLS

#endif /* _STATICKEYS_CMDLINE_H */
