/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbol_match.c - which touched function names one ELF symbol is
 *
 * One open-addressing table of keys: C names, whole C++ encodings and
 * their leading components, each with its 64-bit FNV-1a hash. FNV-1a is
 * computed byte by byte, so walking a symbol probes every candidate
 * prefix (a C name ends at '.' or the end; an encoding ends after a
 * component) with the hash so far, in O(1) each: the cost is the bytes
 * walked, not the number of names.
 */
#include "runner/exec/symbol_match.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull
#define NONE ((size_t)-1)

enum {
	KEY_C = 1,		/* a C name: the symbol, or a clone of it */
	KEY_ENC = 2,		/* the whole encoding of a name */
	KEY_PREFIX = 4,		/* the leading components of an encoding */
};

struct key {
	const char *s;		/* in m->owned; NULL: a free slot */
	size_t len;
	uint64_t hash;
	unsigned kind;
	size_t c_first, enc_first;	/* names with this key, or NONE */
	int c_done, enc_done;		/* all of them found */
};

struct symbol_match {
	struct key *slot;
	size_t nr, cap;			/* cap: a power of two */
	size_t *c_next, *enc_next;	/* per name: the next of its key */
	size_t c_max, enc_max;		/* longest key of each rule */
	char **owned;			/* the keys' bytes: names, encodings */
	size_t owned_nr;
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= FNV_PRIME;
	}
	return h;
}

static struct key *find(const struct symbol_match *m, uint64_t h,
			const char *s, size_t len)
{
	size_t i = (size_t)h & (m->cap - 1);

	for (; m->slot[i].s; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].hash == h && m->slot[i].len == len &&
		    !memcmp(m->slot[i].s, s, len))
			break;
	return &m->slot[i];
}

static void grow(struct symbol_match *m)
{
	struct key *old = m->slot;
	size_t old_cap = m->cap;

	m->cap = old_cap ? st_mult(old_cap, 2) : 64;
	m->slot = xcalloc(m->cap, sizeof(*m->slot));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].s)
			*find(m, old[i].hash, old[i].s, old[i].len) = old[i];
	free(old);
}

/*
 * The key s[0..len) of hash h, added if new (s must outlive m: a prefix
 * shares the bytes of its encoding); valid until the next add.
 */
static struct key *add(struct symbol_match *m, const char *s, size_t len,
		       uint64_t h, unsigned kind)
{
	struct key *k;

	if ((m->nr + 1) * 2 > m->cap)
		grow(m);
	k = find(m, h, s, len);
	if (!k->s) {
		*k = (struct key){ s, len, h, 0, NONE, NONE, 0, 0 };
		m->nr++;
	}
	k->kind |= kind;
	return k;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "ns::Class::method" as "2ns5Class6method"; NULL if not plain. */
static char *encode(const char *name)
{
	struct buf out = BUF_INIT;
	const char *p = name;

	for (;;) {
		const char *e = strstr(p, "::");
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!n || is_digit(*p) || memchr(p, '~', n) ||
		    memchr(p, ' ', n) || memchr(p, '<', n) ||
		    !strncmp(p, "operator", 8)) {
			buf_release(&out);
			return NULL;
		}
		buf_printf(&out, "%zu", n);
		buf_add(&out, p, n);
		if (!e)
			return buf_detach(&out, NULL);
		p = e + 2;
	}
}

static const char *own(struct symbol_match *m, char *s)
{
	m->owned[m->owned_nr++] = s;
	return s;
}

/* Each leading run of components of enc as a prefix key, all as one. */
static void add_encoding(struct symbol_match *m, const char *enc, size_t i)
{
	size_t len = strlen(enc), at = 0, from;
	uint64_t h = FNV_OFFSET;
	struct key *k;

	for (;;) {
		size_t v = 0;

		for (from = at; is_digit(enc[at]); at++)
			v = v * 10 + (size_t)(enc[at] - '0');
		at += v;
		h = fnv(h, enc + from, at - from);
		if (at >= len)
			break;
		add(m, enc, at, h, KEY_PREFIX);
	}
	k = add(m, enc, len, h, KEY_ENC);
	m->enc_next[i] = k->enc_first;
	k->enc_first = i;
	if (len > m->enc_max)
		m->enc_max = len;
}

