/*
 * recparse.h - a tiny parser for "RP" record files: a magic, a version byte
 * and a list of type-length-value records. Example library that crs-ci's
 * demo and tests fuzz.
 */
#ifndef RECPARSE_H
#define RECPARSE_H

#include <stddef.h>
#include <stdint.h>

#define RP_MAX_RECORDS 64

enum {
	RP_OK = 0,
	RP_ERR_MAGIC = -1,	/* not an RP file, or unknown version */
	RP_ERR_TRUNCATED = -2,	/* a record runs past the end of the input */
	RP_ERR_TYPE = -3,	/* reserved record type 0 */
	RP_ERR_TOO_MANY = -4,	/* more than RP_MAX_RECORDS records */
	RP_ERR_NOMEM = -5
};

struct rp_record {
	uint8_t type;
	size_t len;
	uint8_t *value;		/* len bytes, then a NUL */
};

struct rp_doc {
	uint8_t version;
	size_t count;
	struct rp_record recs[RP_MAX_RECORDS];
};

/*
 * Parses buf[0..len) into doc. On RP_OK the caller owns doc and frees it
 * with rp_free(); on error doc holds nothing to free.
 */
int rp_parse(const uint8_t *buf, size_t len, struct rp_doc *doc);
void rp_free(struct rp_doc *doc);

/* The first record of the given type, or NULL. */
const struct rp_record *rp_find(const struct rp_doc *doc, uint8_t type);

/*
 * Writes "TYPE:VALUE" with non-printable bytes as \xNN into out (at most
 * outsz bytes, always NUL-terminated when outsz > 0). Returns the length
 * the full text needs, not counting the NUL.
 */
size_t rp_to_text(const struct rp_record *rec, char *out, size_t outsz);

/* A static string naming an RP_* code. */
const char *rp_strerror(int code);

#endif
