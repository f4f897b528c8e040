/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_build.c - test ELF64 files with a symbol table of any size
 *
 * See elf_build.h. The layout is the one a linker writes for a file's
 * symbols: ehdr | .strtab | .symtab | .shstrtab | section headers.
 */
#include "tests/helper/elf_build.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int elf_build_write(int dirfd, const char *file, const char *const *syms,
		    size_t syms_nr)
{
	static const char shstr[] = "\0.strtab\0.symtab\0.shstrtab";
	size_t str_len = 1, str_off, sym_off, shs_off, sh_off, len, p;
	unsigned char *b;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	Elf64_Sym *sym;
	int r;

	for (size_t i = 0; i < syms_nr; i++)
		str_len = st_add(str_len, strlen(syms[i]) + 1);
	str_off = sizeof(Elf64_Ehdr);
	sym_off = align8(str_off + str_len);
	shs_off = sym_off + (syms_nr + 1) * sizeof(Elf64_Sym);
	sh_off = align8(shs_off + sizeof(shstr));
	len = sh_off + 4 * sizeof(Elf64_Shdr);
	b = xcalloc(len, 1);
	eh = (Elf64_Ehdr *)b;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shoff = sh_off;
	eh->e_shnum = 4;
	eh->e_shstrndx = 3;
	sym = (Elf64_Sym *)(b + sym_off);
	p = 1;
	for (size_t i = 0; i < syms_nr; i++) {
		size_t n = strlen(syms[i]) + 1;

		memcpy(b + str_off + p, syms[i], n);
		sym[i + 1].st_name = (Elf64_Word)p;
		sym[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym[i + 1].st_shndx = 1;
		p += n;
	}
	memcpy(b + shs_off, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(b + sh_off);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB,
			      .sh_offset = str_off, .sh_size = str_len };
	sh[2] = (Elf64_Shdr){ .sh_name = 9, .sh_type = SHT_SYMTAB,
			      .sh_offset = sym_off, .sh_link = 1,
			      .sh_size = (syms_nr + 1) * sizeof(Elf64_Sym),
			      .sh_entsize = sizeof(Elf64_Sym) };
	sh[3] = (Elf64_Shdr){ .sh_name = 17, .sh_type = SHT_STRTAB,
			      .sh_offset = shs_off, .sh_size = sizeof(shstr) };
	r = fs_write_at(dirfd, file, b, len);
	free(b);
	if (r != 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* "ns::Klass::m" as Itanium's nested "N2ns5Klass1mE". */
static char *nested(const char *const *parts, size_t nr, int wrong_len)
{
	char *s = xstrdup("N"), *t;

	for (size_t i = 0; i < nr; i++) {
		size_t n = strlen(parts[i]);

		t = xasprintf("%s%zu%s", s, n + (wrong_len && i + 1 == nr),
			      parts[i]);
		free(s);
		s = t;
	}
	t = xasprintf("%sE", s);
	free(s);
	return t;
}

static void push(char ***v, size_t *nr, size_t *alloc, char *s)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = s;
}

void elf_build_big_make(struct elf_build_big *b, size_t syms_nr,
			size_t names_nr)
{
	size_t syms_alloc = 0, names_alloc = 0;

	memset(b, 0, sizeof(*b));
	b->expect = xcalloc(names_nr ? names_nr : 1, 1);
	for (size_t i = 0; i < names_nr; i++) {
		int def = i < names_nr / 2;
		char a[32], c[32], *sym = NULL, *n;

		snprintf(a, sizeof(a), "ns%zu", i);
		snprintf(c, sizeof(c), "method_%zu", i);
		switch (i % 4) {
		case 0:	/* C: exact, or one character more */
			n = xasprintf("c_func_%zu", i);
			sym = def ? xstrdup(n) : xasprintf("%s_x", n);
			break;
		case 1: {	/* C++: nested, or a length that differs */
			const char *parts[] = { a, "Klass", c };
			char *m = nested(parts, 3, !def);

			n = xasprintf("%s::Klass::%s", a, c);
			sym = xasprintf("_Z%sEv", m);
			free(m);
			break;
		}
		case 2:	/* C: a compiler clone, or a longer name */
			n = xasprintf("clone_%zu", i);
			sym = xasprintf(def ? "%s.cold" : "x%s", n);
			break;
		default: {	/* C++: or its encoding after a digit */
			const char *parts[] = { "op", a, "run" };
			char *m = nested(parts, 3, 0);

			n = xasprintf("op::%s::run", a);
			sym = def ? xasprintf("_Z%si", m) :
				xasprintf("_ZN1%si", m + 1);
			free(m);
			break;
		}
		}
		push(&b->names, &b->names_nr, &names_alloc, n);
		if (b->syms_nr < syms_nr) {
			push(&b->syms, &b->syms_nr, &syms_alloc, sym);
			b->expect[i] = (unsigned char)def;
		} else {
			free(sym);
		}
	}
	for (size_t j = b->syms_nr; j < syms_nr; j++)
		push(&b->syms, &b->syms_nr, &syms_alloc, j % 2 ?
		     xasprintf("filler_%zu", j) :
		     xasprintf("_ZN3lib6detail%zuf%zuEPKcm",
			       1 + (size_t)snprintf(NULL, 0, "%zu", j), j));
}

void elf_build_big_release(struct elf_build_big *b)
{
	for (size_t i = 0; i < b->syms_nr; i++)
		free(b->syms[i]);
	for (size_t i = 0; i < b->names_nr; i++)
		free(b->names[i]);
	free(b->syms);
	free(b->names);
	free(b->expect);
	memset(b, 0, sizeof(*b));
}
