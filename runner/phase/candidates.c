/* SPDX-License-Identifier: Apache-2.0 */
/*
 * candidates.c - the --sarif bug candidates, confirmed or not, after triage
 *
 * Each --sarif file is read again (the phase may run alone), its paths
 * made relative to the scanned checkout or to the source's path in the
 * target image (where analysers run by a build step see it), and every
 * result is marked against the proved findings: a candidate is confirmed
 * only when a reproduced crash passes its location (sarif_read.h).
 */
#include "runner/phase/phase.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "sarif/finding.h"
#include "sarif/sarif_read.h"
#include "common/log.h"

#include <stdlib.h>

int phase_triage_candidates(struct scan *s, struct finding_set *fs)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;
	char *real = NULL;
	size_t confirmed;
	int r = 0;

	for (size_t i = 0; i < s->opts->sarifs_nr && r == 0; i++)
		r = sarif_candidates_load(s->opts->sarifs[i], &c);
	if (r != 0 || !s->opts->sarifs_nr)
		goto out;
	sarif_candidates_relativize(&c, s->source_dir);
	if ((real = realpath(s->source_dir, NULL)))
		sarif_candidates_relativize(&c, real);
	sarif_candidates_relativize(&c, s->state.repo_path);
	for (size_t i = 0; i < fs->candidates_nr; i++)
		finding_candidate_release(&fs->candidates[i]);
	free(fs->candidates);
	fs->candidates = c.v;
	fs->candidates_nr = c.nr;
	fs->candidates_alloc = c.alloc;
	c = (struct sarif_candidates)SARIF_CANDIDATES_INIT; /* transferred */
	confirmed = sarif_candidates_mark(fs);
	log_info("triage: %zu of %zu SARIF candidate(s) confirmed by a PoV",
		 confirmed, fs->candidates_nr);
out:
	sarif_candidates_release(&c);
	free(real);
	return r;
}
