/*
 * recparse.c - parse and print "RP" record files.
 *
 * Format: "RP", a version byte (1 or 2), then records until the end of the
 * input, each a type byte (1..255), a length byte and that many value bytes.
 * Version 2 adds extended records for values longer than 255 bytes: a type
 * byte with RP_EXTENDED set, the total value length (2 bytes, big-endian),
 * then segments (a length byte and that many bytes) up to an empty segment.
 */
#include "recparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Reads an extended record's segments into rec->value, which parse_record
 * allocated for `total` bytes and a NUL; *pos is at the first segment: a
 * length byte and that many bytes, up to an empty segment. Returns RP_OK,
 * or RP_ERR_TRUNCATED with rec->value freed.
 */
static int parse_extended(const uint8_t *buf, size_t len, size_t *pos,
			  size_t total, struct rp_record *rec)
{
	size_t p = *pos;
	size_t off = 0;

	memset(rec->value, 0, total + 1);	/* zeroed: NUL-terminated */
	for (;;) {
		size_t seglen;

		if (p >= len)
			goto truncated;
		seglen = buf[p++];
		if (seglen == 0)
			break;
		if (len - p < seglen)
			goto truncated;
		memcpy(rec->value + off, buf + p, seglen);
		off += seglen;
		p += seglen;
	}
	rec->len = off;
	*pos = p;
	return RP_OK;
truncated:
	free(rec->value);
	rec->value = NULL;
	return RP_ERR_TRUNCATED;
}

static int parse_record(const uint8_t *buf, size_t len, size_t *pos,
			uint8_t version, struct rp_record *rec)
{
	size_t p = *pos;
	size_t vlen;
	int extended;

	if (len - p < 2)
		return RP_ERR_TRUNCATED;
	rec->type = buf[p++];
	if (rec->type == 0)
		return RP_ERR_TYPE;
	extended = version >= 2 && (rec->type & RP_EXTENDED);
	if (extended) {
		if (len - p < 2)
			return RP_ERR_TRUNCATED;
		vlen = (size_t)buf[p] << 8 | buf[p + 1];
		p += 2;
	} else {
		vlen = buf[p++];
		if (len - p < vlen)
			return RP_ERR_TRUNCATED;
	}
	rec->value = malloc(vlen + 1);
	if (rec->value == NULL)
		return RP_ERR_NOMEM;
	if (extended) {
		*pos = p;
		return parse_extended(buf, len, pos, vlen, rec);
	}
	memcpy(rec->value, buf + p, vlen);
	rec->value[vlen] = '\0';
	rec->len = vlen;
	*pos = p + vlen;
	return RP_OK;
}

int rp_parse(const uint8_t *buf, size_t len, struct rp_doc *doc)
{
	size_t pos = 3;
	int rc;

	memset(doc, 0, sizeof(*doc));
	if (len < 3 || buf[0] != 'R' || buf[1] != 'P')
		return RP_ERR_MAGIC;
	doc->version = buf[2];
	if (doc->version != 1 && doc->version != 2)
		return RP_ERR_MAGIC;
	while (pos < len) {
		if (doc->count == RP_MAX_RECORDS) {
			rc = RP_ERR_TOO_MANY;
			goto fail;
		}
		rc = parse_record(buf, len, &pos, doc->version,
				  &doc->recs[doc->count]);
		if (rc != RP_OK)
			goto fail;
		doc->count++;
	}
	return RP_OK;
fail:
	rp_free(doc);
	return rc;
}

void rp_free(struct rp_doc *doc)
{
	size_t i;

	for (i = 0; i < doc->count; i++) {
		free(doc->recs[i].value);
		doc->recs[i].value = NULL;
	}
	doc->count = 0;
}

const struct rp_record *rp_find(const struct rp_doc *doc, uint8_t type)
{
	size_t i;

	for (i = 0; i < doc->count; i++)
		if (doc->recs[i].type == type)
			return &doc->recs[i];
	return NULL;
}

/* Appends the bytes of s to out at *n, counting what does not fit too. */
static void put(char *out, size_t outsz, size_t *n, const char *s, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++, (*n)++)
		if (*n + 1 < outsz)
			out[*n] = s[i];
}

size_t rp_to_text(const struct rp_record *rec, char *out, size_t outsz)
{
	char tmp[8];
	size_t n = 0;
	size_t i;
	int k;

	k = snprintf(tmp, sizeof(tmp), "%u:", (unsigned)rec->type);
	put(out, outsz, &n, tmp, (size_t)k);
	for (i = 0; i < rec->len; i++) {
		uint8_t c = rec->value[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			put(out, outsz, &n, (const char *)&c, 1);
		} else {
			k = snprintf(tmp, sizeof(tmp), "\\x%02x", c);
			put(out, outsz, &n, tmp, (size_t)k);
		}
	}
	if (outsz > 0)
		out[n < outsz ? n : outsz - 1] = '\0';
	return n;
}

const char *rp_strerror(int code)
{
	switch (code) {
	case RP_OK: return "ok";
	case RP_ERR_MAGIC: return "not an RP file";
	case RP_ERR_TRUNCATED: return "truncated record";
	case RP_ERR_TYPE: return "reserved record type";
	case RP_ERR_TOO_MANY: return "too many records";
	case RP_ERR_NOMEM: return "out of memory";
	}
	return "unknown error";
}
