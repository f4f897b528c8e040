/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker.h - Docker Engine API client
 *
 * The only module that knows the Engine's HTTP paths; usable from
 * several threads. Return codes: 0, CRS_ENOTFOUND (404), CRS_ECONFLICT
 * (409), CRS_EENGINE, CRS_ETIMEOUT; messages carry the engine's own.
 *
 * Details: docs/internals.md.
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
 * Connect settings from the environment unless `host` is given:
 * DOCKER_HOST unset or empty -> unix:///var/run/docker.sock; unix://PATH;
 * tcp://HOST[:PORT] (https when DOCKER_TLS_VERIFY is non-empty and not
 * "0", with ca.pem, cert.pem and key.pem from DOCKER_CERT_PATH or
 * ~/.docker). Does not contact the engine. Returns 0 or CRS_EINPUT
 * ("DOCKER_HOST 'x' is not unix:///PATH or tcp://HOST:PORT", or a missing
 * certificate file). *out owned by caller.
 */
int docker_client_new(struct docker_client **out, const char *host);
#ifdef UNIT_TESTS
/* Use an injected transport (tests). The client takes ownership and calls
 * t->free at docker_client_free(). Cannot fail. */
int docker_client_new_with_transport(struct docker_client **out,
				     struct http_transport *t);
#endif
void docker_client_free(struct docker_client *d);

/* GET /_ping. CRS_EENGINE with "engine unreachable at <host>: ..." on failure. */
int docker_ping(struct docker_client *d);

/* 0 when the image exists, CRS_ENOTFOUND when not. If id_out, the image id
 * ("sha256:..."; caller frees). */
int docker_image_exists(struct docker_client *d, const char *ref, char **id_out);
/* An image id without its "sha256:" prefix (the hex digits). */
const char *docker_id_hex(const char *id);
/* Image config: WorkingDir of `ref` (caller frees), or "" when unset. */
int docker_image_workdir(struct docker_client *d, const char *ref, char **out);
/* Config.Cmd of an image appended to `out` (nothing when it has none). */
struct strvec;
int docker_image_cmd(struct docker_client *d, const char *ref,
		     struct strvec *out);
/* Value of label `key` on image `ref`; CRS_ENOTFOUND if image or label absent. */
int docker_image_label(struct docker_client *d, const char *ref,
		       const char *key, char **out);
/* RootFS.Layers of image `ref` (its diff ids, lowest first) appended to
 * `out`; CRS_ENOTFOUND if the image is absent. */
int docker_image_layers(struct docker_client *d, const char *ref,
			struct strvec *out);

struct docker_build_opts {
	const char *context_dir;	/* directory sent as the tar context */
	const char *dockerfile;		/* path inside the context */
	/* the Dockerfile as the user knows it, for messages (a project's
	 * own, not the work folder's copy), or NULL: context/dockerfile */
	const char *dockerfile_shown;
	const char *tag;		/* "repo:tag" */
	/* Sent in the context in place of `dockerfile` when not NULL (the
	 * FROM lines crs-ci rewrote); the folder is left as it is. */
	const char *dockerfile_text;
	size_t dockerfile_len;
	const char *const *buildargs;	/* NULL-terminated "KEY=VALUE" list */
	const char *const *labels;	/* NULL-terminated "KEY=VALUE" list */
	const char *log_path;		/* build output appended here, or NULL */
	int pull;			/* 0: never pull base images */
	long timeout_ms;		/* 0: no limit; else CRS_ETIMEOUT */
	volatile int *interrupted;	/* abort (CRS_EINTR) once non-zero */
	/* The RUN steps' limits: PR or CRS code runs in them. */
	const char *network;		/* "none", or NULL: the default */
	const char *cpuset;		/* "0-1", or NULL */
	int64_t memory;			/* bytes, no swap; 0 = unlimited */
	/* On CRS_EBUILD: the failing "Step N/M" N, or 0 when none showed */
	int *failed_step;
};
#define DOCKER_BUILD_OPTS_INIT { 0 }

/*
 * POST /build (classic builder, rm=1, forcerm=1; networkmode, cpusetcpus,
 * memory and memswap = memory when set) with a tar of context_dir
 * (tar_context.h; .dockerignore not applied) streamed from a temp file.
 * The JSON-lines answer is read as it arrives: "stream" text is appended
 * to log_path, pull "status" lines too, and errors as "ERROR: <msg>".
 * An "error" object in the stream, a non-200 status, or a stream that ends
 * without a result is CRS_EBUILD "build '<tag>': <error> (log
 * <log_path>)\nlast output:\n<lines>": the failing step's last lines
 * (from its "Step N/M" line, at most 20 and 1200 bytes, colour codes
 * stripped, each escaped on its own; print it with log_error_lines). CRS_EINPUT for a buildarg/label that is not
 * KEY=VALUE; CRS_ERR when the context or log cannot be written.
 */
