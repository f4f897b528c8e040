/* SPDX-License-Identifier: Apache-2.0 */
/*
 * finding_builder.h - one finding added to a set, for the reporters' unit
 * tests (header only)
 *
 * The fields a reporter reads, from a handful of arguments: id, crash
 * type, security flag, location, harness, reproduction counts and
 * novelty; the signature, PoV path and description follow from them.
 * Frames are added one by one.
 */
#ifndef CRS_TESTS_UNIT_FINDING_BUILDER_H
#define CRS_TESTS_UNIT_FINDING_BUILDER_H

#include "sarif/finding.h"
#include "common/xalloc.h"

#include <string.h>

static inline struct finding *
finding_add(struct finding_set *s, const char *id, const char *type,
		    int sec, const char *file, int line, const char *func,
		    const char *harness, int rep, int att,
		    const char *novelty)
{
	struct finding *f = finding_set_add(s);

	f->id = xstrdup(id);
	f->crash_type = xstrdup(type);
	f->signature = xasprintf("%s\n%s", type, func ? func : "");
	f->is_security = sec;
	f->file = file ? xstrdup(file) : NULL;
	f->line = line;
	f->function = func ? xstrdup(func) : NULL;
	f->harness = xstrdup(harness);
	f->reproduced = rep;
	f->attempts = att;
	f->novelty = novelty ? xstrdup(novelty) : NULL;
	f->pov_path = xasprintf("povs/%s", id);
	f->description = xasprintf("ERROR: AddressSanitizer: %s", type);
	return f;
}

/* Append a frame (outermost last) to f's stack; file may be NULL. */
static inline struct finding_frame *
finding_add_frame(struct finding *f, const char *func, const char *file,
		  int line, int in_project)
{
	struct finding_frame *fr;

	f->stack = xrealloc(f->stack, (f->stack_nr + 1) * sizeof(*f->stack));
	fr = &f->stack[f->stack_nr++];
	memset(fr, 0, sizeof(*fr));
	fr->func = xstrdup(func);
	fr->file = file ? xstrdup(file) : NULL;
	fr->line = line;
	fr->in_project = in_project;
	return fr;
}

#endif
