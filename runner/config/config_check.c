/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_check.c - the checks OSS-CRS never made (contract §11.1)
 *
 * Runs after parsing, against this machine and the target: cpusets name
 * CPUs that exist and CRSs do not share them, supported_target suits the
 * project, every Dockerfile is a file inside its CRS root, required_envs
 * are satisfiable. Also holds the small value parsers (CPU lists, memory
 * sizes, names) the loaders share. Reads the host environment (getenv)
 * and the file system; writes nothing.
 */
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIELD_MAX 256

/* ---- value parsers --------------------------------------------------- */

static int parse_cpu(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned long)(*s++ - '0');
		if (v > 1000000)
			v = 1000000;	/* stays above CONFIG_CPU_MAX */
	}
	*p = s;
	*out = (unsigned)v;
	return 0;
}

int config_cpuset_ranges(struct config_cpu_range **out, size_t *nr_out,
			 const char *s)
{
	struct config_cpu_range *v = NULL;
	size_t nr = 0, alloc = 0, len;
	char q[YAML_DOC_QUOTE_MAX];
	char *copy = NULL;
	const char *p;
	int r = CRS_ERR;

	*out = NULL;
	*nr_out = 0;
	p = s + strspn(s, " \t");
	len = strlen(p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	copy = xstrndup(p, len);
	for (p = copy;;) {
		struct config_cpu_range cr;

		if (parse_cpu(&p, &cr.first) != 0)
			goto bad;
		cr.last = cr.first;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &cr.last) != 0)
				goto bad;
		}
		if (cr.first > cr.last) {
			r = crs_error_set(CRS_ECONFIG, "%s is not a CPU list "
					  "(%u-%u runs backwards)",
					  yaml_doc_quote(q, s), cr.first,
					  cr.last);
			goto out;
		}
		if (cr.last > CONFIG_CPU_MAX) {
			r = crs_error_set(CRS_ECONFIG, "%s names a cpu above "
					  "%d", yaml_doc_quote(q, s),
					  CONFIG_CPU_MAX);
			goto out;
		}
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = cr;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*out = v;
	*nr_out = nr;
	v = NULL; /* transferred */
	r = 0;
	goto out;
bad:
	r = crs_error_set(CRS_ECONFIG, "%s is not a CPU list",
			  yaml_doc_quote(q, s));
out:
	free(v);
	free(copy);
	return r;
}

#ifdef UNIT_TESTS
int config_parse_cpuset(const char *s, uint64_t *mask)
{
	struct config_cpu_range *v = NULL;
	char q[YAML_DOC_QUOTE_MAX];
	uint64_t m = 0;
	size_t nr = 0;
	int r;

	if ((r = config_cpuset_ranges(&v, &nr, s)) != 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		if (v[i].last > 63) {
			r = crs_error_set(CRS_ECONFIG, "%s names cpu %u; at "
					  "most cpu 63 fits a mask",
					  yaml_doc_quote(q, s), v[i].last);
			goto out;
		}
		for (unsigned c = v[i].first; c <= v[i].last; c++)
			m |= (uint64_t)1 << c;
	}
	*mask = m;
out:
	free(v);
	return r;
}
#endif

