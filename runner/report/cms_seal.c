/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cms_seal.c - evidence encrypted to the maintainers: OpenSSL CMS
 *
 * libcrypto's CMS_encrypt()/CMS_decrypt(), the same code path as
 * `openssl cms -encrypt -aes256` and `-decrypt`. Keys and plaintext are
 * never logged; error messages carry libcrypto's reason only.
 */
#include "runner/report/cms_seal.h"
#include "common/buf.h"
#include "common/error.h"

#include <openssl/bio.h>
#include <openssl/pem.h>	/* before cms.h: it declares PEM_*_CMS */
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <string.h>

/* libcrypto's last reason, or `dflt`; clears its queue. */
static const char *ssl_reason(char *out, size_t n, const char *dflt)
{
	unsigned long e = ERR_peek_last_error();

	if (e)
		ERR_error_string_n(e, out, n);
	else
		snprintf(out, n, "%s", dflt);
	ERR_clear_error();
	return out;
}

/* The certificates of `pem` into a new stack; CRS_EINPUT when none. */
static int load_recipients(STACK_OF(X509) **out, const char *pem,
			   const char *what)
{
	STACK_OF(X509) *certs = NULL;
	BIO *bio = NULL;
	X509 *x;
	char why[256];
	int r = CRS_EINPUT;

	*out = NULL;
	if (!pem || !*pem)
		return crs_error_set(CRS_EINPUT, "%s: empty (want a PEM X.509 "
				     "certificate)", what);
	if (!strstr(pem, "-----BEGIN CERTIFICATE-----"))
		return crs_error_set(CRS_EINPUT, "%s: no \"-----BEGIN "
				     "CERTIFICATE-----\" (want a PEM X.509 "
				     "certificate, not a key or a path)",
				     what);
	if (!(bio = BIO_new_mem_buf(pem, -1)) ||
	    !(certs = sk_X509_new_null())) {
		r = crs_error_set(CRS_ERR, "%s: out of memory", what);
		goto out;
	}
	ERR_clear_error();
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
		EVP_PKEY *k = X509_get0_pubkey(x);
		int id = k ? EVP_PKEY_base_id(k) : 0;

		if (id != EVP_PKEY_RSA && id != EVP_PKEY_EC) {
			X509_free(x);
			r = crs_error_set(CRS_EINPUT, "%s: certificate %d: its "
					  "key is not RSA or EC, which CMS "
					  "key transport or agreement needs",
					  what, sk_X509_num(certs) + 1);
			goto out;
		}
		sk_X509_push(certs, x);
	}
	/* the end of the PEM stream is "no start line"; anything else is
	 * a broken certificate */
	if (ERR_GET_REASON(ERR_peek_last_error()) != PEM_R_NO_START_LINE ||
	    !sk_X509_num(certs)) {
		r = crs_error_set(CRS_EINPUT, "%s: not a valid PEM certificate: "
				  "%s", what, ssl_reason(why, sizeof(why),
							 "no certificate"));
		goto out;
	}
	ERR_clear_error();
	*out = certs;
	certs = NULL;
	r = 0;
out:
	sk_X509_pop_free(certs, X509_free);
	BIO_free(bio);
	return r;
}

int cms_recipients_check(const char *pem, const char *what)
{
	STACK_OF(X509) *certs = NULL;
	int r = load_recipients(&certs, pem, what);

	sk_X509_pop_free(certs, X509_free);
	return r;
}

/* Append what `bio` (a memory BIO) holds to `out`. */
static void bio_into(struct buf *out, BIO *bio)
{
	char *p = NULL;
	long n = BIO_get_mem_data(bio, &p);

	if (n > 0)
		buf_add(out, p, (size_t)n);
}

int cms_seal(struct buf *out, const void *data, size_t len, const char *pem,
	     const char *what)
{
	STACK_OF(X509) *certs = NULL;
	BIO *in = NULL, *pemout = NULL;
	CMS_ContentInfo *cms = NULL;
	char why[256];
	int r;

	if (len > CMS_SEAL_INPUT_MAX)
		return crs_error_set(CRS_EINPUT, "%s: %zu bytes to seal, more "
				     "than %zu", what, len, CMS_SEAL_INPUT_MAX);
	if ((r = load_recipients(&certs, pem, what)) != 0)
		return r;
	r = CRS_ERR;
	if (!(in = BIO_new_mem_buf(data, (int)len)) ||
	    !(pemout = BIO_new(BIO_s_mem())))
		goto fail;
	cms = CMS_encrypt(certs, in, EVP_aes_256_cbc(), CMS_BINARY);
	if (!cms || !PEM_write_bio_CMS(pemout, cms))
		goto fail;
	bio_into(out, pemout);
	r = 0;
	goto out;
fail:
	r = crs_error_set(CRS_ERR, "%s: cannot encrypt: %s", what,
			  ssl_reason(why, sizeof(why), "libcrypto failed"));
out:
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	BIO_free(pemout);
	sk_X509_pop_free(certs, X509_free);
	return r;
}

int cms_open(struct buf *out, const void *in, size_t len, const char *key_pem,
	     const char *what)
{
	BIO *kbio = NULL, *ibio = NULL, *obio = NULL;
	EVP_PKEY *key = NULL;
	CMS_ContentInfo *cms = NULL;
	char why[256];
	int r = CRS_EINPUT;

	if (len > CMS_SEAL_INPUT_MAX)
		return crs_error_set(CRS_EINPUT, "%s: larger than %zu bytes",
				     what, CMS_SEAL_INPUT_MAX);
	ERR_clear_error();
	if (!(kbio = BIO_new_mem_buf(key_pem, -1)) ||
	    !(key = PEM_read_bio_PrivateKey(kbio, NULL, NULL, NULL))) {
		r = crs_error_set(CRS_EINPUT, "the key is not a PEM private "
				  "key (unencrypted PKCS#8 or traditional): %s",
				  ssl_reason(why, sizeof(why), "unreadable"));
		goto out;
	}
	if (!(ibio = BIO_new_mem_buf(in, (int)len)))
		goto fail;
	if (len > 11 && !memcmp(in, "-----BEGIN ", 11))
		cms = PEM_read_bio_CMS(ibio, NULL, NULL, NULL);
	else
		cms = d2i_CMS_bio(ibio, NULL);
	if (!cms || OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_enveloped) {
		r = crs_error_set(CRS_EINPUT, "%s: not CMS enveloped data (PEM "
				  "or DER): %s", what,
				  ssl_reason(why, sizeof(why), "wrong type"));
		goto out;
	}
	if (!(obio = BIO_new(BIO_s_mem())))
		goto fail;
	if (!CMS_decrypt(cms, key, NULL, NULL, obio,
			 CMS_BINARY | CMS_DEBUG_DECRYPT)) {
		r = crs_error_set(CRS_EINPUT, "%s: this key opens none of its "
				  "recipients: %s", what,
				  ssl_reason(why, sizeof(why), "no match"));
		goto out;
	}
	bio_into(out, obio);
	r = 0;
	goto out;
fail:
	r = crs_error_set(CRS_ERR, "%s: %s", what,
			  ssl_reason(why, sizeof(why), "libcrypto failed"));
out:
	CMS_ContentInfo_free(cms);
	EVP_PKEY_free(key);
	BIO_free(kbio);
	BIO_free(ibio);
	BIO_free(obio);
	return r;
}
