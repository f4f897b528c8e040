/*
 * fuzz_text.c - libFuzzer harness for the printer alone: the first byte is
 * the record type, the second the output buffer size, the rest the value.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_record rec;
	size_t outsz;
	char *out;

	if (size < 2)
		return 0;
	rec.type = data[0];
	outsz = data[1];
	rec.len = size - 2;
	rec.value = malloc(rec.len + 1);
	if (rec.value == NULL)
		return 0;
	memcpy(rec.value, data + 2, rec.len);
	rec.value[rec.len] = '\0';
	out = malloc(outsz ? outsz : 1);
	if (out != NULL)
		(void)rp_to_text(&rec, out, outsz);
	free(out);
	free(rec.value);
	return 0;
}
