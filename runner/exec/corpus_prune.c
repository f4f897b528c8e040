/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_prune.c - libFuzzer's merge of each harness's corpus, into the store
 */
#include "runner/exec/corpus_prune.h"
#include "runner/exec/container.h"
#include "runner/exec/corpus_import.h"
#include "runner/corpus/corpus_read.h"
#include "runner/corpus/corpus_sink.h"
#include "runner/corpus/corpus_store.h"
#include "runner/scan/scan.h"
#include "runner/scan/time_shares.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <unistd.h>

/* the script's exit code when there is nothing to merge */
#define PRUNE_NO_INPUTS 10

/*
 * In the base runner image: every folder under /corpus merged into
 * /prune/min by the harness in libFuzzer's merge mode, which restarts
 * the child past an input that crashes or hangs and leaves it out.
 */
static const char prune_script[] =
	"h=\"$1\"; rss=\"$2\"\n"
	"mkdir -p /prune/min\n"
	"set --\n"
	"for d in /corpus/*; do\n"
	"  [ -d \"$d\" ] && set -- \"$@\" \"$d\"\n"
	"done\n"
	"n=$( [ $# -gt 0 ] && find \"$@\" -type f | wc -l || echo 0)\n"
	"echo \"$n\" >/prune/inputs\n"
	"[ \"$n\" -gt 0 ] || exit 10\n"
	"\"/out/$h\" -merge=1 -timeout=25 -rss_limit_mb=\"$rss\" /prune/min "
	"\"$@\" >/prune/merge.log 2>&1\n";

/* Merge `harness`'s corpus; its minimized inputs into the store. */
static int prune_one(struct scan *s, const char *harness, double timeout_s)
{
	char *dir = scan_work_path(s, "prune/%s", harness);
	char *io = xasprintf("%s/io", dir), *kept = xasprintf("%s/kept", dir);
	char *log = xasprintf("%s/container.log", dir);
	char *out = scan_work_path(s, "builds/%s/head/out", s->state.sanitizer);
	char *in = corpus_import_dir(s, harness), *min = NULL;
	struct strvec binds = STRVEC_INIT, args = STRVEC_INIT;
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	size_t n = 0;
	long before;
	int r, code = -1, iofd = -1, minfd = -1, keptfd = -1;

	if ((r = fs_remove_tree(dir)) != 0 || (r = fs_mkdir_p(dir)) != 0 ||
	    (r = fs_mkdir_new(io)) != 0 || (r = fs_mkdir_new(kept)) != 0)
		goto out;
	strvec_pushf(&binds, "%s:/out:ro", out);
	strvec_pushf(&binds, "%s:/prune", io);
	if (in)
		strvec_pushf(&binds, "%s:/corpus/0:ro", in);
	strvec_push(&args, "corpus-prune");
	strvec_push(&args, harness);
	strvec_pushf(&args, "%ld", infra_rss_limit_mb(&s->exec));
	r = container_run_script(&s->exec, prune_script, strvec_list(&args),
				 strvec_list(&binds), timeout_s, log, &code);
	if (r == CRS_ETIMEOUT) {
		log_warn("prune: %s: the merge took longer than %.0fs; the "
			 "store keeps its corpus", harness, timeout_s);
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0 || (r = fs_open_dir(&iofd, io)) != 0)
		goto out;
	before = fs_read_count_at(iofd, "inputs");
	if (code == PRUNE_NO_INPUTS) {
		log_info("prune: %s: no input to merge", harness);
		goto out;
	}
	if (code != 0) {
		log_warn("prune: %s: the merge exited %d (see %s/merge.log); "
			 "the store keeps its corpus", harness, code, io);
		goto out;
	}
	/* the container's folder: read by descriptor, renamed by content */
	min = xasprintf("%s/min", io);
	if ((r = fs_open_dir(&minfd, min)) != 0 ||
	    (r = fs_open_dir(&keptfd, kept)) != 0 ||
	    (r = corpus_sink_open(&k, keptfd, NULL, 0)) != 0 ||
	    (r = corpus_read_folder(minfd, min, &k, &c)) != 0 ||
	    (r = corpus_store_replace(s->corpus_store, harness, keptfd,
				      &n)) != 0)
		goto out;
	log_info("prune: %s: %ld input(s) merged into %zu (libFuzzer's "
		 "merge on the head build)", harness, before, k.inputs);
out:
	if (iofd >= 0)
		close(iofd);
	if (minfd >= 0)
		close(minfd);
	if (keptfd >= 0)
		close(keptfd);
	strvec_release(&binds);
	strvec_release(&args);
	free(dir);
	free(io);
	free(kept);
	free(log);
	free(out);
	free(in);
	free(min);
	return r;
}

int corpus_prune_all(struct scan *s)
{
	size_t n = s->state.harnesses_nr;
	int r = 0;

	if (!s->corpus_store)
		return crs_error_set(CRS_ENOTFOUND, "prune: the corpus store "
				     "could not be read: nothing to prune");
	for (size_t i = 0; i < n && r == 0; i++) {
		if (scan_interrupted(s))
			return crs_error_set(CRS_EINTR, "interrupted");
		r = prune_one(s, s->state.harnesses[i],
			      time_share_corpus(scan_remaining(s), n - i));
	}
	return r;
}