struct symbol_match *symbol_match_new(const char *const *names,
				      size_t names_nr)
{
	struct symbol_match *m = xcalloc(1, sizeof(*m));

	m->c_next = xcalloc(names_nr ? names_nr : 1, sizeof(*m->c_next));
	m->owned = xcalloc(st_mult(names_nr ? names_nr : 1, 2),
			   sizeof(*m->owned));
	m->enc_next = xcalloc(names_nr ? names_nr : 1, sizeof(*m->enc_next));
	grow(m);
	for (size_t i = 0; i < names_nr; i++) {
		size_t n = strlen(names[i]);
		char *enc;

		if (!n)
			continue;
		if (!strstr(names[i], "::")) {
			struct key *k = add(m, own(m, xstrdup(names[i])), n,
					    fnv(FNV_OFFSET, names[i], n),
					    KEY_C);

			m->c_next[i] = k->c_first;
			k->c_first = i;
			if (n > m->c_max)
				m->c_max = n;
		}
		if ((enc = encode(names[i])) != NULL)
			add_encoding(m, own(m, enc), i);
	}
	return m;
}

void symbol_match_free(struct symbol_match *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->owned_nr; i++)
		free(m->owned[i]);
	free(m->owned);
	free(m->slot);
	free(m->c_next);
	free(m->enc_next);
	free(m);
}

static void mark(size_t i, const size_t *next, int *done,
		 unsigned char *found, size_t *found_nr)
{
	for (; i != NONE; i = next[i])
		if (!found[i]) {
			found[i] = 1;
			(*found_nr)++;
		}
	*done = 1;
}

/* Spend n steps; 0 when *work held them. */
static int spend(uint64_t *work, size_t n)
{
	if (*work < n) {
		*work = 0;
		return -1;
	}
	*work -= n;
	return 0;
}

/* The C rule: the name is the symbol up to a '.' or its end. */
static int match_c(struct symbol_match *m, const char *sym,
		   unsigned char *found, size_t *found_nr, uint64_t *work)
{
	uint64_t h = FNV_OFFSET;
	size_t p;

	for (p = 0; p <= m->c_max; p++) {
		if (p && (sym[p] == '.' || !sym[p])) {
			struct key *k = find(m, h, sym, p);

			if (k->s && (k->kind & KEY_C) && !k->c_done)
				mark(k->c_first, m->c_next, &k->c_done, found,
				     found_nr);
		}
		if (!sym[p])
			break;
		h = (h ^ (unsigned char)sym[p]) * FNV_PRIME;
	}
	return spend(work, p);
}

/* The encodings starting at s: one component at a time. */
static int match_at(struct symbol_match *m, const char *s,
		    unsigned char *found, size_t *found_nr, uint64_t *work)
{
	uint64_t h = FNV_OFFSET;
	size_t q = 0;		/* where the next component starts */

	while (is_digit(s[q]) && s[q] != '0') {
		size_t v = 0, d = q, end, e;
		struct key *k;

		while (is_digit(s[d]) && v <= m->enc_max)
			v = v * 10 + (size_t)(s[d++] - '0');
		if (is_digit(s[d]) || v > m->enc_max || d + v > m->enc_max)
			break;	/* longer than any encoding */
		end = d + v;
		for (e = q; e < end && s[e]; e++)
			h = (h ^ (unsigned char)s[e]) * FNV_PRIME;
		if (spend(work, e - q + 1) != 0)
			return -1;
		if (e < end)
			break;	/* the symbol ends inside the component */
		q = end;
		k = find(m, h, s, q);
		if (!k->s)
			break;
		if ((k->kind & KEY_ENC) && !k->enc_done)
			mark(k->enc_first, m->enc_next, &k->enc_done, found,
			     found_nr);
		if (!(k->kind & KEY_PREFIX))
			break;
	}
	return 0;
}

int symbol_match_sym(struct symbol_match *m, const char *sym,
		     unsigned char *found, size_t *found_nr, uint64_t *work)
{
	if (m->c_max && match_c(m, sym, found, found_nr, work) != 0)
		return -1;
	if (!m->enc_max || sym[0] != '_' || sym[1] != 'Z')
		return 0;
	for (size_t p = 2; sym[p]; p++) {
		if (spend(work, 1) != 0)
			return -1;
		if (is_digit(sym[p]) && !is_digit(sym[p - 1]) &&
		    match_at(m, sym + p, found, found_nr, work) != 0)
			return -1;
	}
	return 0;
}
