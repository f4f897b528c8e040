/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_sink.h - one harness's imported corpus, content-addressed and capped
 *
 * Every input read from a corpus source (an archive, a folder, a URL) is
 * written to crs-ci's own folder under the SHA-1 of its bytes, as
 * libFuzzer names its corpus, so the same input from two sources is
 * kept once. Caps: bytes per input, inputs per harness, bytes in all.
 */
#ifndef CRS_RUNNER_CORPUS_CORPUS_SINK_H
#define CRS_RUNNER_CORPUS_CORPUS_SINK_H

#include <stddef.h>

/* an input over this many bytes is passed over (as the cache's corpus) */
#define CORPUS_INPUT_MAX ((size_t)1 << 20)
/* inputs kept per harness, all sources together */
#define CORPUS_INPUTS_MAX 20000
/* bytes kept, all harnesses together (a scan's imports) */
#define CORPUS_BYTES_MAX ((size_t)1 << 30)

/* What one source added to a harness's corpus. */
struct corpus_count {
	size_t read;		/* inputs the source held (regular files) */
	size_t kept;		/* new ones written */
	size_t duplicate;	/* already there, from this or an earlier source */
	size_t too_big;		/* over CORPUS_INPUT_MAX */
	size_t over_cap;	/* not kept: CORPUS_INPUTS_MAX or the bytes cap */
	size_t not_regular;	/* links, devices, folders' oddities */
};

struct corpus_sink {
	int dirfd;		/* crs-ci's own folder (the caller's) */
	size_t inputs;		/* kept in dirfd so far */
	size_t *bytes_total;	/* shared by a scan's sinks; NULL: no cap */
	size_t bytes_max;	/* cap on *bytes_total */
};

/*
 * Start a sink writing into `dirfd`, which may already hold inputs
 * (counted, so the caps hold across sources). 0 or CRS_ERR.
 */
int corpus_sink_open(struct corpus_sink *k, int dirfd, size_t *bytes_total,
		     size_t bytes_max);

/* an input's name: 40 hex digits and the NUL */
#define CORPUS_NAME_SIZE 41

/* An input's name: the SHA-1 of its bytes in lowercase hex. */
void corpus_sink_name(char out[CORPUS_NAME_SIZE], const void *data,
		      size_t len);

/*
 * Add one input: written as <sha1 hex> (O_CREAT|O_EXCL|O_NOFOLLOW) unless
 * that name is there. Counted in *c (read, kept, duplicate, over_cap).
 * `added`, when not NULL, gets the name written, or "" when none was.
 * 0, or CRS_ERR on a write failure.
 */
int corpus_sink_add(struct corpus_sink *k, const void *data, size_t len,
		    struct corpus_count *c, char added[CORPUS_NAME_SIZE]);

#endif
