/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reaper.c - remove what a dead crs-ci left on the engine (reaper.h)
 *
 * An owner is dead only when provably so (/proc, same pid namespace);
 * the watchdog is a double-forked child in its own session.
 *
 * Details: docs/crs-authors.md ("When crs-ci dies"); design notes:
 * docs/internals.md.
 */
#include "runner/engine/reaper.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/num.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WATCH_POLL_MS 1000
#define WATCH_DEADLINE_EVERY_S 5
/* After crs-ci died: how long to keep trying while the engine is away. */
#define WATCH_RETRY_S 300
#define GOODBYE 'd'

struct reaper_watchdog {
	int fd;		/* write end; closing it without GOODBYE = died */
};

/* --- who owns what ------------------------------------------------------ */

/* "<boot id>/pid:[<inode>]": the pid namespace on this kernel boot. */
static const char *self_pidns(void)
{
	static char ns[160];
	char boot[64] = "", link[64];
	FILE *f;
	ssize_t n;

	if (ns[0])
		return ns;
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re"))) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = '\0';
		fclose(f);
	}
	boot[strcspn(boot, "\n")] = '\0';
	n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (!boot[0] || n <= 0)
		return NULL;
	link[n] = '\0';
	snprintf(ns, sizeof(ns), "%s/%s", boot, link);
	return ns;
}

/* Field 22 of /proc/<pid>/stat (start time in clock ticks since boot):
 * 0, CRS_ENOTFOUND when there is no such process, CRS_ERR otherwise. */
static int proc_start(long pid, unsigned long long *out)
{
	char path[64], text[1024];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 ? CRS_ENOTFOUND : CRS_ERR;	/* exiting */
	text[n] = '\0';
	if (!(p = strrchr(text, ')')))
		return CRS_ERR;
	/* after ") ": field 3 (state) ... field 22 */
	for (int field = 2; field < 22; field++)
		if (!(p = strchr(p + 1, ' ')))
			return CRS_ERR;
	*out = strtoull(p + 1, NULL, 10);
	return 0;
}

void reaper_labels(struct strvec *labels, time_t deadline)
{
	const char *ns = self_pidns();
	unsigned long long start;

	if (ns && proc_start((long)getpid(), &start) == 0) {
		strvec_pushf(labels, "%s=%s", REAPER_PIDNS_LABEL, ns);
		strvec_pushf(labels, "%s=%ld", REAPER_PID_LABEL,
			     (long)getpid());
		strvec_pushf(labels, "%s=%llu", REAPER_START_LABEL, start);
	}
	if (deadline)
		strvec_pushf(labels, "%s=%lld", REAPER_DEADLINE_LABEL,
			     (long long)deadline);
}

/* 1 when the owner of `o` is provably gone, 0 when alive or unknown. */
static int owner_dead(const struct docker_object *o)
{
	const char *ns = docker_object_label(o, REAPER_PIDNS_LABEL);
	const char *pid = docker_object_label(o, REAPER_PID_LABEL);
	const char *start = docker_object_label(o, REAPER_START_LABEL);
	const char *self = self_pidns();
	unsigned long long now_start;
	unsigned long long was_start = 0;	/* unreadable: not this one */
	long p;
	int r;

	if (!ns || !pid || !start || !self || strcmp(ns, self))
		return 0;
	if (num_parse_long(pid, 1, LONG_MAX, &p) != 0)
		return 0;
	r = proc_start(p, &now_start);
	if (r == CRS_ENOTFOUND)
		return 1;
	num_parse_u64(start, ULLONG_MAX, &was_start);
	return r == 0 && now_start != was_start;
}

/*
 * The gateway's key files: every entry but folders in `dir`, then `dir`
 * itself. Only an absolute ".../keys" folder that is not a link and
 * belongs to us; opened once, entries removed through its descriptor.
 */
static void remove_keys(const char *dir)
{
	const char *base = strrchr(dir, '/');
	struct stat st;
	struct dirent *e;
	DIR *dp;
	int fd;

	if (dir[0] != '/' || !base || strcmp(base, "/keys"))
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
	    !(dp = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(dp), e->d_name, 0);
	closedir(dp);
	if (rmdir(dir) == 0)
		log_info("cleanup: removed the LLM key files in %s", dir);
}

/* Remove the key folders the containers in `o` name, then the objects. */
static size_t remove_objects(struct docker_client *d, enum docker_kind kind,
			     const struct docker_objects *o,
			     int (*pick)(const struct docker_object *))
{
	size_t n = 0;

	for (size_t i = 0; i < o->nr; i++) {
		const char *keys;

		if (pick && !pick(&o->v[i]))
			continue;
		keys = docker_object_label(&o->v[i], REAPER_KEYS_LABEL);
		if (docker_remove_object(d, kind, o->v[i].id) != 0) {
			log_warn("cleanup: %s", crs_error_last());
			crs_error_clear();
			continue;
		}
		if (keys)
			remove_keys(keys);
		n++;
	}
	return n;
}

