/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The keys of the introspection tests' objects, and what the tests check
 * of a walk: one record per key, found by name.
 */
#ifndef _SELFTESTS_INTRO_H
#define _SELFTESTS_INTRO_H

#include <limits.h>
#include <string.h>
#include <linux/jump_label.h>
#include <statickeys/introspect.h>

/* libintro_dso.so, loaded at start-up: one site there, one in the program. */
DECLARE_STATIC_KEY_FALSE(intro_dso_key);
int intro_dso_site(void);
/*
 * The file is stripped: intro_dso_key is named from .dynsym, and its static
 * key, behind intro_hidden_site(), has no name at all.
 */
int intro_hidden_site(void);
/* libintro_late.so, dlopen()ed: intro_late_key, TRUE, one site there. */
int intro_late_site(void);
/* Where test_introspect --serve stops for a debugger. */
void intro_served(void);

struct intro_seen {
	const char *name;
	bool found;
	unsigned int flags;
	int count;
	bool enabled;
	size_t nr_sites;
	size_t wrong_sites;	/* not the instruction count and polarity say */
	size_t emulated;
	char object[PATH_MAX];
	char table[8];
};

/* Expected instruction of a site: the jump when on XOR likely. */
static inline int intro_record(const struct statickeys_key_info *k,
			       struct intro_seen *seen, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct intro_seen *s = &seen[i];

		if (!k->name || strcmp(k->name, s->name))
			continue;
		s->found = true;
		s->flags = k->flags;
		s->count = k->count;
		s->enabled = k->enabled;
		s->nr_sites = k->nr_sites;
		s->wrong_sites = s->emulated = 0;
		for (j = 0; j < k->nr_sites; j++) {
			enum statickeys_site_state want =
				k->enabled != k->sites[j].likely ?
				STATICKEYS_SITE_JMP : STATICKEYS_SITE_NOP;

			s->emulated += k->sites[j].state == STATICKEYS_SITE_EMULATED;
			s->wrong_sites += k->sites[j].state != want;
		}
		snprintf(s->object, sizeof(s->object), "%s", k->object);
		snprintf(s->table, sizeof(s->table), "%s", k->name_table);
	}
	return 0;
}

#endif /* _SELFTESTS_INTRO_H */
