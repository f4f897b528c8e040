/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_doc.c - libyaml's loaded document, positions and typed getters
 *
 * The one place that turns libyaml's 0-based marks into the 1-based
 * `file:line:col` of every config message (mark_pos). Input is a user's
 * config file: aliases may share or even loop nodes, so the key check walks
 * each node once and stops at a fixed depth.
 */
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define YAML_DOC_DEPTH_MAX 64
#define YAML_DOC_PATH_MAX 256

static void mark_pos(const yaml_mark_t *m, int *line, int *column)
{
	*line = (int)m->line + 1;
	*column = (int)m->column + 1;
}

struct config_pos yaml_doc_pos(const struct yaml_doc *d,
			       const yaml_node_t *n)
{
	struct config_pos pos = { d->name, 1, 1 };

	if (n)
		mark_pos(&n->start_mark, &pos.line, &pos.column);
	return pos;
}

const char *yaml_doc_quote(char out[YAML_DOC_QUOTE_MAX], const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	out[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[5];
		size_t n = 0;

		if (c == '"' || c == '\\') {
			esc[n++] = '\\';
			esc[n++] = (char)c;
		} else if (c == '\n') {
			esc[n++] = '\\';
			esc[n++] = 'n';
		} else if (c < 0x20 || c >= 0x7f) {
			esc[n++] = '\\';
			esc[n++] = 'x';
			esc[n++] = hex[c >> 4];
			esc[n++] = hex[c & 15];
		} else {
			esc[n++] = (char)c;
		}
		/* keep room for `..."` and the NUL */
		if (o + n + 5 > YAML_DOC_QUOTE_MAX) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

const char *yaml_doc_field(char *out, size_t outsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, outsz, fmt, ap);
	va_end(ap);
	return out;
}

/*
 * Format `<file>:<line>:<col>: <field>: <message>` at `p`, then log it as a
 * warning when `warn` is set, else set it as the error. Returns 0 for a
 * warning, CRS_ECONFIG for an error.
 */
static int pos_vreport(const struct config_pos *p, int warn,
		       const char *field, const char *fmt, va_list ap)
{
	char msg[1024];
	int n;

	if (field && *field)
		n = snprintf(msg, sizeof(msg), "%s:%d:%d: %s: ", p->file,
			     p->line, p->column, field);
	else
		n = snprintf(msg, sizeof(msg), "%s:%d:%d: ", p->file, p->line,
			     p->column);
	if (n >= 0 && (size_t)n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	if (warn) {
		log_warn("%s", msg);
		return 0;
	}
	return crs_error_set(CRS_ECONFIG, "%s", msg);
}

int config_pos_error(const struct config_pos *pos, const char *field,
		     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pos_vreport(pos, 0, field, fmt, ap);
	va_end(ap);
	return r;
}

int yaml_doc_error(const struct yaml_doc *d, const yaml_node_t *n,
		   const char *field, const char *fmt, ...)
{
	struct config_pos pos = yaml_doc_pos(d, n);
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pos_vreport(&pos, 0, field, fmt, ap);
	va_end(ap);
	return r;
}

void yaml_doc_warn(const struct yaml_doc *d, const yaml_node_t *n,
		   const char *field, const char *fmt, ...)
{
	struct config_pos pos = yaml_doc_pos(d, n);
	va_list ap;

	va_start(ap, fmt);
	pos_vreport(&pos, 1, field, fmt, ap);
	va_end(ap);
}

void yaml_doc_warn_unknown(const struct yaml_doc *d, const yaml_node_t *k,
			   const char *field)
{
	yaml_doc_warn(d, k, field, "unknown key \"%s\" ignored",
		      yaml_doc_scalar(k));
}

int yaml_doc_read_file(struct buf *out, const char *path)
{
	char msg[1024];
	int r = fs_read_file(out, path, CONFIG_FILE_MAX);

	if (r == 0)
		return 0;
	/* keep the message, but every config failure is CRS_ECONFIG */
	snprintf(msg, sizeof(msg), "%s", crs_error_last());
	return crs_error_set(CRS_ECONFIG, "%s", msg);
}

yaml_node_t *yaml_doc_root(struct yaml_doc *d)
{
	return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

yaml_node_t *yaml_doc_node(struct yaml_doc *d, int id)
{
	return yaml_document_get_node(&d->doc, id);
}

int yaml_doc_pair(struct yaml_doc *d, const yaml_node_t *map, size_t i,
		  yaml_node_t **k, yaml_node_t **v, const char **key)
{
	const yaml_node_pair_t *p = map->data.mapping.pairs.start;

	if (i >= (size_t)(map->data.mapping.pairs.top - p))
		return 0;
	*k = yaml_doc_node(d, p[i].key);
	if (v)
		*v = yaml_doc_node(d, p[i].value);
	if (key)
		*key = yaml_doc_scalar(*k);
	return 1;
}

const char *yaml_doc_scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

int yaml_doc_is_null(const yaml_node_t *n)
{
	const char *s = yaml_doc_scalar(n);

	if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* Line and column of byte `off` in buf, for reader (encoding) errors. */
static void offset_pos(const char *buf, size_t len, size_t off, int *line,
		       int *column)
{
	yaml_mark_t m = { 0, 0, 0 };

	for (size_t i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
			m.column++;
		}
	}
	mark_pos(&m, line, column);
}

static int syntax_error(const struct yaml_doc *d, const yaml_parser_t *p,
			const char *buf, size_t len)
{
	const char *problem = p->problem ? p->problem : "unknown error";
	int line = 1, column = 1, cline = 1, ccol = 1;

	if (p->error == YAML_READER_ERROR) {
		offset_pos(buf, len, p->problem_offset, &line, &column);
		return crs_error_set(CRS_ECONFIG,
				     "%s:%d:%d: invalid yaml: %s", d->name,
				     line, column, problem);
	}
	if (p->error == YAML_MEMORY_ERROR)
		return crs_error_set(CRS_ECONFIG, "%s: yaml: out of memory",
				     d->name);
	mark_pos(&p->problem_mark, &line, &column);
	if (p->context) {
		mark_pos(&p->context_mark, &cline, &ccol);
		return crs_error_set(CRS_ECONFIG,
				     "%s:%d:%d: invalid yaml: %s (%s at line "
				     "%d, column %d)", d->name, line, column,
				     problem, p->context, cline, ccol);
	}
	return crs_error_set(CRS_ECONFIG, "%s:%d:%d: invalid yaml: %s",
			     d->name, line, column, problem);
}

/*
 * Check every mapping once: scalar keys, no duplicates. `seen` marks
 * visited nodes so shared (aliased) and looping nodes are walked once.
 */
static int check_keys(struct yaml_doc *d, int id, unsigned char *seen,
		      int depth, const char *path)
{
	yaml_node_t *n = yaml_doc_node(d, id);
	char sub[YAML_DOC_PATH_MAX];
	int r = 0;

	if (!n || seen[id])
		return 0;
	seen[id] = 1;
	if (depth > YAML_DOC_DEPTH_MAX)
		return yaml_doc_error(d, n, path, "nested more than %d deep",
				      YAML_DOC_DEPTH_MAX);
	if (n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it = n->data.sequence.items.start;

		for (size_t i = 0; r == 0 && it + i <
		     n->data.sequence.items.top; i++) {
			yaml_doc_field(sub, sizeof(sub), "%s[%zu]", path, i);
			r = check_keys(d, it[i], seen, depth + 1, sub);
		}
		return r;
	}
	if (n->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *a = n->data.mapping.pairs.start;
	     r == 0 && a < n->data.mapping.pairs.top; a++) {
		yaml_node_t *k = yaml_doc_node(d, a->key);
		const char *ks = yaml_doc_scalar(k);

		if (!ks)
			return yaml_doc_error(d, k, path,
					      "a key must be a string");
		yaml_doc_field(sub, sizeof(sub), "%s%s%s", path,
			       *path ? "." : "", ks);
		for (yaml_node_pair_t *b = n->data.mapping.pairs.start;
		     b < a; b++) {
			yaml_node_t *bk = yaml_doc_node(d, b->key);
			const char *bs = yaml_doc_scalar(bk);

			if (bs && !strcmp(bs, ks)) {
				struct config_pos first = yaml_doc_pos(d, bk);

				return yaml_doc_error(d, k, sub,
						      "duplicate key (first "
						      "at line %d)",
						      first.line);
			}
		}
		r = check_keys(d, a->value, seen, depth + 1, sub);
	}
	return r;
}

int yaml_doc_parse(struct yaml_doc *d, const char *buf, size_t len,
		   const char *name)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	unsigned char *seen = NULL;
	int parser_ready = 0, r = CRS_ERR;

	memset(d, 0, sizeof(*d));
	d->name = name;
	if (!yaml_parser_initialize(&parser)) {
		r = crs_error_set(CRS_ECONFIG, "%s: yaml: out of memory",
				  name);
		goto out;
	}
	parser_ready = 1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf,
				     len);
	if (!yaml_parser_load(&parser, &d->doc)) {
		r = syntax_error(d, &parser, buf, len);
		goto out;
	}
	d->loaded = 1;
	if (!yaml_doc_root(d)) {	/* empty stream: nothing more to read */
		r = 0;
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		r = syntax_error(d, &parser, buf, len);
		goto out;
	}
	if (yaml_document_get_root_node(&extra)) {
		int line = 1, column = 1;

		mark_pos(&extra.start_mark, &line, &column);
		yaml_document_delete(&extra);
		r = crs_error_set(CRS_ECONFIG, "%s:%d:%d: invalid yaml: more "
				  "than one document", name, line, column);
		goto out;
	}
	yaml_document_delete(&extra);
	seen = xcalloc((size_t)(d->doc.nodes.top - d->doc.nodes.start) + 1,
		       1);
	r = check_keys(d, 1, seen, 0, "");
out:
	free(seen);
	if (parser_ready)
		yaml_parser_delete(&parser);
	return r;
}

void yaml_doc_release(struct yaml_doc *d)
{
	if (!d)
		return;
	if (d->loaded)
		yaml_document_delete(&d->doc);
	d->loaded = 0;
}

/* ---- typed getters ------------------------------------------------- */

const char *yaml_doc_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	default: return yaml_doc_is_null(n) ? "empty" : "a scalar";
	}
}

