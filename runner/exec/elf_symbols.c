/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_symbols.c - which named functions an ELF harness binary defines
 *
 * Reads only what it needs with pread, never maps the file: a binary
 * the pull request's build wrote may lie in every field, so each offset
 * and size is checked against the file's size, each count against the
 * bytes behind it, each name against its string table, and the whole
 * read against ELF_SYMBOLS_READ_MAX. Each symbol meets all names at
 * once (symbol_match.c). Details: docs/select.md.
 */
#include "runner/exec/elf_symbols.h"
#include "runner/exec/symbol_match.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SECTIONS_MAX 65536u	/* more section headers: refused */
#define SYMS_CHUNK 4096u	/* symbols read at a time */
#define CHECK_STEPS (1u << 22)	/* steps between clock checks */

/* One section header, whatever the file's class. */
struct elf_sec {
	uint32_t type, link;
	uint64_t offset, size, entsize;
};

struct elf_file {
	int fd;
	int is64;
	uint64_t size;		/* of the file */
	uint64_t budget;	/* bytes left to read */
	const char *shown;
};

static int bad(const struct elf_file *e, const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: %s", e->shown, what);
}

/* `len` bytes at `off`, which must lie in the file and the budget. */
static int read_at(struct elf_file *e, void *dst, uint64_t off, uint64_t len)
{
	unsigned char *p = dst;

	if (off > e->size || len > e->size - off)
		return bad(e, "an offset or size points past the end of the "
			   "file");
	if (len > e->budget)
		return crs_error_set(CRS_EINPUT, "%s: symbol tables larger "
				     "than %u MiB", e->shown,
				     ELF_SYMBOLS_READ_MAX >> 20);
	e->budget -= len;
	while (len) {
		size_t want = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t n = pread(e->fd, p, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return crs_error_set(CRS_ERR, "%s: %s", e->shown,
					     strerror(errno));
		if (n == 0)
			return bad(e, "the file is shorter than it says");
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

static int read_header(struct elf_file *e, uint64_t *shoff, uint64_t *shnum,
		       unsigned *shentsize)
{
	unsigned char id[EI_NIDENT];
	int r;

	if (e->size < EI_NIDENT)
		return bad(e, "not an ELF file");
	if ((r = read_at(e, id, 0, EI_NIDENT)) != 0)
		return r;
	if (memcmp(id, ELFMAG, SELFMAG) != 0)
		return bad(e, "not an ELF file");
	if (id[EI_DATA] != ELFDATA2LSB ||
	    (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64))
		return bad(e, "not a little-endian ELF32 or ELF64 file");
	e->is64 = id[EI_CLASS] == ELFCLASS64;
	if (e->is64) {
		Elf64_Ehdr h;

		if ((r = read_at(e, &h, 0, sizeof(h))) != 0)
			return r;
		*shoff = h.e_shoff;
		*shnum = h.e_shnum;
		*shentsize = h.e_shentsize;
	} else {
		Elf32_Ehdr h;

		if ((r = read_at(e, &h, 0, sizeof(h))) != 0)
			return r;
		*shoff = h.e_shoff;
		*shnum = h.e_shnum;
		*shentsize = h.e_shentsize;
	}
	return 0;
}

static int read_sec(struct elf_file *e, struct elf_sec *out, uint64_t shoff,
		    uint64_t i)
{
	int r;

	if (e->is64) {
		Elf64_Shdr s;

		if ((r = read_at(e, &s, shoff + i * sizeof(s), sizeof(s))) != 0)
			return r;
		*out = (struct elf_sec){ s.sh_type, s.sh_link, s.sh_offset,
					 s.sh_size, s.sh_entsize };
	} else {
		Elf32_Shdr s;

		if ((r = read_at(e, &s, shoff + i * sizeof(s), sizeof(s))) != 0)
			return r;
		*out = (struct elf_sec){ s.sh_type, s.sh_link, s.sh_offset,
					 s.sh_size, s.sh_entsize };
	}
	return 0;
}

/* Every section header, checked for count and place. */
static int read_sections(struct elf_file *e, struct elf_sec **out,
			 uint64_t *nr_out)
{
	uint64_t shoff = 0, shnum = 0;
	unsigned shentsize = 0;
	size_t want;
	struct elf_sec *v = NULL;
	int r;

	*out = NULL;
	*nr_out = 0;
	if ((r = read_header(e, &shoff, &shnum, &shentsize)) != 0)
		return r;
	want = e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (!shoff)
		return bad(e, "no section headers (stripped of them)");
	if (shentsize != want)
		return bad(e, "section header size is not the ELF one");
	if (shoff > e->size)
		return bad(e, "section headers past the end of the file");
	if (shnum == 0) {
		/* extended numbering: the count is section 0's sh_size */
		struct elf_sec s0;

		if ((r = read_sec(e, &s0, shoff, 0)) != 0)
			return r;
		shnum = s0.size;
	}
	if (shnum > SECTIONS_MAX || shnum > (e->size - shoff) / want)
		return bad(e, "more section headers than the file holds");
	v = xcalloc((size_t)shnum, sizeof(*v));
	for (uint64_t i = 0; i < shnum; i++)
		if ((r = read_sec(e, &v[i], shoff, i)) != 0) {
			free(v);
			return r;
		}
	*out = v;
	*nr_out = shnum;
	return 0;
}

/* What one lookup has and may still spend. */
struct lookup {
	struct symbol_match *m;
	unsigned char *found;
	size_t *found_nr, names_nr;
	const struct elf_symbols_limit *lim;
	double started;
	uint64_t work, checked;	/* steps left; steps at the last check */
	uint64_t syms_read;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 0 to go on; CRS_EINTR or CRS_ETIMEOUT to end the lookup now. */
static int check_limits(struct elf_file *e, struct lookup *l)
{
	double spent = now() - l->started;

	l->checked = l->work;
	if (l->lim && l->lim->stop && *l->lim->stop)
		return crs_error_set(CRS_EINTR, "%s: symbol lookup "
				     "interrupted", e->shown);
	if (l->lim && l->lim->seconds > 0 && spent > l->lim->seconds)
		return crs_error_set(CRS_ETIMEOUT, "%s: symbol lookup stopped "
				     "after %.0f s (%llu symbols read)",
				     e->shown, spent,
				     (unsigned long long)l->syms_read);
	return 0;
}

/* One defined function symbol against every name at once. */
static int match(struct elf_file *e, struct lookup *l, const char *sym)
{
	l->syms_read++;
	if (symbol_match_sym(l->m, sym, l->found, l->found_nr, &l->work))
		return crs_error_set(CRS_ETIMEOUT, "%s: symbol lookup stopped "
				     "after %llu steps (%llu symbols read)",
				     e->shown,
				     (unsigned long long)ELF_SYMBOLS_WORK_MAX,
				     (unsigned long long)l->syms_read);
	if (l->checked - l->work >= CHECK_STEPS ||
	    l->syms_read % SYMS_CHUNK == 0)
		return check_limits(e, l);
	return 0;
}

/* The defined functions of one symbol table, matched against names. */
static int scan_table(struct elf_file *e, const struct elf_sec *secs,
		      uint64_t secs_nr, const struct elf_sec *tab,
		      struct lookup *l)
{
	size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	const struct elf_sec *str;
	char *strtab = NULL;
	unsigned char *chunk = NULL;
	uint64_t count, done = 0;
	int r = 0;

	if (tab->entsize != esz || tab->size % esz)
		return bad(e, "a symbol table's entry size is not the ELF one");
	if (tab->link >= secs_nr || secs[tab->link].type != SHT_STRTAB)
		return bad(e, "a symbol table's string table is not one");
	str = &secs[tab->link];
	if (tab->offset > e->size || tab->size > e->size - tab->offset ||
	    str->offset > e->size || str->size > e->size - str->offset)
		return bad(e, "a symbol table lies past the end of the file");
	if (tab->size > e->budget || str->size > e->budget - tab->size)
		return crs_error_set(CRS_EINPUT, "%s: symbol tables larger "
				     "than %u MiB", e->shown,
				     ELF_SYMBOLS_READ_MAX >> 20);
	count = tab->size / esz;
	strtab = xmalloc((size_t)str->size + 1);
	if ((r = read_at(e, strtab, str->offset, str->size)) != 0)
		goto out;
	strtab[str->size] = '\0';	/* a last name runs no further */
	chunk = xmalloc(SYMS_CHUNK * esz);
	while (done < count && *l->found_nr < l->names_nr) {
		uint64_t n = count - done < SYMS_CHUNK ? count - done :
			SYMS_CHUNK;

		if ((r = read_at(e, chunk, tab->offset + done * esz,
				 n * esz)) != 0)
			goto out;
		for (uint64_t k = 0; k < n; k++) {
			uint32_t name;
			unsigned type;
			uint16_t shndx;

			if (e->is64) {
				Elf64_Sym s;

				memcpy(&s, chunk + k * esz, sizeof(s));
				name = s.st_name;
				type = ELF64_ST_TYPE(s.st_info);
				shndx = s.st_shndx;
			} else {
				Elf32_Sym s;

				memcpy(&s, chunk + k * esz, sizeof(s));
				name = s.st_name;
				type = ELF32_ST_TYPE(s.st_info);
				shndx = s.st_shndx;
			}
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    shndx == SHN_UNDEF || name >= str->size)
				continue;
			if ((r = match(e, l, strtab + name)) != 0)
				goto out;
		}
		done += n;
	}
out:
	free(chunk);
	free(strtab);
	return r;
}

int elf_symbols_find(size_t *found_nr, unsigned char *found, int dirfd,
		     const char *file, const char *shown,
		     const char *const *names, size_t names_nr,
		     const struct elf_symbols_limit *lim)
{
	struct elf_file e = { .fd = -1, .budget = ELF_SYMBOLS_READ_MAX,
			      .shown = shown };
	struct lookup l = { .found = found, .found_nr = found_nr,
			    .names_nr = names_nr, .lim = lim,
			    .started = now(), .work = ELF_SYMBOLS_WORK_MAX,
			    .checked = ELF_SYMBOLS_WORK_MAX };
	struct elf_sec *secs = NULL;
	uint64_t secs_nr = 0;
	struct stat st;
	int r = CRS_ERR, tables = 0;

	*found_nr = 0;
	memset(found, 0, names_nr);
	e.fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		      O_NOCTTY | O_CLOEXEC);
	if (e.fd < 0) {
		r = errno == ELOOP ?
			crs_error_set(CRS_EINPUT, "%s: a link, not a file",
				      shown) :
			crs_error_set(errno == ENOENT ? CRS_EINPUT : CRS_ERR,
				      "%s: %s", shown, strerror(errno));
		goto out;
	}
	if (fstat(e.fd, &st) != 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", shown, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = crs_error_set(CRS_EINPUT, "%s: not a regular file", shown);
		goto out;
	}
	e.size = (uint64_t)st.st_size;
	if ((r = read_sections(&e, &secs, &secs_nr)) != 0)
		goto out;
	l.m = symbol_match_new(names, names_nr);
	for (uint64_t i = 0; i < secs_nr && r == 0; i++)
		if (secs[i].type == SHT_SYMTAB || secs[i].type == SHT_DYNSYM) {
			tables++;
			r = scan_table(&e, secs, secs_nr, &secs[i], &l);
		}
	if (r == 0 && !tables)
		r = bad(&e, "no symbol table (stripped)");
out:
	symbol_match_free(l.m);
	if (r != 0 && r != CRS_ETIMEOUT && r != CRS_EINTR) {
		*found_nr = 0;
		memset(found, 0, names_nr);
	}
	if (e.fd >= 0)
		close(e.fd);
	free(secs);
	return r;
}
