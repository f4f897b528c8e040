/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_crash.c - libFuzzer target: the sanitizer, libFuzzer and Jazzer
 * crash-report parser (sarif/crash.c)
 *
 * The text a harness printed comes out of a container and is hostile. The
 * input is that text; a parsed report is turned into its crash state,
 * signature and per-frame facts as triage does, and crash.h's promise
 * that every string of a report is clean UTF-8 is checked.
 */
#include "sarif/crash.h"
#include "common/utf8.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_clean(const char *s)
{
	if (s && !utf8_is_clean(s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crash_report *r = NULL;
	char *state = NULL, *sig = NULL, id[17];

	if (crash_report_parse(&r, (const char *)data, size) != 0) {
		crs_error_clear();
		return 0;
	}
	check_clean(r->sanitizer);
	check_clean(r->kind);
	check_clean(r->crash_type);
	check_clean(r->access);
	check_clean(r->description);
	if (r->frames_nr > CRASH_FRAMES_MAX || r->top_frames_nr > r->frames_nr)
		abort();
	for (size_t i = 0; i < r->frames_nr; i++) {
		const struct crash_frame *f = &r->frames[i];
		char *jp;

		check_clean(f->func);
		check_clean(f->file);
		check_clean(f->module);
		(void)crash_frame_in_project(f, "/src/tiny/");
		(void)crash_frame_ignored(f);
		jp = crash_frame_java_path(f);
		free(jp);
	}
	state = crash_state(r, "fuzz_parse");
	sig = crash_signature(r, "fuzz_parse");
	crash_signature_id(id, sig);
	free(state);
	free(sig);
	crash_report_free(r);
	return 0;
}