int config_parse_memory(const char *s, int64_t *bytes)
{
	static const struct { const char *unit; int shift; } units[] = {
		{ "b", 0 }, { "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	char q[YAML_DOC_QUOTE_MAX], uq[YAML_DOC_QUOTE_MAX];
	const char *p = s + strspn(s, " \t"), *num, *unit;
	size_t unit_len;
	long double v;
	char *tmp;
	int shift = -1;

	num = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == num)
		return crs_error_set(CRS_ECONFIG, "%s is not a size like "
				     "\"4G\"", yaml_doc_quote(q, s));
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1]))
			return crs_error_set(CRS_ECONFIG, "%s is not a size "
					     "like \"4G\"",
					     yaml_doc_quote(q, s));
		for (p++; isdigit((unsigned char)*p); p++)
			;
	}
	tmp = xstrndup(num, (size_t)(p - num));
	v = strtold(tmp, NULL);
	free(tmp);
	p += strspn(p, " \t");
	unit = p;
	while (isalpha((unsigned char)*p))
		p++;
	unit_len = (size_t)(p - unit);
	if (p[strspn(p, " \t")] != '\0')
		return crs_error_set(CRS_ECONFIG, "%s is not a size like "
				     "\"4G\"", yaml_doc_quote(q, s));
	if (!unit_len)
		return crs_error_set(CRS_ECONFIG, "%s has no unit (use B, K, "
				     "M, G or T)", yaml_doc_quote(q, s));
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].unit) == unit_len &&
		    !strncasecmp(units[i].unit, unit, unit_len))
			shift = units[i].shift;
	if (shift < 0) {
		char *u = xstrndup(unit, unit_len);

		yaml_doc_quote(uq, u);
		free(u);
		return crs_error_set(CRS_ECONFIG, "%s has an unknown unit %s "
				     "(use B, K, M, G or T)",
				     yaml_doc_quote(q, s), uq);
	}
	v *= (long double)((uint64_t)1 << shift);
	if (v < 1)
		return crs_error_set(CRS_ECONFIG, "%s is less than one byte",
				     yaml_doc_quote(q, s));
	if (v > (long double)((uint64_t)1 << 62))
		return crs_error_set(CRS_ECONFIG, "%s is too large",
				     yaml_doc_quote(q, s));
	*bytes = (int64_t)v;
	return 0;
}

int config_name_ok(const char *s)
{
	size_t n = 1;

	if (!s || !isalnum((unsigned char)*s) || (unsigned char)*s >= 0x80)
		return 0;
	for (s++; *s; s++, n++)
		if (n >= 128 || !(isalnum((unsigned char)*s) || *s == '-' ||
				  *s == '_'))
			return 0;
	return 1;
}

/* ---- cpusets ----------------------------------------------------------- */

static int cpus_exist(const struct compose_resources *res, const char *owner,
		      int ncpus)
{
	struct config_cpu_range *v = NULL;
	char field[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];
	size_t nr = 0;
	int r;

	yaml_doc_field(field, sizeof(field), "%s.cpuset", owner);
	if ((r = config_cpuset_ranges(&v, &nr, res->cpuset)) != 0)
		return crs_error_prefix("%s:%d:%d: %s", res->cpuset_pos.file,
					res->cpuset_pos.line,
					res->cpuset_pos.column, field);
	for (size_t i = 0; i < nr; i++) {
		unsigned missing = v[i].first > (unsigned)ncpus ?
			v[i].first : (unsigned)ncpus;

		if (v[i].last < (unsigned)ncpus)
			continue;
		r = config_pos_error(&res->cpuset_pos, field, "%s names cpu "
				     "%u, which this machine does not have",
				     yaml_doc_quote(q, res->cpuset), missing);
		break;
	}
	free(v);
	return r;
}

/* The first CPU two lists share, or -1. */
static long cpus_shared(const char *a, const char *b)
{
	struct config_cpu_range *va = NULL, *vb = NULL;
	size_t na = 0, nb = 0;
	long best = -1;

	if (config_cpuset_ranges(&va, &na, a) == 0 &&
	    config_cpuset_ranges(&vb, &nb, b) == 0) {
		for (size_t i = 0; i < na; i++) {
			for (size_t j = 0; j < nb; j++) {
				unsigned lo = va[i].first > vb[j].first ?
					va[i].first : vb[j].first;
				unsigned hi = va[i].last < vb[j].last ?
					va[i].last : vb[j].last;

				if (lo <= hi && (best < 0 || lo < best))
					best = lo;
			}
		}
	}
	free(va);
	free(vb);
	return best;
}

