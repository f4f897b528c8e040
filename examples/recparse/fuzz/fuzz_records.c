/*
 * fuzz_records.c - libFuzzer harness: parse the input as an RP file, look
 * records up and print each one.
 */
#include <stddef.h>
#include <stdint.h>

#include "recparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_doc doc;
	char text[32];
	size_t i;

	if (rp_parse(data, size, &doc) != RP_OK)
		return 0;
	(void)rp_find(&doc, 1);
	for (i = 0; i < doc.count; i++)
		(void)rp_to_text(&doc.recs[i], text, sizeof(text));
	rp_free(&doc);
	return 0;
}