int docker_image_build(struct docker_client *d,
		       const struct docker_build_opts *o);
struct docker_pull_opts {
	const char *ref;		/* "repo[:tag]" or "repo@sha256:..." */
	const char *auth;		/* X-Registry-Auth value, or NULL */
	long timeout_ms;		/* 0: no limit; else CRS_ETIMEOUT */
	volatile int *interrupted;	/* abort (CRS_EINTR) once non-zero */
};
#define DOCKER_PULL_OPTS_INIT { 0 }

/* Why a pull failed, for the caller's retry and its message. */
enum docker_pull_failure {
	DOCKER_PULL_FAILED,		/* anything else: do not retry */
	DOCKER_PULL_UNREACHABLE,	/* DNS, refused, timeout: retry */
	DOCKER_PULL_TRANSIENT,		/* 5xx, stream cut short: retry */
	DOCKER_PULL_NOT_FOUND,		/* no such image or tag */
	DOCKER_PULL_DENIED,		/* the registry refused the credentials */
};

/*
 * POST /images/create?fromImage=&tag= (a missing tag is "latest", never
 * every tag), with the X-Registry-Auth header when o->auth is set (never
 * logged). The JSON progress stream is logged as one line per layer state
 * change ("pull <ref>: <layer>: Downloading") and a summary line. Returns
 * 0 or a code with the message "<reason> (<engine message>)" where reason
 * is "registry unreachable", "not found", "access denied" or "pull
 * failed"; *why_out (may be NULL) classifies it. CRS_ENOTFOUND for a
 * missing image, CRS_EINTR/CRS_ETIMEOUT from the transport, else
 * CRS_EENGINE.
 */
int docker_image_pull(struct docker_client *d,
		      const struct docker_pull_opts *o,
		      enum docker_pull_failure *why_out);
/* Split an image reference into the repository and the tag or digest
 * ("latest" when it has neither). Both are the caller's. Cannot fail. */
void docker_ref_split(const char *ref, char **repo_out, char **tag_out);

/* POST /images/create?fromSrc=- with the tarball at `path` as rootfs,
 * tagged repo:tag (tag NULL: latest); `changes` are Dockerfile lines
 * ("CMD [\"/bin/sh\"]", "ENV PATH=/bin"), NULL-terminated or NULL. An
 * "error" in the answer is CRS_EENGINE. */
int docker_image_import(struct docker_client *d, const char *tar_path,
			const char *repo, const char *tag,
			const char *const *changes);
/* POST /images/{src}/tag. */
/*
 * GET /images/get: every image in `refs` (NULL-terminated) into one tar
 * at tar_path (written beside it as .part, then renamed).
 */
int docker_image_save(struct docker_client *d, const char *const *refs,
		      const char *tar_path);
/* POST /images/load with the tar at tar_path. */
int docker_image_load(struct docker_client *d, const char *tar_path);
int docker_image_tag(struct docker_client *d, const char *src,
		     const char *repo, const char *tag);
/* DELETE /images/{ref}; 409 (in use, without force) is CRS_ECONFLICT. */
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
	/* relative CPU weight (HostConfig.CpuShares; 1024 is the engine's
	 * default, cgroup v2 maps it to cpu.weight), 0: the default */
	int cpu_shares;
	int64_t memory;			/* bytes, 0 = unlimited */
	int64_t shm_size;		/* bytes, 0 = default */
	const char *network;		/* network name or "none", or NULL */
	const char *const *aliases;	/* DNS aliases on `network` */
	const char *user;
	/* What the container may do (runner/exec/container_policy.c sets them). */
	const char *const *cap_add;	/* kept capabilities; NULL: none */
	int64_t pids_limit;		/* 0: DOCKER_PIDS_LIMIT_DEFAULT */
	const char *log_max_size;	/* NULL: DOCKER_LOG_MAX_SIZE */
	int log_max_file;		/* 0: DOCKER_LOG_MAX_FILE */
};
#define DOCKER_RUN_OPTS_INIT { 0 }

/* The safety net for a caller that sets no limit (container_policy.c
 * sets each role's own). */
#define DOCKER_PIDS_LIMIT_DEFAULT 1024
#define DOCKER_LOG_MAX_SIZE "16m"
#define DOCKER_LOG_MAX_FILE 2