void reaper_reap_dead(struct docker_client *d)
{
	static const enum docker_kind kinds[] = { DOCKER_CONTAINERS,
						  DOCKER_NETWORKS };
	size_t n[2] = { 0, 0 };

	/* cached here, before the sidecar's threads label containers */
	self_pidns();
	for (size_t k = 0; k < 2; k++) {
		struct docker_objects o = DOCKER_OBJECTS_INIT;

		if (docker_list_labelled(d, kinds[k], REAPER_PID_LABEL, &o))
			log_warn("cleanup: %s", crs_error_last());
		else
			n[k] = remove_objects(d, kinds[k], &o, owner_dead);
		crs_error_clear();
		docker_objects_release(&o);
	}
	if (n[0] || n[1])
		log_info("cleanup: removed %zu container(s) and %zu "
			 "network(s) left by crs-ci processes that are gone",
			 n[0], n[1]);
}

/* --- the watchdog ------------------------------------------------------- */

/* Remove everything of `owner`: containers (and key files), networks.
 * CRS_EENGINE while the engine does not answer. */
static int remove_owner(struct docker_client *d, const char *owner)
{
	struct docker_objects o = DOCKER_OBJECTS_INIT;
	char *label = xasprintf("%s=%s", CRS_CI_LABEL, owner);
	size_t n[2];
	int r;

	if ((r = docker_list_labelled(d, DOCKER_CONTAINERS, label, &o)) == 0) {
		n[0] = remove_objects(d, DOCKER_CONTAINERS, &o, NULL);
		if ((r = docker_list_labelled(d, DOCKER_NETWORKS, label,
					      &o)) == 0)
			n[1] = remove_objects(d, DOCKER_NETWORKS, &o, NULL);
	}
	if (r == 0)
		log_info("watchdog: crs-ci is gone: removed %zu container(s) "
			 "and %zu network(s) of %s", n[0], n[1], owner);
	docker_objects_release(&o);
	free(label);
	return r;
}

static int past_deadline(const struct docker_object *o)
{
	const char *t = docker_object_label(o, REAPER_DEADLINE_LABEL);
	long deadline = 0;	/* unreadable: long past */

	if (!t)
		return 0;
	num_parse_long(t, 0, LONG_MAX - REAPER_DEADLINE_GRACE_S, &deadline);
	return deadline + REAPER_DEADLINE_GRACE_S < (long)time(NULL);
}

/* Kill the containers of `owner` whose deadline (plus grace) passed. */
static void kill_overdue(struct docker_client *d, const char *owner)
{
	struct docker_objects o = DOCKER_OBJECTS_INIT;
	char *label = xasprintf("%s=%s", CRS_CI_LABEL, owner);

	if (docker_list_labelled(d, DOCKER_CONTAINERS, label, &o) == 0)
		for (size_t i = 0; i < o.nr; i++)
			if (past_deadline(&o.v[i]) &&
			    docker_container_kill(d, o.v[i].id, "KILL") == 0)
				log_warn("watchdog: killed container %.12s "
					 "of %s: past its deadline", o.v[i].id,
					 owner);
	crs_error_clear();
	docker_objects_release(&o);
	free(label);
}

static void watch(int fd, const char *owner)
{
	struct docker_client *d = NULL;
	time_t next = 0, give_up;
	char c = 0;

	if (docker_client_new(&d, NULL) != 0) {
		log_warn("watchdog: %s", crs_error_last());
		return;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, WATCH_POLL_MS) > 0) {
			n = read(fd, &c, 1);
			if (n < 0 && errno == EINTR)
				continue;
			break;	/* the goodbye, or end of file */
		}
		if (time(NULL) >= next) {
			kill_overdue(d, owner);
			next = time(NULL) + WATCH_DEADLINE_EVERY_S;
		}
	}
	give_up = time(NULL) + WATCH_RETRY_S;
	while (c != GOODBYE && remove_owner(d, owner) != 0 &&
	       time(NULL) < give_up) {
		log_warn("watchdog: %s (retrying)", crs_error_last());
		crs_error_clear();
		sleep(5);
	}
	docker_client_free(d);
}

/* The watchdog process: detached, quiet, logging to `log_path`. */
static void watchdog_main(int fd, const char *owner, const char *log_path)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
		       O_CLOEXEC, 0600);

	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	prctl(PR_SET_NAME, "crs-ci-watchdog", 0, 0, 0);
	dup2(null, 0);
	dup2(null, 1);
	dup2(log >= 0 ? log : null, 2);
	/* nothing else of crs-ci's: its sockets, its pipes */
	for (int i = 3; i < 1024; i++)
		if (i != fd)
			close(i);
	log_info("watchdog %ld for %s", (long)getpid(), owner);
	watch(fd, owner);
}

int reaper_watchdog_start(struct reaper_watchdog **out, const char *owner,
			  const char *log_path)
{
	int p[2], status;
	pid_t pid;

	*out = NULL;
	if (pipe2(p, O_CLOEXEC) != 0)
		return crs_error_set(CRS_ERR, "watchdog: pipe: %s",
				     strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return crs_error_set(CRS_ERR, "watchdog: fork: %s",
				     strerror(errno));
	}
	if (pid == 0) {
		close(p[1]);
		if (fork() == 0)
			watchdog_main(p[0], owner, log_path);
		_exit(0);
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out = xcalloc(1, sizeof(**out));
	(*out)->fd = p[1];
	return 0;
}

void reaper_watchdog_stop(struct reaper_watchdog *w, int cleaned)
{
	char c = GOODBYE;

	if (!w)
		return;
	if (cleaned && write(w->fd, &c, 1) != 1)
		log_warn("watchdog: cannot say goodbye: %s", strerror(errno));
	close(w->fd);
	free(w);
}