int yaml_doc_want_mapping(struct yaml_doc *d, const yaml_node_t *at,
			  const yaml_node_t *v, const char *field)
{
	if (v->type == YAML_MAPPING_NODE)
		return 0;
	return yaml_doc_error(d, at, field, "must be a mapping, not %s",
			      yaml_doc_kind(v));
}

int yaml_doc_get_str(struct yaml_doc *d, const yaml_node_t *at,
		     const yaml_node_t *v, const char *field, char **out)
{
	const char *s = yaml_doc_scalar(v);

	*out = NULL;
	if (!s || yaml_doc_is_null(v))
		return yaml_doc_error(d, at, field, "must be a string, not %s",
				      yaml_doc_kind(v));
	if (strlen(s) != v->data.scalar.length)
		return yaml_doc_error(d, at, field, "contains a NUL byte");
	*out = xstrdup(s);
	return 0;
}

int yaml_doc_get_trimmed(struct yaml_doc *d, const yaml_node_t *at,
			 const yaml_node_t *v, const char *field, char **out)
{
	size_t n, skip;
	char *s;
	int r;

	if ((r = yaml_doc_get_str(d, at, v, field, out)) != 0)
		return r;
	s = *out;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	skip = strspn(s, " \t");
	memmove(s, s + skip, n - skip + 1);
	return 0;
}

