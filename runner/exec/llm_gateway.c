/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_gateway.c - start, wait for and stop the gateway container
 *
 * The gateway is crs-ci itself (`crs-ci gateway`), so the binary mounted
 * into the container must be static: any image then runs it. Its command
 * line holds names, paths and budgets only; provider keys and the external
 * key travel in the container's environment, and each CRS's key stays in
 * its 0600 file, which only that CRS's containers get mounted.
 */
#include "runner/exec/llm_gateway.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/engine/reaper.h"
#include "runner/exec/base_images.h"
#include "runner/scan/exec_ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/gateway/gw_config.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define READY_TIMEOUT_S 15.0
#define READY_POLL_MS 100
#define STOP_WAIT_MS 10000
#define EXTERNAL_KEY_ENV "CRS_CI_LLM_EXTERNAL_KEY"
#define KEY_LEN 73	/* "sk-crsci-" and 64 hex digits */
#define LOG_MAX (4u << 20)

struct llm_gateway {
	char *id;		/* container */
	char *egress_id;	/* our egress network, or NULL */
	char *dir;
	char *keys_dir;
	char *log_path;		/* <dir>/gateway.log */
	char **crs, **key_files;
	size_t crs_nr;
};

static void gateway_end(struct llm_gateway *g, struct exec_ctx *x,
			int report);

/* ---- the binary ------------------------------------------------------- */

static int read_at(int fd, void *p, size_t n, off_t off)
{
	ssize_t got = pread(fd, p, n, off);

	return got == (ssize_t)n ? 0 : -1;
}

/*
 * 1 when the ELF file at `path` is static (it has no PT_INTERP program
 * header), 0 when dynamic; CRS_ERR when it cannot be read or is not ELF.
 */
static int llm_gateway_elf_static(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = CRS_ERR;
	uint64_t phoff;
	unsigned phnum, phsize;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	if (read_at(fd, id, sizeof(id), 0) != 0 ||
	    memcmp(id, ELFMAG, SELFMAG) ||
	    (id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32)) {
		r = crs_error_set(CRS_ERR, "%s: not an ELF file", path);
		goto out;
	}
	if (id[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		if (read_at(fd, &eh, sizeof(eh), 0) != 0)
			goto bad;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phsize = eh.e_phentsize;
		if (phsize < sizeof(Elf64_Phdr))
			goto bad;
	} else {
		Elf32_Ehdr eh;

		if (read_at(fd, &eh, sizeof(eh), 0) != 0)
			goto bad;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phsize = eh.e_phentsize;
		if (phsize < sizeof(Elf32_Phdr))
			goto bad;
	}
	r = 1;
	for (unsigned i = 0; i < phnum && r == 1; i++) {
		off_t at = (off_t)(phoff + (uint64_t)i * phsize);
		uint32_t type;

		if (id[EI_CLASS] == ELFCLASS64) {
			Elf64_Phdr ph;

			if (read_at(fd, &ph, sizeof(ph), at) != 0)
				goto bad;
			type = ph.p_type;
		} else {
			Elf32_Phdr ph;

			if (read_at(fd, &ph, sizeof(ph), at) != 0)
				goto bad;
			type = ph.p_type;
		}
		if (type == PT_INTERP)
			r = 0;
	}
	goto out;
bad:
	r = crs_error_set(CRS_ERR, "%s: truncated ELF headers", path);
out:
	close(fd);
	return r;
}

/*
 * The static crs-ci to mount into the gateway: /proc/self/exe when it is
 * static, else <folder of the exe>/static/crs-ci when present and static
 * (made by `make static`); caller frees. CRS_ECONFIG otherwise.
 */
static int llm_gateway_static_exe(char **out)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *alt = NULL, *slash;
	int r;

	*out = NULL;
	if (n <= 0)
		return crs_error_set(CRS_ERR, "/proc/self/exe: %s",
				     strerror(errno));
	exe[n] = '\0';
	if ((r = llm_gateway_elf_static(exe)) == 1) {
		*out = xstrdup(exe);
		return 0;
	}
	crs_error_clear();
	slash = strrchr(exe, '/');
	alt = xasprintf("%.*s/static/crs-ci", (int)(slash - exe), exe);
	if (fs_exists(alt) && llm_gateway_elf_static(alt) == 1) {
		*out = alt;
		return 0;
	}
	crs_error_clear();
	free(alt);
	return crs_error_set(CRS_ECONFIG, "the LLM gateway needs a static "
			     "crs-ci: run make static");
}

