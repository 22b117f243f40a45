// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Drives Linux 6.1's lib/asn1_decoder.c, built unchanged by
 * test_kernel_files.sh: runs the query in argv[1] (if any), then decodes
 * one OCTET STRING with a two-op machine; the decoder's pr_debug() sites
 * print what the query switched on.  The result goes to stdout.
 */
#include <stdio.h>

#include <linux/dynamic_debug.h>
#include <linux/asn1_decoder.h>
#include <linux/asn1_ber_bytecode.h>

static int leaf(void *context, size_t hdrlen, unsigned char tag,
		const void *value, size_t vlen)
{
	(void)context;
	(void)hdrlen;
	(void)tag;
	(void)value;
	return (int)vlen;
}

int main(int argc, char **argv)
{
	static const unsigned char machine[] = {
		ASN1_OP_MATCH_ANY_ACT, 0, ASN1_OP_COMPLETE,
	};
	static const asn1_action_t actions[] = { leaf };
	static const struct asn1_decoder decoder = {
		.machine = machine,
		.machlen = sizeof(machine),
		.actions = actions,
	};
	static const unsigned char data[] = { 0x04, 0x01, 'A' };
	int matched = 0;

	if (argc > 1)
		matched = dynamic_debug_exec_queries(argv[1], NULL);
	printf("matched %d decoded %d\n", matched,
	       asn1_ber_decoder(&decoder, NULL, data, sizeof(data)));
	return 0;
}
