/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_json.c - JSON strings, messages and URI references for SARIF
 * from hostile text: repaired to UTF-8, percent-encoded
 */
#include "sarif/sarif_json.h"
#include "common/buf.h"
#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

/* A JSON string from untrusted text: repaired to UTF-8, never NULL. */
json_t *sarif_jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *c;

	if (j)
		return j;
	c = utf8_clean(s, strlen(s), strlen(s));
	j = json_string(c);
	free(c);
	return j;
}

json_t *sarif_jmsg(const char *text)
{
	return json_pack("{s:o}", "text", sarif_jstr(text));
}

/* Percent-encode a path for a URI reference (RFC 3986 pchar and '/'). */
char *sarif_uri_escape(const char *path)
{
	static const char ok[] = "-._~!$&'()*+,;=:@/";
	struct buf b = BUF_INIT;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || (*p && strchr(ok, *p)))
			buf_addch(&b, (char)*p);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_detach(&b, NULL);
}