/* ---- what the container gets ------------------------------------------ */

static void push_secret_env(struct strvec *env, const char *name,
			    const char *value)
{
	strvec_pushf(env, "%s=%s", name, value);
}

/* Provider keys the LiteLLM config names, from the host environment. */
static int provider_env(struct strvec *env, const struct compose *c)
{
	struct strvec names = STRVEC_INIT;
	struct gw_config *cfg = NULL;
	int r;

	if ((r = gw_config_env_names(c->llm.config_path, &c->allow_env,
				     &names)) != 0)
		goto out;
	for (size_t i = 0; i < names.nr; i++) {
		const char *v = getenv(names.v[i]);

		if (!v || !*v) {
			r = crs_error_set(CRS_ECONFIG, "%s: llm_config: "
					  "environment variable %s (named in "
					  "%s) is not set", c->path,
					  names.v[i], c->llm.config_path);
			goto out;
		}
		push_secret_env(env, names.v[i], v);
	}
	/* the gateway's own checks, with host paths in the messages */
	r = gw_config_load(&cfg, c->llm.config_path, &c->allow_env);
out:
	gw_config_free(cfg);
	strvec_release(&names);
	return r;
}

/* A compose value given directly or through an environment variable. */
static int direct_or_env(const char **out, const struct compose *c,
			 const char *value, const char *env_name,
			 const char *field)
{
	if (value) {
		*out = value;
		return 0;
	}
	*out = env_name ? getenv(env_name) : NULL;
	if (!*out || !**out)
		return crs_error_set(CRS_ECONFIG, "%s: llm_config.litellm."
				     "external.%s: environment variable %s "
				     "is not set", c->path, field,
				     env_name ? env_name : "(none)");
	return 0;
}

/* argv and environment of the gateway container. */
static int gateway_cmd(struct strvec *argv, struct strvec *env,
		       const struct compose *c)
{
	int r = 0;

	strvec_push(argv, "/crs-ci");
	strvec_push(argv, "gateway");
	strvec_push(argv, "--listen");
	strvec_push(argv, "0.0.0.0:4000");
	strvec_push(argv, "--keys-dir");
	strvec_push(argv, "/keys");
	strvec_push(argv, "--report");
	strvec_push(argv, "/llm/spend.json");
	for (size_t i = 0; i < c->crs_nr; i++) {
		const struct compose_crs *e = &c->crs[i];

		strvec_push(argv, "--budget");
		if (e->res.llm_budget > 0)
			strvec_pushf(argv, "%s=%.12g", e->name,
				     e->res.llm_budget);
		else
			strvec_pushf(argv, "%s=unlimited", e->name);
	}
	if (!strcmp(c->llm.mode, "external")) {
		const char *url, *key;

		if ((r = direct_or_env(&url, c, c->llm.url, c->llm.url_env,
				       "url_env")) != 0 ||
		    (r = direct_or_env(&key, c, c->llm.key, c->llm.key_env,
				       "key_env")) != 0)
			return r;
		strvec_push(argv, "--mode");
		strvec_push(argv, "external");
		strvec_push(argv, "--external-url");
		strvec_push(argv, url);
		strvec_push(argv, "--external-key-env");
		strvec_push(argv, EXTERNAL_KEY_ENV);
		push_secret_env(env, EXTERNAL_KEY_ENV, key);
		return 0;
	}
	if (!c->llm.config_path)
		return crs_error_set(CRS_ECONFIG, "%s:%d:%d: llm_config: mode "
				     "internal needs litellm.internal."
				     "config_path (crs-ci ships no default "
				     "model list)", c->path, c->llm.pos.line,
				     c->llm.pos.column);
	if ((r = provider_env(env, c)) != 0)
		return r;
	/* the gateway applies the same rule: pass the trusted exceptions */
	for (size_t i = 0; i < c->allow_env.nr; i++) {
		strvec_push(argv, "--allow-env");
		strvec_push(argv, c->allow_env.names[i]);
	}
	strvec_push(argv, "--config");
	strvec_push(argv, "/llm/config.yaml");
	return 0;
}

