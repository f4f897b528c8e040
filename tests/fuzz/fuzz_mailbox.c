/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_mailbox.c - libFuzzer target: the sidecar's mailbox request parser
 * (runner/sidecar/sidecar.c, sidecar_request_parse)
 *
 * A CRS writes requests/<id>/request.txt into its mailbox; the
 * orchestrator parses it with the same function sidecar_request_read()
 * calls once the file is read (bounded, not followed). The input is the
 * file. An accepted request must hold only names the sidecar may use.
 * (libCRS's side reads back only a numeric retcode with strtol.)
 */
#include "runner/sidecar/sidecar.h"
#include "runner/sidecar/sidecar_wire.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sidecar_request rq;

	if (size > SIDECAR_REQUEST_MAX)	/* sidecar_request_read's cap */
		return 0;
	if (sidecar_request_parse(&rq, "fuzz-1", (const char *)data,
				  size) == 0) {
		if ((rq.harness[0] &&
		     !sidecar_name_ok(rq.harness, SIDECAR_HARNESS_MAX)) ||
		    (rq.builder[0] &&
		     !sidecar_name_ok(rq.builder, SIDECAR_HARNESS_MAX)) ||
		    (rq.rebuild_id != -1 &&
		     (rq.rebuild_id < 1 || rq.rebuild_id > 999999)) ||
		    (rq.kind == SIDECAR_POV && !rq.harness[0]))
			abort();
	}
	crs_error_clear();
	sidecar_request_release(&rq);
	return 0;
}
