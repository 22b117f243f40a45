// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Many keys changed in one update: statickeys_batch_begin() and
 * statickeys_batch_commit() around ordinary key changes write all their
 * sites with the serializing steps of a single change.
 *	make batch && ./batch
 */
#include <stdio.h>

#include <linux/jump_label.h>
#include <statickeys/batch.h>

#define NKEYS 8
DEFINE_STATIC_KEY_ARRAY_FALSE(probe, NKEYS);

static __attribute__((noinline)) int probes_on(void)
{
	int n = 0;

	/* One site per key: static_branch_unlikely() wants a constant key. */
#define PROBE(i) if (static_branch_unlikely(&probe[i])) n++;
	PROBE(0) PROBE(1) PROBE(2) PROBE(3) PROBE(4) PROBE(5) PROBE(6) PROBE(7)
#undef PROBE
	return n;
}

int main(void)
{
	int i, err;

	statickeys_batch_begin();
	for (i = 0; i < NKEYS; i++)
		static_branch_enable(&probe[i]);
	err = statickeys_batch_commit();	/* the sites are written here */
	printf("%d of %d probes on after one commit, error %d\n",
	       probes_on(), NKEYS, err);
	return err != 0 || probes_on() != NKEYS;
}