/* ---- start ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int keys_ready(const struct llm_gateway *g)
{
	struct stat st;

	for (size_t i = 0; i < g->crs_nr; i++)
		if (stat(g->key_files[i], &st) != 0 || st.st_size != KEY_LEN)
			return 0;
	return 1;
}

/* The gateway's output so far, saved to log_path; its tail, or "". */
static char *save_log(struct exec_ctx *x, const char *id,
		      const char *log_path)
{
	struct buf b = BUF_INIT;
	char *tail;

	if (docker_container_logs(x->docker, id, &b, LOG_MAX) != 0) {
		crs_error_clear();
		buf_release(&b);
		return xstrdup("");
	}
	fs_write_file_atomic(log_path, b.ptr, b.len);
	buf_release(&b);
	tail = log_tail(log_path, 15, LOG_TAIL_CAP);
	return tail;
}

/* Until the ready line is printed and every key file is complete. */
static int wait_ready(struct llm_gateway *g, struct exec_ctx *x)
{
	double until = now_s() + READY_TIMEOUT_S;
	const char *why = "did not become ready within 15s";
	char *tail;
	int r;

	for (;;) {
		struct buf b = BUF_INIT;
		int printed = 0;

		r = docker_container_running(x->docker, g->id);
		if (r < 0)
			return r;
		if (r == 0) {
			why = "exited";
			break;
		}
		if (docker_container_logs(x->docker, g->id, &b, 1u << 20) == 0)
			printed = b.len && memmem(b.ptr, b.len, "\"key_files\"",
						  11) != NULL;
		crs_error_clear();
		buf_release(&b);
		if (printed && keys_ready(g))
			return 0;
		if (exec_interrupted(x))
			return crs_error_set(CRS_EINTR, "interrupted");
		if (now_s() >= until)
			break;
		usleep(READY_POLL_MS * 1000);
	}
	tail = save_log(x, g->id, g->log_path);
	r = crs_error_set(CRS_ETIMEOUT, "LLM gateway %s (log: %s)%s%s", why,
			  g->log_path, *tail ? ":\n" : "", tail);
	free(tail);
	return r;
}

static int create_container(struct llm_gateway *g,
			    struct exec_ctx *x, const struct compose *c,
			    const char *exe, const char *net)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct strvec binds = STRVEC_INIT, labels = STRVEC_INIT;
	char *name = xasprintf("%s-llm-gateway", x->owner);
	char user[64];
	int r;

	if ((r = gateway_cmd(&argv, &env, c)) != 0)
		goto out;
	strvec_pushf(&binds, "%s:/crs-ci:ro", exe);
	strvec_pushf(&binds, "%s:/llm", g->dir);
	strvec_pushf(&binds, "%s:/keys", g->keys_dir);
	if (fs_exists("/etc/ssl/certs"))
		strvec_push(&binds, "/etc/ssl/certs:/etc/ssl/certs:ro");
	container_labels(&labels, x);
	/* a dead crs-ci's key files are found by this (runner/engine/reaper.h) */
	strvec_pushf(&labels, "%s=%s", REAPER_KEYS_LABEL, g->keys_dir);
	if ((r = base_images_runner(x, &ro.image)) != 0)
		goto out;
	ro.name = name;
	ro.entrypoint = strvec_list(&argv);
	ro.env = strvec_list(&env);
	ro.binds = strvec_list(&binds);
	ro.labels = strvec_list(&labels);
	ro.network = net;
	ro.cpuset = x->infra->cpuset;
	container_policy_apply(&ro, ROLE_GATEWAY);
	/* files it writes belong to the user who runs the scan */
	if (getuid() != 0) {
		snprintf(user, sizeof(user), "%u:%u", (unsigned)getuid(),
			 (unsigned)getgid());
		ro.user = user;
	}
	r = docker_container_create(x->docker, &ro, &g->id);
