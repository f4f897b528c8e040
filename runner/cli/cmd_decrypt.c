/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_decrypt.c - crs-ci decrypt: open a sealed private finding
 *
 * The maintainers' side of the disclosure policy: a PoV or details file
 * from crs-ci-out/private/ (or the block of a draft advisory or
 * confidential issue) is CMS enveloped data; this restores it with the
 * private key, as `openssl cms -decrypt` does.
 *
 * Details: docs/cmd/decrypt.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/report/cms_seal.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/opt.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECRYPT_KEY_MAX ((size_t)1 << 20)

static const char decrypt_usage[] =
"usage: crs-ci decrypt --key KEY.pem [--out FILE] FILE\n"
"\nRestore a private finding's sealed file (crs-ci-out/private/*.cms, or\n"
"the PEM block of a draft security advisory or confidential issue saved\n"
"to a file): CMS enveloped data, PEM or DER, for the certificate in\n"
"CRS_CI_DISCLOSE_KEY. The same as\n"
"  openssl cms -decrypt -inform PEM -in FILE -inkey KEY.pem -binary\n";

enum { OPT_KEY = 256, OPT_OUT };

const struct opt_spec cmd_decrypt_opts[] = {
	{ .name = "key", .id = OPT_KEY, .kind = OPT_STRING,
	  .value_name = "KEY.pem",
	  .help = "the maintainers' private key (PEM, unencrypted)" },
	{ .name = "out", .id = OPT_OUT, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .help = "write the plaintext here (default: stdout)" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

int cmd_decrypt(int argc, char **argv, struct runner_ctx *ctx)
{
	struct buf key = BUF_INIT, in = BUF_INIT, plain = BUF_INIT;
	const char *key_path = NULL, *out_path = NULL, *file = NULL;
	struct opt_parser p;
	struct opt_value v;
	int files = 0, r, code = EXIT_USAGE;

	opt_parser_init(&p, cmd_decrypt_opts, argc, argv, OPT_MIXED,
			"decrypt");
	while ((r = opt_next(&p, &v)) == 1) {
		if (!v.spec) {
			file = v.arg;
			files++;
		} else if (v.spec->id == OPT_KEY) {
			key_path = v.arg;
		} else if (v.spec->id == OPT_OUT) {
			out_path = v.arg;
		} else {
			cli_help(ctx->out, decrypt_usage, cmd_decrypt_opts,
				 NULL);
			return EXIT_OK;
		}
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "decrypt");
	if (!key_path)
		return cli_usage_error(ctx->err, "decrypt", "--key is required");
	if (files != 1)
		return cli_usage_error(ctx->err, "decrypt", "want one FILE, "
				       "got %d", files);
	if ((r = fs_read_file(&key, key_path, DECRYPT_KEY_MAX)) != 0 ||
	    (r = fs_read_file(&in, file, CMS_SEAL_INPUT_MAX)) != 0)
		goto fail;
	buf_addch(&key, '\0');	/* PEM text for libcrypto */
	if ((r = cms_open(&plain, in.ptr, in.len, key.ptr, file)) != 0)
		goto fail;
	if (out_path)
		r = fs_write_file_atomic(out_path, plain.ptr, plain.len);
	else if (fwrite(plain.ptr, 1, plain.len, ctx->out) != plain.len ||
		 fflush(ctx->out) != 0)
		r = crs_error_set(CRS_ERR, "cannot write standard output");
	if (r)
		goto fail;
	code = EXIT_OK;
	goto out;
fail:
	fprintf(ctx->err, "crs-ci decrypt: %s\n", crs_error_last());
	crs_error_clear();
	code = r == CRS_EINPUT || r == CRS_ENOTFOUND ? EXIT_USAGE : EXIT_INFRA;
out:
	if (key.ptr)
		explicit_bzero(key.ptr, key.len);
	if (plain.ptr)
		explicit_bzero(plain.ptr, plain.len);
	buf_release(&key);
	buf_release(&in);
	buf_release(&plain);
	return code;
}
