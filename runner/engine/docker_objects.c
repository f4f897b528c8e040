/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker_objects.c - networks, and the objects a scan owns by label:
 * listed and removed together
 */
#include "runner/engine/docker.h"
#include "runner/engine/docker_call.h"
#include "runner/engine/tar_context.h"
#include "runner/http/http.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/log_lines.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

/* --- networks ----------------------------------------------------------- */

int docker_network_create(struct docker_client *d, const char *name,
			  int internal, const char *const *labels,
			  char **id_out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_json b = { 0 };
	json_t *body = json_object(), *lab = NULL;
	char what[300], sid[256];
	int r;

	if (id_out)
		*id_out = NULL;
	snprintf(what, sizeof(what), "create network '%s'",
		 docker_short(sid, sizeof(sid), name));
	if ((r = docker_jkv(&b, labels, "label", &lab)) != 0)
		goto out;
	docker_jset(&b, body, "Name", docker_jstr(&b, name));
	docker_jset(&b, body, "CheckDuplicate", json_true());
	docker_jset(&b, body, "Internal", json_boolean(internal));
	docker_jset(&b, body, "Labels", lab);
	if ((r = docker_json_check(&b, what)) != 0 ||
	    (r = docker_call(d, "POST", DOCKER_API "/networks/create", body,
			     DOCKER_CALL_TIMEOUT_MS, &resp)) != 0)
		goto out;
	if (resp.status != 201) {
		r = docker_status_error(&resp, NULL, NULL, what);
		goto out;
	}
	r = docker_answer_string(&resp, what, "Id", id_out);
out:
	json_decref(body);
	http_response_release(&resp);
	return r;
}

int docker_network_remove(struct docker_client *d, const char *id)
{
	static const long ok[] = { 204, 200, 0 };

	return docker_object_op(d, "DELETE", "network", id, NULL, NULL, ok,
				DOCKER_CALL_TIMEOUT_MS, "remove", NULL);
}

int docker_network_connect(struct docker_client *d, const char *net,
			   const char *container, const char *const *aliases)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct docker_json b = { 0 };
	struct buf path = BUF_INIT;
	json_t *body = json_object(), *ep = json_object();
	char what[600], sid[256], sid2[256];
	int r;

	snprintf(what, sizeof(what), "connect container '%s' to network "
		 "'%s'", docker_short(sid, sizeof(sid), container),
		 docker_short(sid2, sizeof(sid2), net));
	docker_jset(&b, body, "Container", docker_jstr(&b, container));
	if (aliases && aliases[0])
		docker_jset(&b, ep, "Aliases", docker_jstrv(&b, aliases));
	docker_jset(&b, body, "EndpointConfig", ep);
	if ((r = docker_json_check(&b, what)) != 0)
		goto out;
	docker_path(&path, "/networks/", net, "/connect");
	if ((r = docker_call(d, "POST", path.ptr, body,
			     DOCKER_CALL_TIMEOUT_MS, &resp)) != 0)
		goto out;
	if (resp.status != 200)
		r = docker_status_error(&resp, NULL, NULL, what);
out:
	json_decref(body);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

/* --- what a scan owns --------------------------------------------------- */