static int check_cpusets(const struct compose *c, int ncpus)
{
	char field[FIELD_MAX], qa[YAML_DOC_QUOTE_MAX], qb[YAML_DOC_QUOTE_MAX];
	int r;

	if ((r = cpus_exist(&c->infra, "oss_crs_infra", ncpus)) != 0)
		return r;
	for (size_t i = 0; i < c->crs_nr; i++)
		if ((r = cpus_exist(&c->crs[i].res, c->crs[i].name,
				    ncpus)) != 0)
			return r;
	/* the infra set may overlap: on a 2-core machine infra shares */
	for (size_t j = 1; j < c->crs_nr; j++) {
		const struct compose_crs *b = &c->crs[j];

		for (size_t i = 0; i < j; i++) {
			const struct compose_crs *a = &c->crs[i];
			long cpu = cpus_shared(a->res.cpuset, b->res.cpuset);

			if (cpu < 0)
				continue;
			yaml_doc_field(field, sizeof(field), "%s.cpuset",
				       b->name);
			yaml_doc_quote(qa, a->res.cpuset);
			yaml_doc_quote(qb, b->res.cpuset);
			return config_pos_error(&b->res.cpuset_pos, field,
						"%s shares cpu %ld with "
						"%s.cpuset %s", qb, cpu,
						a->name, qa);
		}
	}
	return 0;
}

/* ---- supported_target -------------------------------------------------- */

static int in_list(char **v, size_t nr, const char *s)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static int is_c_family(const char *s)
{
	return !strcmp(s, "c") || !strcmp(s, "c++");
}

static const char *join(char *out, size_t outsz, char **v, size_t nr)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < nr && o < outsz; i++)
		o += (size_t)snprintf(out + o, outsz - o, "%s%s",
				      i ? ", " : "", v[i]);
	return out;
}

static int unsupported(const struct compose_crs *e,
		       const struct project_config *p,
		       const struct config_pos *pos, const char *field,
		       const char *what, const char *value, char **list,
		       size_t nr)
{
	char q[YAML_DOC_QUOTE_MAX], qp[YAML_DOC_QUOTE_MAX], have[256];

	return config_pos_error(pos, field, "%s does not support %s, the %s "
				"of project %s (it supports %s)", e->name,
				yaml_doc_quote(q, value), what,
				yaml_doc_quote(qp, p->name),
				join(have, sizeof(have), list, nr));
}

static int check_target(const struct compose_crs *e,
			const struct project_config *p)
{
	const struct manifest *m = e->manifest;
	const char *s;
	int ok = in_list(m->languages, m->languages_nr, p->language);

	for (size_t i = 0; !ok && i < m->languages_nr; i++)
		ok = is_c_family(p->language) && is_c_family(m->languages[i]);
	if (!ok)
		return unsupported(e, p, &m->languages_pos,
				   "supported_target.language", "language",
				   p->language, m->languages, m->languages_nr);
	s = project_config_sanitizer(p);
	if (!in_list(m->sanitizers, m->sanitizers_nr, s))
		return unsupported(e, p, &m->sanitizers_pos,
				   "supported_target.sanitizer", "sanitizer",
				   s, m->sanitizers, m->sanitizers_nr);
	s = project_config_architecture(p);
	if (!in_list(m->architectures, m->architectures_nr, s))
		return unsupported(e, p, &m->architectures_pos,
				   "supported_target.architecture",
				   "architecture", s, m->architectures,
				   m->architectures_nr);
	s = project_config_engine(p);
	if (!in_list(m->engines, m->engines_nr, s))
		return unsupported(e, p, &m->engines_pos,
				   "supported_target.fuzzing_engine",
				   "fuzzing engine", s, m->engines,
				   m->engines_nr);
	return 0;
}

/* ---- Dockerfiles ------------------------------------------------------- */

/* The CRS root as the user reads it: crs.yaml's path minus oss-crs/. */
static char *shown_root(const char *manifest_path)
{
	char *s = xstrdup(manifest_path);

	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(s, '/');

		if (!slash) {
			free(s);
			return xstrdup(".");
		}
		*slash = '\0';
	}
	if (!*s) {
		free(s);
		return xstrdup("/");
	}
	return s;
}