int yaml_doc_get_bool(struct yaml_doc *d, const yaml_node_t *at,
		      const yaml_node_t *v, const char *field, int *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *s = yaml_doc_scalar(v);
	char q[YAML_DOC_QUOTE_MAX];

	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = 1, 0;
		if (!strcasecmp(s, no[i]))
			return *out = 0, 0;
	}
	if (!s)
		return yaml_doc_error(d, at, field,
				      "must be true or false, not %s",
				      yaml_doc_kind(v));
	return yaml_doc_error(d, at, field, "%s is not true or false",
			      yaml_doc_quote(q, s));
}

int yaml_doc_get_number(struct yaml_doc *d, const yaml_node_t *at,
			const yaml_node_t *v, const char *field,
			double *out)
{
	const char *s = yaml_doc_scalar(v);
	char q[YAML_DOC_QUOTE_MAX];
	char *end = NULL;
	double x;

	if (!s || yaml_doc_is_null(v))
		return yaml_doc_error(d, at, field, "must be a number, not %s",
				      yaml_doc_kind(v));
	x = strtod(s, &end);
	if (end == s || *end || !isfinite(x) || strchr(s, 'x') ||
	    strchr(s, 'X'))
		return yaml_doc_error(d, at, field, "%s is not a number",
				      yaml_doc_quote(q, s));
	*out = x;
	return 0;
}

