/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker.h - Docker Engine API client
 *
 * The only module that knows the Engine's HTTP paths. It speaks to
 * DOCKER_HOST (unix socket by default, or tcp:// with TLS client
 * certificates from DOCKER_CERT_PATH when DOCKER_TLS_VERIFY is set) through
 * the http transport seam (http.h). Every object crs-ci creates carries the
 * label CRS_CI_LABEL=<owner> so an interrupted scan can remove exactly what
 * it made. Errors carry the engine's own "message".
 */
#ifndef CRS_RUNNER_ENGINE_DOCKER_H
#define CRS_RUNNER_ENGINE_DOCKER_H

#include <stddef.h>
#include <stdint.h>

struct http_transport;
struct buf;

#define CRS_CI_LABEL "io.crs-ci.owner"

struct docker_client;

/*
 * Connect settings from the environment (DOCKER_HOST, DOCKER_CERT_PATH,
 * DOCKER_TLS_VERIFY) unless `host` is given. Does not contact the engine.
 * Returns 0 or CRS_EINPUT (unparseable DOCKER_HOST). *out owned by caller.
 */
int docker_client_new(struct docker_client **out, const char *host);
/* Use an injected transport (tests). The client takes ownership. */
int docker_client_new_with_transport(struct docker_client **out,
				     struct http_transport *t);
void docker_client_free(struct docker_client *d);

/* GET /_ping. CRS_EENGINE with "engine unreachable at <host>: ..." on failure. */
int docker_ping(struct docker_client *d);

/* 0 when the image exists, CRS_ENOTFOUND when not. If id_out, the image id. */
int docker_image_exists(struct docker_client *d, const char *ref, char **id_out);
/* Image config: WorkingDir of `ref` (caller frees), or "" when unset. */
int docker_image_workdir(struct docker_client *d, const char *ref, char **out);
/* Value of label `key` on image `ref`; CRS_ENOTFOUND if image or label absent. */
int docker_image_label(struct docker_client *d, const char *ref,
		       const char *key, char **out);

struct docker_build_opts {
	const char *context_dir;	/* directory sent as the tar context */
	const char *dockerfile;		/* path inside the context */
	const char *tag;		/* "repo:tag" */
	const char *const *buildargs;	/* NULL-terminated "KEY=VALUE" list */
	const char *const *labels;	/* NULL-terminated "KEY=VALUE" list */
	const char *log_path;		/* build output appended here, or NULL */
	int pull;			/* 0: never pull base images */
};
#define DOCKER_BUILD_OPTS_INIT { 0 }

/*
 * POST /build with a tar of context_dir (libarchive, .dockerignore not
 * applied). The build's stream is read to the end; an "error" object in it
 * is a failure (CRS_EBUILD, with the last lines of output in the message).
 */
int docker_image_build(struct docker_client *d,
		       const struct docker_build_opts *o);
/* POST /images/create?fromSrc=- with the tarball at `path` as rootfs. */
int docker_image_import(struct docker_client *d, const char *tar_path,
			const char *repo, const char *tag,
			const char *const *changes);
int docker_image_tag(struct docker_client *d, const char *src,
		     const char *repo, const char *tag);
int docker_image_remove(struct docker_client *d, const char *ref, int force);

struct docker_run_opts {
	const char *image;
	const char *name;		/* NULL: engine chooses */
	const char *const *cmd;		/* NULL-terminated argv, or NULL */
	const char *const *entrypoint;	/* NULL-terminated, or NULL */
	const char *const *env;		/* NULL-terminated "KEY=VALUE" */
	const char *const *binds;	/* NULL-terminated "host:ctr[:ro]" */
	const char *const *labels;	/* NULL-terminated "KEY=VALUE" */
	const char *workdir;
	const char *cpuset;		/* "0-1", or NULL */
	int64_t memory;			/* bytes, 0 = unlimited */
	int64_t shm_size;		/* bytes, 0 = default */
	const char *network;		/* network name or "none", or NULL */
	const char *const *aliases;	/* DNS aliases on `network` */
	int privileged;
	const char *user;
};
#define DOCKER_RUN_OPTS_INIT { 0 }

int docker_container_create(struct docker_client *d,
			    const struct docker_run_opts *o, char **id_out);
int docker_container_start(struct docker_client *d, const char *id);
/*
 * Wait until the container exits, polling every 200 ms, for at most
 * `timeout_ms` (<0: forever). Stops early with CRS_EINTR when
 * *interrupted becomes non-zero (may be NULL). CRS_ETIMEOUT at the limit.
 */
int docker_container_wait(struct docker_client *d, const char *id,
			  long timeout_ms, volatile int *interrupted,
			  int *exit_code_out);
/* 1 running, 0 not running; negative on error. */
int docker_container_running(struct docker_client *d, const char *id);
/* stdout+stderr, demultiplexed, at most `max` bytes (the tail is kept). */
int docker_container_logs(struct docker_client *d, const char *id,
			  struct buf *out, size_t max);
int docker_container_kill(struct docker_client *d, const char *id,
			  const char *signal);
/* Stop with `grace_s` seconds before SIGKILL; not running is not an error. */
int docker_container_stop(struct docker_client *d, const char *id,
			  int grace_s);
int docker_container_remove(struct docker_client *d, const char *id,
			    int force);
int docker_container_commit(struct docker_client *d, const char *id,
			    const char *repo, const char *tag,
			    char **id_out);

int docker_network_create(struct docker_client *d, const char *name,
			  int internal, const char *const *labels,
			  char **id_out);
int docker_network_remove(struct docker_client *d, const char *id);
int docker_network_connect(struct docker_client *d, const char *net,
			   const char *container, const char *const *aliases);

/*
 * Remove every container (forced) and then every network that carries
 * the label CRS_CI_LABEL=<owner>. Used on the normal exit path and on
 * SIGINT/SIGTERM/deadline. Continues past errors; returns the first one.
 */
int docker_remove_owned(struct docker_client *d, const char *owner);

/* The host string the client talks to, for messages. Borrowed. */
const char *docker_client_host(const struct docker_client *d);

/* Parse "512m", "4G", "1.5GB" (binary units, as OSS-CRS) into bytes. */
int docker_parse_memory(const char *s, int64_t *out);

#endif