int config_check_dockerfile(const struct manifest *m,
			    const struct config_pos *pos,
			    const char *field, const char *dockerfile)
{
	char q[YAML_DOC_QUOTE_MAX], qr[YAML_DOC_QUOTE_MAX];
	char *path = NULL, *real = NULL, *real_root = NULL, *root = NULL;
	struct stat st;
	size_t n;
	int r = CRS_ERR;

	root = shown_root(m->path);
	yaml_doc_quote(q, dockerfile);
	yaml_doc_quote(qr, root);
	if (!strncmp(dockerfile, "oss-crs-infra:", 14)) {
		r = config_pos_error(pos, field, "%s names an OSS-CRS infra "
				     "Dockerfile, which crs-ci does not ship",
				     q);
		goto out;
	}
	path = dockerfile[0] == '/' ? xstrdup(dockerfile) :
		xasprintf("%s/%s", m->root, dockerfile);
	if (!(real = realpath(path, NULL))) {
		r = config_pos_error(pos, field, "%s does not exist in the "
				     "crs root %s", q, qr);
		goto out;
	}
	if (!(real_root = realpath(m->root, NULL))) {
		r = config_pos_error(pos, field, "crs root %s: %s", qr,
				     strerror(errno));
		goto out;
	}
	n = strlen(real_root);
	if (strncmp(real, real_root, n) ||
	    (real[n] != '/' && strcmp(real_root, "/"))) {
		r = config_pos_error(pos, field, "%s is outside the crs root "
				     "%s", q, qr);
		goto out;
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = config_pos_error(pos, field, "%s is not a regular file",
				     q);
		goto out;
	}
	r = 0;
out:
	free(path);
	free(real);
	free(real_root);
	free(root);
	return r;
}

static int check_phases(const struct compose_crs *e)
{
	const struct manifest *m = e->manifest;
	char field[FIELD_MAX];
	int r;

	if (!m->builds_nr && !m->modules_nr)
		return config_pos_error(&m->run_phase_pos, "crs_run_phase",
					"%s has no run modules and no build "
					"steps", e->name);
	for (size_t i = 0; i < m->builds_nr; i++) {
		yaml_doc_field(field, sizeof(field),
			 "target_build_phase[%zu].dockerfile", i);
		r = config_check_dockerfile(m, &m->builds[i].dockerfile_pos,
					    field, m->builds[i].dockerfile);
		if (r != 0)
			return r;
	}
	for (size_t i = 0; i < m->modules_nr; i++) {
		yaml_doc_field(field, sizeof(field),
			       "crs_run_phase.%s.dockerfile",
			       m->modules[i].name);
		r = config_check_dockerfile(m, &m->modules[i].dockerfile_pos,
					    field, m->modules[i].dockerfile);
		if (r != 0)
			return r;
	}
	return 0;
}

/* ---- required_envs ----------------------------------------------------- */

static int env_set(const char *name, size_t len)
{
	char buf[256];

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return getenv(buf) != NULL;
}

/*
 * 1 when every $VAR and ${VAR} in `v` is set on the host; references
 * with a default (${VAR:-x}, ${VAR-x}) count as resolved, "$$" is a
 * literal dollar.
 */
static int env_value_resolved(const char *v)
{
	for (const char *p = v; *p; p++) {
		const char *name;
		size_t len;

		if (*p != '$')
			continue;
		if (p[1] == '$') {
			p++;
			continue;
		}
		if (p[1] == '{') {
			const char *close = strchr(p + 2, '}');

			if (!close)
				return 0;
			name = p + 2;
			len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789_");
			if (!(name[len] == '-' ||
			      (name[len] == ':' && name[len + 1] == '-')) &&
			    !env_set(name, len))
				return 0;
			p = close;
			continue;
		}
		name = p + 1;
		len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			     "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (len && !env_set(name, len))
			return 0;
		p += len;
	}
	return 1;
}

