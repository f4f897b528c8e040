/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cms_seal.h - evidence encrypted to the maintainers: OpenSSL CMS
 *
 * A private finding's PoV is sealed as CMS enveloped data (RFC 5652,
 * AES-256-CBC content key wrapped to each recipient certificate's RSA or
 * EC key), PEM-armoured, so a maintainer opens it with the standard tool:
 *   openssl cms -decrypt -inform PEM -in pov.cms -inkey key.pem -out pov
 * or with `crs-ci decrypt --key key.pem pov.cms`. Built on libcrypto.
 */
#ifndef CRS_RUNNER_REPORT_CMS_SEAL_H
#define CRS_RUNNER_REPORT_CMS_SEAL_H

#include <stddef.h>

struct buf;

#define CMS_SEAL_INPUT_MAX ((size_t)64 << 20)	/* PoV or sealed file */

/*
 * Check that `pem` (named `what` in messages, e.g. "CRS_CI_DISCLOSE_KEY")
 * holds one or more PEM X.509 certificates whose keys can receive CMS
 * (RSA or EC). 0, or CRS_EINPUT "<what>: <why>" (not PEM, no
 * certificate, an unusable key). Never prints the value.
 */
int cms_recipients_check(const char *pem, const char *what);

/*
 * Append to `out` the PEM CMS ("-----BEGIN CMS-----") of `len` bytes at
 * `data`, enveloped with AES-256-CBC for every certificate in `pem`.
 * 0, or CRS_EINPUT (bad recipients, as above) or CRS_ERR (libcrypto
 * failed); `out` is unchanged on error.
 */
int cms_seal(struct buf *out, const void *data, size_t len, const char *pem,
	     const char *what);

/*
 * Decrypt the CMS enveloped data `in` (PEM or DER, detected) with the
 * PEM private key `key_pem` (every recipient is tried) into `out`.
 * `what` names the input in messages. 0, CRS_EINPUT (not CMS enveloped
 * data, a malformed key, a key that opens no recipient) or CRS_ERR
 * (libcrypto failed); `out` is unchanged on error.
 */
int cms_open(struct buf *out, const void *in, size_t len, const char *key_pem,
	     const char *what);

#endif
