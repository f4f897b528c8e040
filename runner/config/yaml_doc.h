/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_doc.h - a libyaml document tree with 1-based positions and typed
 * getters that report `file:line:col: field: problem`
 *
 * The config loaders (compose_load.c, crs_manifest.c, project_yaml.c) walk
 * the tree libyaml's loader builds; nothing here knows their schemas. After
 * yaml_doc_parse() every mapping key is a scalar and no mapping holds the
 * same key twice. Plain scalars are untyped in libyaml's tree: the getters
 * below decide what null, a boolean and a number look like.
 */
#ifndef CRS_RUNNER_CONFIG_YAML_DOC_H
#define CRS_RUNNER_CONFIG_YAML_DOC_H

#include <stddef.h>

#include <yaml.h>

#include "runner/config/config.h"

struct buf;

struct yaml_doc {
	yaml_document_t doc;
	const char *name;	/* borrowed: the file name shown in messages */
	int loaded;
};

/* Room for a value quoted by yaml_doc_quote(), quotes included. */
#define YAML_DOC_QUOTE_MAX 96

/*
 * Parse the first YAML document of `buf`. 0 or CRS_ECONFIG ("name:3:5:
 * invalid yaml: ..."), also for a second document, a non-scalar or
 * duplicate mapping key, or nesting deeper than 64. Release `d` with
 * yaml_doc_release() whatever this returns.
 */
int yaml_doc_parse(struct yaml_doc *d, const char *buf, size_t len,
		   const char *name);
void yaml_doc_release(struct yaml_doc *d);

/*
 * Read a config file of at most CONFIG_FILE_MAX bytes into `out`.
 * 0 or CRS_ECONFIG ("path: No such file or directory").
 */
int yaml_doc_read_file(struct buf *out, const char *path);

/* The root node, or NULL for an empty document. Borrowed. */
yaml_node_t *yaml_doc_root(struct yaml_doc *d);
/* The node with index `id` (from pairs and items). Borrowed. */
yaml_node_t *yaml_doc_node(struct yaml_doc *d, int id);

/* The 1-based position of a node; the only libyaml mark conversion. */
struct config_pos yaml_doc_pos(const struct yaml_doc *d,
			       const yaml_node_t *n);

/*
 * Set `<file>:<line>:<col>: <field>: <message>` (no "<field>: " when
 * `field` is NULL or empty) at node `n` and return CRS_ECONFIG.
 */
int yaml_doc_error(const struct yaml_doc *d, const yaml_node_t *n,
		   const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same text, logged as a warning. */
void yaml_doc_warn(const struct yaml_doc *d, const yaml_node_t *n,
		   const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "unknown key \"<key>\" ignored", warned at the key node `k`. */
void yaml_doc_warn_unknown(const struct yaml_doc *d, const yaml_node_t *k,
			   const char *field);

/* Same message shape from a stored position. Returns CRS_ECONFIG. */
int config_pos_error(const struct config_pos *pos, const char *field,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * printf into a field-path buffer; a path too long is cut (it is only
 * shown in messages). Returns out.
 */
const char *yaml_doc_field(char *out, size_t outsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * `s` in double quotes with \", \\, \n and non-printable bytes escaped,
 * cut with "..." to fit YAML_DOC_QUOTE_MAX. Returns out.
 */
const char *yaml_doc_quote(char out[YAML_DOC_QUOTE_MAX], const char *s);

/* The key and value nodes of a mapping pair. Borrowed. */
#define YAML_DOC_KEY(d, pair) yaml_doc_node((d), (pair)->key)
#define YAML_DOC_VALUE(d, pair) yaml_doc_node((d), (pair)->value)

/*
 * Pair `i` of the mapping node `map`: *k and *v get its key and value
 * nodes (borrowed), *key the key's text; `v` and `key` may be NULL.
 * Returns 1, or 0 past the last pair. The walk over a mapping:
 *	for (size_t i = 0; yaml_doc_pair(d, map, i, &k, &v, &key); i++)
 */
int yaml_doc_pair(struct yaml_doc *d, const yaml_node_t *map, size_t i,
		  yaml_node_t **k, yaml_node_t **v, const char **key);

/* "a mapping", "a list", "empty" or "a scalar", for messages. */
const char *yaml_doc_kind(const yaml_node_t *n);
/* 0 when `v` is a mapping, else CRS_ECONFIG "must be a mapping, not ..." */
int yaml_doc_want_mapping(struct yaml_doc *d, const yaml_node_t *at,
			  const yaml_node_t *v, const char *field);

/* 1 for a plain `null`, `Null`, `NULL`, `~` or empty scalar. */
int yaml_doc_is_null(const yaml_node_t *n);
/* The text of a scalar node (NUL-terminated), or NULL. Borrowed. */
const char *yaml_doc_scalar(const yaml_node_t *n);

/*
 * Typed getters. `at` is where a message points (usually the key), `v` the
 * value, `field` the dotted path. Each returns 0 or CRS_ECONFIG.
 * get_str: a non-null scalar without NUL bytes; *out is xstrdup'ed.
 * get_trimmed: get_str without leading and trailing spaces and tabs.
 * get_bool: true/false, yes/no, on/off in any case.
 * get_number: a finite decimal number.
 * get_str_list: a scalar (one item) or a sequence of scalars; *out is a
 *   NULL-terminated xmalloc'ed array the caller frees with
 *   config_strv_free(). A null value gives an empty list.
 */
int yaml_doc_get_str(struct yaml_doc *d, const yaml_node_t *at,
		     const yaml_node_t *v, const char *field, char **out);
int yaml_doc_get_trimmed(struct yaml_doc *d, const yaml_node_t *at,
			 const yaml_node_t *v, const char *field, char **out);
int yaml_doc_get_bool(struct yaml_doc *d, const yaml_node_t *at,
		      const yaml_node_t *v, const char *field, int *out);
int yaml_doc_get_number(struct yaml_doc *d, const yaml_node_t *at,
			const yaml_node_t *v, const char *field,
			double *out);
int yaml_doc_get_str_list(struct yaml_doc *d, const yaml_node_t *at,
			  const yaml_node_t *v, const char *field,
			  char ***out, size_t *nr_out);

/*
 * An additional_env map: null gives an empty list; keys must match
 * [A-Za-z_][A-Za-z0-9_]*; values are scalars (a plain null is ""). Keys
 * starting with OSS_CRS_ or equal to VERSION are warned about: the
 * framework's own values win. Appends to *env.
 */
int yaml_doc_get_env(struct yaml_doc *d, const yaml_node_t *at,
		     const yaml_node_t *v, const char *field,
		     struct config_env_list *env);

#endif