/*
 * POST /containers/create: Tty false, HostConfig.Init true, MemorySwap =
 * Memory (no swap) when memory is set. Never privileged: CapDrop ["ALL"]
 * with only o->cap_add kept, SecurityOpt ["no-new-privileges"], a
 * PidsLimit, and a json-file log of at most log_max_size x log_max_file
 * (so a container cannot fill the engine's disk with output). Labels are
 * not added implicitly:
 * pass CRS_CI_LABEL "=<owner>" in o->labels. Engine warnings are logged.
 * *id_out: the full id (caller frees). 404 is "image '<image>' not
 * found"; 409 (name in use) CRS_ECONFLICT; CRS_EINPUT for a label that is
 * not KEY=VALUE or a string that is not UTF-8.
 */
int docker_container_create(struct docker_client *d,
			    const struct docker_run_opts *o, char **id_out);
/* POST /containers/{id}/start; 204 and 304 (already running) are 0. */
int docker_container_start(struct docker_client *d, const char *id);
/*
 * Wait until the container exits, polling every 200 ms, for at most
 * `timeout_ms` (<0: forever). Stops early with CRS_EINTR when
 * *interrupted becomes non-zero (may be NULL). CRS_ETIMEOUT at the limit.
 * *exit_code_out (may be NULL) gets State.ExitCode. The container is left
 * as it is in every case.
 */
int docker_container_wait(struct docker_client *d, const char *id,
			  long timeout_ms, volatile int *interrupted,
			  int *exit_code_out);
/* 1 running, 0 not running; negative on error. */
int docker_container_running(struct docker_client *d, const char *id);
/* stdout+stderr, demultiplexed (TTY false only), in arrival order, at
 * most `max` bytes (0: 64 MiB; the tail is kept). `out` is reset first
 * and left empty on error. */
int docker_container_logs(struct docker_client *d, const char *id,
			  struct buf *out, size_t max);
/* POST /containers/{id}/kill?signal= (NULL: SIGKILL); not running is
 * CRS_ECONFLICT. */
int docker_container_kill(struct docker_client *d, const char *id,
			  const char *signal);
/* Stop with `grace_s` seconds before SIGKILL; not running is not an error. */
int docker_container_stop(struct docker_client *d, const char *id,
			  int grace_s);
/* DELETE /containers/{id}?v=1[&force=1] (anonymous volumes too). */
int docker_container_remove(struct docker_client *d, const char *id,
			    int force);
/* POST /commit?container=&repo=&tag=; *id_out (may be NULL) the image id. */
int docker_container_commit(struct docker_client *d, const char *id,
			    const char *repo, const char *tag,
			    char **id_out);

/* POST /networks/create {Name, CheckDuplicate, Internal, Labels}; 409 (name
 * taken) is CRS_ECONFLICT. *id_out (may be NULL) the network id. */
int docker_network_create(struct docker_client *d, const char *name,
			  int internal, const char *const *labels,
			  char **id_out);
/* DELETE /networks/{id}; a network with containers attached fails
 * (CRS_EENGINE, HTTP 403). */
int docker_network_remove(struct docker_client *d, const char *id);
/* POST /networks/{net}/connect with DNS aliases (may be NULL). */
int docker_network_connect(struct docker_client *d, const char *net,
			   const char *container, const char *const *aliases);

/*
 * Remove every container (forced, with anonymous volumes) and then every
 * network that carries the label CRS_CI_LABEL=<owner>. Used on the normal
 * exit path and on SIGINT/SIGTERM/deadline. Objects already gone are not
 * errors. Continues past errors; returns the first one (with its message).
 */
int docker_remove_owned(struct docker_client *d, const char *owner);
/* A container or network and its labels, from a listing. */
struct docker_object {
	char *id;
	char **labels;		/* "KEY=VALUE", NULL-terminated */
};
struct docker_objects {
	struct docker_object *v;
	size_t nr;
};
#define DOCKER_OBJECTS_INIT { NULL, 0 }

enum docker_kind { DOCKER_CONTAINERS, DOCKER_NETWORKS };

/*
 * GET /containers/json?all=1 or GET /networks, filtered by the engine on
 * `label` ("KEY" for objects that have the label at all, or "KEY=VALUE").
 * `out` is reset first; release with docker_objects_release().
 */
int docker_list_labelled(struct docker_client *d, enum docker_kind kind,
			 const char *label, struct docker_objects *out);
void docker_objects_release(struct docker_objects *o);
/* The value of label `key` on `o` (borrowed), or NULL. */
const char *docker_object_label(const struct docker_object *o,
				const char *key);

/* Remove a container (forced, with anonymous volumes) or a network; one
 * already gone is not an error. */
int docker_remove_object(struct docker_client *d, enum docker_kind kind,
			 const char *id);

#ifdef UNIT_TESTS	/* a test seam, not in the product: DOCKER_HOST parsing */
/* The host string the client talks to, for messages. Borrowed. */
const char *docker_client_host(const struct docker_client *d);
#endif

#endif