/* 1 when `list` sets `name` to a value that resolves. */
static int env_list_provides(const struct config_env_list *list,
			     const char *name)
{
	for (size_t i = 0; i < list->nr; i++)
		if (!strcmp(list->items[i].key, name) &&
		    env_value_resolved(list->items[i].value))
			return 1;
	return 0;
}

static int check_envs(const struct compose_crs *e)
{
	const struct manifest *m = e->manifest;
	char q[YAML_DOC_QUOTE_MAX];

	for (size_t i = 0; i < m->required_envs_nr; i++) {
		const char *name = m->required_envs[i];
		int ok = getenv(name) != NULL ||
			env_list_provides(&e->env, name);

		for (size_t j = 0; !ok && j < m->builds_nr; j++)
			ok = env_list_provides(&m->builds[j].env, name);
		for (size_t j = 0; !ok && j < m->modules_nr; j++)
			ok = env_list_provides(&m->modules[j].env, name);
		if (!ok)
			return config_pos_error(&m->required_envs_pos[i],
						"required_envs", "%s is not "
						"set in the environment or "
						"in %s.additional_env",
						yaml_doc_quote(q, name),
						e->name);
	}
	return 0;
}

/* ---- environment names the compose reads -------------------------------- */

/* url_env and key_env name a variable whose value crs-ci sends out. */
static int check_llm_env(const struct compose *c)
{
	static const char *const fields[] = {
		"llm_config.litellm.external.url_env",
		"llm_config.litellm.external.key_env",
	};
	const char *names[] = { c->llm.url_env, c->llm.key_env };
	const struct config_pos *pos[] = { &c->llm.url_env_pos,
					   &c->llm.key_env_pos };
	char q[YAML_DOC_QUOTE_MAX];

	for (size_t i = 0; i < 2; i++)
		if (names[i] && !config_env_allowed(names[i], &c->allow_env))
			return config_pos_error(pos[i], fields[i],
						"environment variable %s may "
						"not be read: %s (a trusted "
						"--allow-env %.64s allows it)",
						yaml_doc_quote(q, names[i]),
						config_env_allow_rule,
						names[i]);
	return 0;
}

/* ---- the whole check --------------------------------------------------- */

int config_check(const struct compose *c, const struct project_config *p,
		 int ncpus)
{
	struct config_pos top = { c->path, 1, 1 };
	char q[YAML_DOC_QUOTE_MAX];
	struct stat st;
	int r;

	if (ncpus <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpus = n > 0 && n < INT_MAX ? (int)n : 1;
	}
	if (!c->crs_nr)
		return config_pos_error(&top, NULL, "no crs entries");
	if ((r = check_cpusets(c, ncpus)) != 0 ||
	    (c->has_llm && (r = check_llm_env(c)) != 0))
		return r;
	if (c->has_llm && c->llm.config_path &&
	    (stat(c->llm.config_path, &st) != 0 || !S_ISREG(st.st_mode)))
		return config_pos_error(&c->llm.config_path_pos, "llm_config",
					"config file %s is not a file",
					yaml_doc_quote(q, c->llm.config_path));
	for (size_t i = 0; i < c->crs_nr; i++) {
		const struct compose_crs *e = &c->crs[i];

		if (!e->manifest)
			continue;
		if ((p && (r = check_target(e, p)) != 0) ||
		    (r = check_phases(e)) != 0 || (r = check_envs(e)) != 0)
			return r;
		/* no llm_config: no gateway, no key, no URL for any CRS */
		if (e->manifest->required_llms_nr && !c->has_llm &&
		    !c->llm_disabled)
			return config_pos_error(&e->pos, e->name, "requires "
						"LLMs (%s) but the compose has "
						"no llm_config",
						e->manifest->required_llms[0]);
	}
	return 0;
}