int docker_list_labelled(struct docker_client *d, enum docker_kind kind,
			 const char *label, struct docker_objects *out)
{
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct buf path = BUF_INIT;
	json_t *filter = NULL, *list = NULL;
	const char *what_kind = kind == DOCKER_CONTAINERS ? "containers" :
		"networks";
	char *text = NULL;
	char what[300], q[256];
	int r;

	docker_objects_release(out);
	snprintf(what, sizeof(what), "list %s labelled '%s'", what_kind,
		 log_quote(q, sizeof(q), label, strlen(label)));
	filter = json_pack("{s:[s]}", "label", label);
	if (!filter) {
		r = crs_error_set(CRS_EINPUT, "%s: the label is not valid "
				  "UTF-8", what);
		goto out;
	}
	text = json_dumps(filter, JSON_COMPACT);
	docker_path(&path, kind == DOCKER_CONTAINERS ? "/containers/json" :
		    "/networks", NULL, NULL);
	if (kind == DOCKER_CONTAINERS)
		docker_query(&path, "all", "1");
	docker_query(&path, "filters", text);
	if ((r = docker_call(d, "GET", path.ptr, NULL, DOCKER_CALL_TIMEOUT_MS,
			     &resp)) != 0)
		goto out;
	if (resp.status != 200) {
		r = docker_status_error(&resp, NULL, NULL, what);
		goto out;
	}
	if ((r = docker_parse_json(&resp, what, &list)) != 0)
		goto out;
	out->v = xcalloc(json_array_size(list) + 1, sizeof(*out->v));
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *o = json_array_get(list, i);
		json_t *id = json_object_get(o, "Id"), *v;
		struct docker_object *dst = &out->v[out->nr];
		struct strvec labels = STRVEC_INIT;
		const char *key;

		if (!json_is_string(id))
			continue;
		json_object_foreach(json_object_get(o, "Labels"), key, v)
			if (json_is_string(v))
				strvec_pushf(&labels, "%s=%s", key,
					     json_string_value(v));
		strvec_list(&labels);	/* never NULL */
		dst->id = xstrdup(json_string_value(id));
		dst->labels = labels.v ? labels.v : xcalloc(1, sizeof(char *));
		out->nr++;
	}
	r = 0;
out:
	json_decref(list);
	json_decref(filter);
	free(text);
	http_response_release(&resp);
	buf_release(&path);
	return r;
}

void docker_objects_release(struct docker_objects *o)
{
	for (size_t i = 0; i < o->nr; i++) {
		for (char **l = o->v[i].labels; l && *l; l++)
			free(*l);
		free(o->v[i].labels);
		free(o->v[i].id);
	}
	free(o->v);
	o->v = NULL;
	o->nr = 0;
}

const char *docker_object_label(const struct docker_object *o,
				const char *key)
{
	size_t n = strlen(key);

	for (char **l = o->labels; l && *l; l++)
		if (!strncmp(*l, key, n) && (*l)[n] == '=')
			return *l + n + 1;
	return NULL;
}

/* What carries CRS_CI_LABEL=<owner>. */
static int docker_list_owned(struct docker_client *d, enum docker_kind kind,
			     const char *owner, struct docker_objects *out)
{
	char *label = xasprintf("%s=%s", CRS_CI_LABEL, owner);
	int r = docker_list_labelled(d, kind, label, out);

	free(label);
	return r;
}

int docker_remove_object(struct docker_client *d, enum docker_kind kind,
			 const char *id)
{
	int r = kind == DOCKER_CONTAINERS ? docker_container_remove(d, id, 1) :
		docker_network_remove(d, id);

	if (r == CRS_ENOTFOUND) {	/* gone already */
		crs_error_clear();
		r = 0;
	}
	return r;
}

int docker_remove_owned(struct docker_client *d, const char *owner)
{
	static const enum docker_kind kinds[] = { DOCKER_CONTAINERS,
						  DOCKER_NETWORKS };
	char first_msg[1024] = "";
	int first = 0;

	for (size_t k = 0; k < 2; k++) {
		struct docker_objects o = DOCKER_OBJECTS_INIT;
		int r = docker_list_owned(d, kinds[k], owner, &o);

		for (size_t i = 0; r == 0 && i < o.nr; i++) {
			int e = docker_remove_object(d, kinds[k], o.v[i].id);

			if (e != 0 && !first) {
				first = e;
				snprintf(first_msg, sizeof(first_msg), "%s",
					 crs_error_last());
			}
		}
		if (r != 0 && !first) {
			first = r;
			snprintf(first_msg, sizeof(first_msg), "%s",
				 crs_error_last());
		}
		docker_objects_release(&o);
	}
	if (first)
		return crs_error_set(first, "%s", first_msg);
	return 0;
}
