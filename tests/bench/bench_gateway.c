/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_gateway.c - what the gateway adds: latency per request and memory
 *
 * The fake provider runs in this process; the gateway runs in a forked
 * child (forked before any thread exists), so the child's VmRSS/VmHWM
 * are the gateway's own. Sequential requests go once straight to the
 * fake and once through the gateway over kept-alive client connections;
 * the difference of the medians and p99s is the added latency. Then a
 * burst of concurrent clients, and time to first byte of streams.
 *
 * Build and run (from the top of the tree, after make all):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/bench_gateway \
 *     tests/bench/bench_gateway.c build/libcrsci.a build/libcrs.a \
 *     $(pkg-config --cflags --libs libcurl jansson yaml-0.1 libcrypto \
 *     libmicrohttpd) -lpthread
 *   build/bench_gateway [requests (2000)] [client threads (32)]
 */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_keys.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_price.h"
#include "runner/gateway/gw_server.h"

#include "tests/helper/fake_llm.c"

#define PROVIDER_KEY "sk-bench-provider"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void quiet(enum log_level level, const char *file, const char *func,
		  int line, const char *msg, void *ctx)
{
	(void)level; (void)file; (void)func; (void)line; (void)msg; (void)ctx;
}

/* ---- the gateway child -------------------------------------------------- */

static volatile sig_atomic_t child_stop;

static void on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	return kb;
}

/* Reads the fake's port, writes the gateway's port and the key. */
static int gateway_child(int in, int out)
{
	struct gw_config *cfg = NULL;
	struct gw_ledger *l = gw_ledger_new();
	struct gw_keys *k = gw_keys_new();
	struct gw_server *s = NULL;
	char yaml[1024], key[GW_KEY_LEN + 1], msg[256];
	unsigned fport = 0;
	size_t id;

	signal(SIGTERM, on_term);
	log_set_handler(quiet, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (read(in, &fport, sizeof(fport)) != sizeof(fport))
		return 1;
	setenv("BENCH_API_KEY", PROVIDER_KEY, 1);
	snprintf(yaml, sizeof(yaml),
		 "model_list:\n"
		 "  - model_name: fake-model\n"
		 "    litellm_params:\n"
		 "      model: openai/fake-model\n"
		 "      api_base: http://127.0.0.1:%u/v1\n"
		 "      api_key: os.environ/BENCH_API_KEY\n"
		 "      input_cost_per_token: 0.000001\n"
		 "      output_cost_per_token: 0.000002\n"
		 /* one key and one address drive every client here */
		 "crs_ci_settings:\n"
		 "  max_in_flight_per_crs: 256\n"
		 "  max_connections_per_address: 1000\n", fport);
	if (gw_config_parse(&cfg, yaml, strlen(yaml), "bench.yaml",
			    NULL) != 0 ||
	    gw_ledger_add(l, &id, "bench", GW_BUDGET_UNLIMITED) != 0 ||
	    gw_keys_generate(key) != 0 || gw_keys_add(k, key, id) != 0 ||
	    gw_server_start(&s, "127.0.0.1:0", cfg, l, k) != 0) {
		fprintf(stderr, "gateway: %s\n", crs_error_last());
		return 1;
	}
	snprintf(msg, sizeof(msg), "%u %s", gw_server_port(s), key);
	if (write(out, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 1;
	while (!child_stop)
		pause();
	gw_server_free(s);
	gw_keys_free(k);
	gw_ledger_free(l);
	gw_config_free(cfg);
	curl_global_cleanup();
	return 0;
}

/* ---- clients ------------------------------------------------------------ */

struct client {
	CURL *h;
	struct curl_slist *hd;
	double first_byte, t0;
};

static size_t sink(char *p, size_t sz, size_t n, void *ctx)
{
	struct client *c = ctx;

	(void)p;
	if (c->first_byte == 0)
		c->first_byte = now() - c->t0;
	return sz * n;
}

static void client_init(struct client *c, unsigned port, const char *auth,
			const char *body)
{
	char url[128];

	memset(c, 0, sizeof(*c));
	c->h = curl_easy_init();
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/chat/completions",
		 port);
	c->hd = curl_slist_append(NULL, "Content-Type: application/json");
	c->hd = curl_slist_append(c->hd, auth);
	curl_easy_setopt(c->h, CURLOPT_URL, url);
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->hd);
	curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c->h, CURLOPT_WRITEDATA, c);
}

/* One request; seconds, or -1 on failure. */
static double once(struct client *c)
{
	long status = 0;

	c->first_byte = 0;
	c->t0 = now();
	if (curl_easy_perform(c->h) != CURLE_OK)
		return -1;
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &status);
	return status == 200 ? now() - c->t0 : -1;
}