out:
	/* the environment holds provider keys: wipe before freeing */
	for (size_t i = 0; i < env.nr; i++)
		memset(env.v[i], 0, strlen(env.v[i]));
	strvec_release(&argv);
	strvec_release(&env);
	strvec_release(&binds);
	strvec_release(&labels);
	free(name);
	return r;
}

static int prepare_dir(struct llm_gateway *g, const struct compose *c)
{
	char *cfg;
	int r;

	if ((r = fs_mkdir_p(g->dir)) != 0 ||
	    (r = fs_mkdir_p(g->keys_dir)) != 0)
		return r;
	if (chmod(g->keys_dir, 0700) != 0)
		return crs_error_set(CRS_ERR, "%s: %s", g->keys_dir,
				     strerror(errno));
	if (!c->llm.config_path)
		return 0;
	cfg = xasprintf("%s/config.yaml", g->dir);
	r = fs_copy_file(c->llm.config_path, cfg);
	free(cfg);
	return r;
}

int llm_gateway_start(struct llm_gateway **out, struct exec_ctx *x,
		      const struct compose *c, const char *dir,
		      const char *const *crs_networks)
{
	struct llm_gateway *g;
	struct strvec labels = STRVEC_INIT;
	const char *const aliases[] = { LLM_GATEWAY_ALIAS, NULL };
	const char *user_net = getenv("CRS_CI_LLM_NETWORK");
	char *exe = NULL, *net = NULL;
	int r;

	*out = NULL;
	if (!c->has_llm || !c->llm.mode)
		return 0;
	g = xcalloc(1, sizeof(*g));
	g->dir = xstrdup(dir);
	g->keys_dir = xasprintf("%s/keys", dir);
	g->log_path = xasprintf("%s/gateway.log", dir);
	g->crs = xcalloc(c->crs_nr + 1, sizeof(char *));
	g->key_files = xcalloc(c->crs_nr + 1, sizeof(char *));
	for (size_t i = 0; i < c->crs_nr; i++) {
		g->crs[i] = xstrdup(c->crs[i].name);
		g->key_files[i] = xasprintf("%s/%s.key", g->keys_dir,
					    c->crs[i].name);
	}
	g->crs_nr = c->crs_nr;
	if ((r = llm_gateway_static_exe(&exe)) != 0 ||
	    (r = prepare_dir(g, c)) != 0)
		goto out;
	if (user_net && *user_net) {
		net = xstrdup(user_net);
	} else {
		net = xasprintf("%s-llm", x->owner);
		container_labels(&labels, x);
		if ((r = docker_network_create(x->docker, net, 0,
					       strvec_list(&labels),
					       &g->egress_id)) != 0)
			goto out;
	}
	if ((r = create_container(g, x, c, exe, net)) != 0)
		goto out;
	for (size_t i = 0; i < c->crs_nr && r == 0; i++)
		r = docker_network_connect(x->docker, crs_networks[i], g->id,
					   aliases);
	if (r != 0 || (r = docker_container_start(x->docker, g->id)) != 0 ||
	    (r = wait_ready(g, x)) != 0)
		goto out;
	log_info("llm: gateway (%s mode) serves %zu CRS(x) at %s", c->llm.mode,
		 c->crs_nr, LLM_GATEWAY_URL);
	*out = g;
	g = NULL;	/* transferred */
out:
	if (g) {
		int code = crs_error_code();
		char *msg = xstrdup(crs_error_last());

		gateway_end(g, x, 0);
		crs_error_set(code, "%s", msg);
		free(msg);
	}
	strvec_release(&labels);
	free(exe);
	free(net);
	return r;
}

