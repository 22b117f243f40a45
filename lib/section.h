/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Tables the linker gathers, the one way a layer of the library hands a
 * layer below what it needs from above without being called by name
 * (scripts/layers): the writer's hooks (kernel/internal.h), the object
 * hooks (kernel/object_hooks.h) and the fork and exit handlers
 * (lib/lifecycle.h).
 *
 * Each entry sits in a section of the object file that declares it, so a
 * static link that pulls the file in gets the entry with it, and a file
 * not linked in has none; __sk_retain keeps it from --gc-sections.  The
 * table is read between the linker's __start_ and __stop_ symbols, weak
 * (a link with no entry at all has neither: the table is empty) and
 * hidden (this module's own section, never another object's).  Section
 * names must be C identifiers for the linker to make those symbols.
 */
#ifndef _STATICKEYS_LIB_SECTION_H
#define _STATICKEYS_LIB_SECTION_H

#include <statickeys/sections.h>

/* Define entry @name of table @sect; an initializer follows. */
#define SK_SECTION_ENTRY(type, sect, name)				\
	static type const name __sk_retain				\
	__attribute__((section(#sect), aligned(__alignof__(type))))

/* Declare table @sect of @type entries, for sk_section_*() below. */
#define SK_SECTION_TABLE(type, sect)					\
	extern type const __start_##sect[]				\
		__attribute__((weak, visibility("hidden")));		\
	extern type const __stop_##sect[]				\
		__attribute__((weak, visibility("hidden")))

#define sk_section_start(sect)	(&__start_##sect[0])
#define sk_section_stop(sect)	(&__stop_##sect[0])
#define sk_section_empty(sect)	(sk_section_start(sect) == sk_section_stop(sect))

/* Each entry of table @sect, in link order. */
#define sk_section_for_each(p, sect)					\
	for ((p) = sk_section_start(sect); (p) < sk_section_stop(sect); (p)++)

#endif /* _STATICKEYS_LIB_SECTION_H */