static void client_release(struct client *c)
{
	curl_slist_free_all(c->hd);
	curl_easy_cleanup(c->h);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* n sequential requests; total time in *sum; fills v (ms). */
static int series(unsigned port, const char *auth, const char *body,
		  double *v, size_t n, int ttfb)
{
	struct client c;

	client_init(&c, port, auth, body);
	for (size_t i = 0; i < n; i++) {
		double t = once(&c);

		if (t < 0) {
			client_release(&c);
			return -1;
		}
		v[i] = 1000 * (ttfb ? c.first_byte : t);
	}
	client_release(&c);
	qsort(v, n, sizeof(*v), cmp_double);
	return 0;
}

struct burst {
	pthread_t th;
	unsigned port;
	const char *auth, *body;
	size_t n;
	double *v;
	int failed;
};

static void *burst_run(void *arg)
{
	struct burst *b = arg;
	struct client c;

	client_init(&c, b->port, b->auth, b->body);
	for (size_t i = 0; i < b->n; i++)
		if ((b->v[i] = 1000 * once(&c)) < 0)
			b->failed++;
	client_release(&c);
	return NULL;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2000;
	int threads = argc > 2 ? atoi(argv[2]) : 32;
	int to_child[2], from_child[2];
	struct fake_llm *fake = NULL;
	struct buf body = BUF_INIT, sbody = BUF_INIT;
	char msg[256], gw_auth[160], fake_auth[160];
	unsigned gport = 0;
	double *d = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
	double *all, t0, elapsed;
	struct burst *b;
	size_t per, tot = 0;
	long rss0, rss1, hwm;
	pid_t pid;
	int failed = 0;

	if (pipe(to_child) || pipe(from_child))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(to_child[1]);
		close(from_child[0]);
		_exit(gateway_child(to_child[0], from_child[1]));
	}
	close(to_child[0]);
	close(from_child[1]);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (fake_llm_start(&fake, PROVIDER_KEY) != 0)
		return 1;
	fake->prompt_tokens = 500;
	fake->completion_tokens = 100;
	if (write(to_child[1], &fake->port, sizeof(fake->port)) !=
	    (ssize_t)sizeof(fake->port) ||
	    read(from_child[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return 1;
	gport = (unsigned)strtoul(msg, NULL, 10);
	snprintf(gw_auth, sizeof(gw_auth), "Authorization: Bearer %s",
		 strchr(msg, ' ') + 1);
	snprintf(fake_auth, sizeof(fake_auth), "Authorization: Bearer %s",
		 PROVIDER_KEY);
	/* a 2 KB prompt, as agents send */
	buf_adds(&body, "{\"model\":\"fake-model\",\"max_tokens\":256,"
		 "\"messages\":[{\"role\":\"user\",\"content\":\"");
	for (int i = 0; i < 40; i++)
		buf_adds(&body, "Find the bug in this function, please. ");
	buf_adds(&body, "\"}]}");
	buf_adds(&sbody, body.ptr);
	sbody.len -= 1;
	sbody.ptr[sbody.len] = '\0';
	buf_adds(&sbody, ",\"stream\":true}");

	rss0 = status_kb(pid, "VmRSS:");
	/* warm up both paths */
	if (series(fake->port, fake_auth, body.ptr, d, n / 10 + 1, 0) ||
	    series(gport, gw_auth, body.ptr, g, n / 10 + 1, 0))
		goto broken;
	if (series(fake->port, fake_auth, body.ptr, d, n, 0) ||
	    series(gport, gw_auth, body.ptr, g, n, 0))
		goto broken;
	printf("sequential, %zu requests, %zu-byte body, kept-alive client\n",
	       n, body.len);
	printf("  direct   median %.3f ms  p99 %.3f ms\n", pct(d, n, .5),
	       pct(d, n, .99));
	printf("  gateway  median %.3f ms  p99 %.3f ms\n", pct(g, n, .5),
	       pct(g, n, .99));
	printf("  added    median %.3f ms  p99 %.3f ms\n",
	       pct(g, n, .5) - pct(d, n, .5), pct(g, n, .99) - pct(d, n, .99));

	if (series(fake->port, fake_auth, sbody.ptr, d, n, 1) ||
	    series(gport, gw_auth, sbody.ptr, g, n, 1))
		goto broken;
	printf("streamed, time to first byte\n");
	printf("  direct   median %.3f ms  p99 %.3f ms\n", pct(d, n, .5),
	       pct(d, n, .99));
	printf("  gateway  median %.3f ms  p99 %.3f ms\n", pct(g, n, .5),
	       pct(g, n, .99));

	rss1 = status_kb(pid, "VmRSS:");
	per = n / (size_t)threads + 1;
	b = calloc((size_t)threads, sizeof(*b));
	all = calloc(per * (size_t)threads, sizeof(double));
	t0 = now();
	for (int i = 0; i < threads; i++) {
		b[i] = (struct burst){ .port = gport, .auth = gw_auth,
				       .body = body.ptr, .n = per,
				       .v = all + per * (size_t)i };
		pthread_create(&b[i].th, NULL, burst_run, &b[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(b[i].th, NULL);
		failed += b[i].failed;
		tot += b[i].n;
	}
	elapsed = now() - t0;
	qsort(all, tot, sizeof(double), cmp_double);
	hwm = status_kb(pid, "VmHWM:");
	printf("concurrent, %d clients x %zu requests through the gateway\n",
	       threads, per);
	printf("  %.0f requests/s  median %.3f ms  p99 %.3f ms  failed %d\n",
	       (double)tot / elapsed, pct(all, tot, .5), pct(all, tot, .99),
	       failed);
	printf("gateway memory (VmRSS at start %ld KiB, after sequential "
	       "%ld KiB, peak VmHWM %ld KiB)\n", rss0, rss1, hwm);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	fake_llm_stop(fake);
	free(b);
	free(all);
	free(d);
	free(g);
	buf_release(&body);
	buf_release(&sbody);
	curl_global_cleanup();
	return failed ? 1 : 0;
broken:
	fprintf(stderr, "bench: a request failed\n");
	kill(pid, SIGTERM);
	return 1;
}