int yaml_doc_get_str_list(struct yaml_doc *d, const yaml_node_t *at,
			  const yaml_node_t *v, const char *field,
			  char ***out, size_t *nr_out)
{
	char **list = NULL;
	size_t nr = 0;
	char sub[YAML_DOC_PATH_MAX];
	int r = CRS_ERR;

	*out = NULL;
	*nr_out = 0;
	if (yaml_doc_is_null(v)) {
		list = xcalloc(1, sizeof(*list));
	} else if (v->type == YAML_SCALAR_NODE) {
		list = xcalloc(2, sizeof(*list));
		if ((r = yaml_doc_get_str(d, at, v, field, &list[0])) != 0)
			goto out;
		nr = 1;
	} else if (v->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it = v->data.sequence.items.start;
		size_t n = (size_t)(v->data.sequence.items.top - it);

		list = xcalloc(st_add(n, 1), sizeof(*list));
		for (; nr < n; nr++) {
			yaml_node_t *item = yaml_doc_node(d, it[nr]);

			yaml_doc_field(sub, sizeof(sub), "%s[%zu]", field, nr);
			if ((r = yaml_doc_get_str(d, item, item, sub,
						  &list[nr])) != 0)
				goto out;
		}
	} else {
		r = yaml_doc_error(d, at, field, "must be a list, not %s",
				   yaml_doc_kind(v));
		goto out;
	}
	*out = list;
	*nr_out = nr;
	list = NULL; /* transferred */
	r = 0;
out:
	config_strv_free(list);
	return r;
}

int yaml_doc_get_env(struct yaml_doc *d, const yaml_node_t *at,
		     const yaml_node_t *v, const char *field,
		     struct config_env_list *env)
{
	char sub[YAML_DOC_PATH_MAX];
	char q[YAML_DOC_QUOTE_MAX];
	yaml_node_t *k, *val;
	const char *key;
	size_t n;

	if (yaml_doc_is_null(v))
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return yaml_doc_error(d, at, field,
				      "must be a mapping of names to values, "
				      "not %s", yaml_doc_kind(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	env->items = xrealloc(env->items,
			      st_mult(st_add(env->nr, n), sizeof(*env->items)));
	for (size_t i = 0; yaml_doc_pair(d, v, i, &k, &val, &key); i++) {
		struct config_env *e;
		char *value = NULL;
		int r;

		if (!config_env_name_ok(key))
			return yaml_doc_error(d, k, field, "%s is not an "
					      "environment variable name",
					      yaml_doc_quote(q, key));
		yaml_doc_field(sub, sizeof(sub), "%s.%s", field, key);
		if (yaml_doc_is_null(val))
			value = xstrdup("");
		else if ((r = yaml_doc_get_str(d, k, val, sub, &value)) != 0)
			return r;
		if (!strncmp(key, "OSS_CRS_", 8) || !strcmp(key, "VERSION"))
			yaml_doc_warn(d, k, field, "%s is reserved: where "
				      "crs-ci sets it, its value wins",
				      yaml_doc_quote(q, key));
		e = &env->items[env->nr++];
		e->key = xstrdup(key);
		e->value = value;
		e->pos = yaml_doc_pos(d, k);
	}
	return 0;
}
