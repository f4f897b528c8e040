/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_sarif.c - libFuzzer target: the SARIF reader (sarif/sarif_read.c)
 *
 * `--sarif FILE` comes from static analysers run on the pull request's
 * code, so its JSON is untrusted. The input is the SARIF document; a
 * parsed one is made relative to a source root as cmd_scan does, and a
 * refused one must leave the candidate list unchanged.
 */
#include "sarif/sarif_read.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;

	if (sarif_candidates_parse((const char *)data, size, "fuzz.sarif",
				   &c) != 0 && c.nr != 0)
		abort();	/* a refused file adds nothing */
	sarif_candidates_relativize(&c, "/src/project");
	crs_error_clear();
	sarif_candidates_release(&c);
	return 0;
}