const char *llm_gateway_key_file(const struct llm_gateway *g,
				 const char *crs)
{
	for (size_t i = 0; g && i < g->crs_nr; i++)
		if (!strcmp(g->crs[i], crs))
			return g->key_files[i];
	return NULL;
}

/* ---- stop ------------------------------------------------------------- */

static void log_spend(const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err), *crs;
	const char *name;
	json_t *v;

	if (!j) {
		log_warn("llm: spend report %s: %s", path, err.text);
		return;
	}
	crs = json_object_get(j, "crs");
	json_object_foreach(crs, name, v) {
		json_t *budget = json_object_get(v, "budget_dollars");
		char b[64];

		if (json_is_number(budget))
			snprintf(b, sizeof(b), "$%.4f",
				 json_number_value(budget));
		else
			snprintf(b, sizeof(b), "unlimited");
		log_info("llm: %s spent $%.6f of %s in %lld request(x), %lld "
			 "refused", name,
			 json_number_value(json_object_get(v, "dollars")), b,
			 (long long)json_integer_value(json_object_get(
				 v, "requests")),
			 (long long)json_integer_value(json_object_get(
				 v, "refusals")));
	}
	json_decref(j);
}

static void report_spend(const struct llm_gateway *g, struct exec_ctx *x)
{
	char *src = xasprintf("%s/spend.json", g->dir);
	char *dst = xasprintf("%s/llm-spend.json", x->out_dir);

	if (!fs_exists(src)) {
		log_warn("llm: the gateway wrote no spend report");
	} else if (fs_mkdir_p(x->out_dir) != 0 ||
		   fs_copy_file(src, dst) != 0) {
		log_warn("llm: %s", crs_error_last());
		crs_error_clear();
	} else {
		log_spend(dst);
	}
	free(src);
	free(dst);
}

/* Stop and remove what `g` started; `report`: the spend report too. */
static void gateway_end(struct llm_gateway *g, struct exec_ctx *x,
			int report)
{
	int stopped = 0, code;

	if (g->id) {
		if (docker_container_kill(x->docker, g->id, "TERM") == 0 &&
		    docker_container_wait(x->docker, g->id, STOP_WAIT_MS,
					  NULL, &code) == 0)
			stopped = 1;
		else
			docker_container_kill(x->docker, g->id, "KILL");
		crs_error_clear();
		free(save_log(x, g->id, g->log_path));
		if (docker_container_remove(x->docker, g->id, 1) != 0) {
			log_warn("llm: removing the gateway: %s",
				 crs_error_last());
			crs_error_clear();
		}
	}
	if (g->egress_id && docker_network_remove(x->docker,
						  g->egress_id) != 0) {
		log_warn("llm: removing its network: %s", crs_error_last());
		crs_error_clear();
	}
	if (g->id && report) {
		if (!stopped)
			log_warn("llm: the gateway did not stop in time; its "
				 "spend report may miss the last requests");
		report_spend(g, x);
	}
	/* the keys die with the gateway: do not leave them on disk */
	if (fs_remove_tree(g->keys_dir) != 0)
		crs_error_clear();
	for (size_t i = 0; i < g->crs_nr; i++) {
		free(g->crs[i]);
		free(g->key_files[i]);
	}
	free(g->crs);
	free(g->key_files);
	free(g->id);
	free(g->egress_id);
	free(g->dir);
	free(g->keys_dir);
	free(g->log_path);
	free(g);
}

void llm_gateway_stop(struct llm_gateway *g, struct exec_ctx *x)
{
	if (g)
		gateway_end(g, x, 1);
}
