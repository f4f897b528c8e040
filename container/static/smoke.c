/*
 * smoke.c - proves the static toolchain: links every library crs-ci uses
 * (libcurl, libgit2, libarchive, libxml2, libmicrohttpd, libyaml, jansson,
 * OpenSSL) into one static binary that build.sh --smoke runs in an empty
 * (FROM scratch) container.
 *
 * Usage: smoke [--ping UNIX_SOCKET] [--resolve HOST]...
 * Prints each library's version; --ping asks the Docker engine behind
 * UNIX_SOCKET for /_ping through libcurl; --resolve looks HOST up with
 * libcurl's (threaded) resolver, the static glibc getaddrinfo caveat.
 * Exits 0 when everything asked for worked.
 */
#include <archive.h>
#include <curl/curl.h>
#include <git2.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static size_t smoke_sink(char *data, size_t size, size_t n, void *arg)
{
	fwrite(data, size, n, (FILE *)arg);
	return size * n;
}

/*
 * smoke_get fetches url (over sock when given) and prints the body; with
 * resolve_only it only checks that the URL's host name resolves.
 */
static int smoke_get(const char *url, const char *sock, int resolve_only)
{
	CURL *c = curl_easy_init();
	CURLcode rc;

	if (!c)
		return -1;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, smoke_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, stdout);
	if (sock)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, sock);
	if (resolve_only)
		curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
	rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	/* A refused connection still proves the name resolved. */
	if (resolve_only && rc != CURLE_COULDNT_RESOLVE_HOST)
		return 0;
	if (rc != CURLE_OK)
		fprintf(stderr, "smoke: %s: %s\n", url, curl_easy_strerror(rc));
	return rc == CURLE_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int major, minor, rev, i, bad = 0;
	json_t *j;
	char *s;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	git_libgit2_init();
	git_libgit2_version(&major, &minor, &rev);
	EVP_Digest("abc", 3, md, &mdlen, EVP_sha256(), NULL);
	j = json_pack("{s:s}", "jansson", JANSSON_VERSION);
	s = json_dumps(j, JSON_COMPACT);

	printf("curl: %s\n", curl_version());
	printf("libgit2: %d.%d.%d\n", major, minor, rev);
	printf("libarchive: %s\n", archive_version_details());
	printf("libxml2: %s\n", xmlParserVersion);
	printf("libmicrohttpd: %s\n", MHD_get_version());
	printf("libyaml: %s\n", yaml_get_version_string());
	printf("json: %s\n", s ? s : "(null)");
	printf("openssl: %s, sha256(abc)[0]=%02x\n",
	       OpenSSL_version(OPENSSL_VERSION), md[0]);
	free(s);
	json_decref(j);

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--ping")) {
			printf("ping %s: ", argv[i + 1]);
			fflush(stdout);
			if (smoke_get("http://localhost/_ping", argv[i + 1], 0))
				bad = 1;
			printf("\n");
		} else if (!strcmp(argv[i], "--resolve")) {
			char url[512];

			snprintf(url, sizeof(url), "http://%s:80/",
				 argv[i + 1]);
			if (smoke_get(url, NULL, 1))
				bad = 1;
			else
				printf("resolve %s: ok\n", argv[i + 1]);
		} else {
			fprintf(stderr, "smoke: unknown option %s\n", argv[i]);
			bad = 1;
		}
	}
	git_libgit2_shutdown();
	curl_global_cleanup();
	return bad;
}
