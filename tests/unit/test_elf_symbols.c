/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_elf_symbols.c - the harness binary's function symbols, and what a
 * hostile binary cannot make the lookup do
 *
 * A hand-built ELF64 (header, .symtab, .strtab, section headers) holds
 * the cases; each hostile variant breaks one field of it. The test's own
 * executable is a real binary from the toolchain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/exec/elf_symbols.h"
#include "runner/exec/symbol_match.h"
#include "tests/helper/elf_build.h"
#include "tests/helper/symbol_ref.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_elf_symbols.XXXXXX";
static int dfd = -1;

/* The image: ehdr | strtab | symtab | shstrtab | shdrs[4]. */
struct img {
	unsigned char b[4096];
	size_t len;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;		/* null, .strtab, .symtab, .shstrtab */
	Elf64_Sym *sym;
	size_t sym_nr;
};

static const char *const SYMS[] = {
	"parse_extended", "rp_parse.cold", "_ZN2ns5Class6methodEv",
	"undefined_fn", "data_object", "_Z15parse_somethingv",
};

static void build(struct img *m)
{
	size_t str_off, sym_off, shs_off, sh_off, p;
	static const char shstr[] = "\0.strtab\0.symtab\0.shstrtab";

	memset(m, 0, sizeof(*m));
	m->eh = (Elf64_Ehdr *)m->b;
	memcpy(m->eh->e_ident, ELFMAG, SELFMAG);
	m->eh->e_ident[EI_CLASS] = ELFCLASS64;
	m->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	m->eh->e_ident[EI_VERSION] = EV_CURRENT;
	m->eh->e_type = ET_EXEC;
	m->eh->e_machine = EM_X86_64;
	m->eh->e_version = EV_CURRENT;
	m->eh->e_ehsize = sizeof(Elf64_Ehdr);
	m->eh->e_shentsize = sizeof(Elf64_Shdr);
	/* .strtab */
	str_off = p = sizeof(Elf64_Ehdr);
	m->b[p++] = '\0';
	for (size_t i = 0; i < sizeof(SYMS) / sizeof(*SYMS); i++) {
		memcpy(m->b + p, SYMS[i], strlen(SYMS[i]) + 1);
		p += strlen(SYMS[i]) + 1;
	}
	/* .symtab: the null symbol, then one per name */
	p = sym_off = (p + 7) & ~(size_t)7;
	m->sym = (Elf64_Sym *)(m->b + sym_off);
	m->sym_nr = 1 + sizeof(SYMS) / sizeof(*SYMS);
	for (size_t i = 0, name = 1; i + 1 < m->sym_nr; i++) {
		Elf64_Sym *s = &m->sym[i + 1];

		s->st_name = (Elf64_Word)name;
		s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		s->st_shndx = 1;
		name += strlen(SYMS[i]) + 1;
	}
	m->sym[4].st_shndx = SHN_UNDEF;			/* undefined_fn */
	m->sym[5].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	p += m->sym_nr * sizeof(Elf64_Sym);
	shs_off = p;
	memcpy(m->b + p, shstr, sizeof(shstr));
	p += sizeof(shstr);
	sh_off = p = (p + 7) & ~(size_t)7;
	m->sh = (Elf64_Shdr *)(m->b + sh_off);
	m->sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB,
				 .sh_offset = str_off,
				 .sh_size = sym_off - str_off };
	m->sh[2] = (Elf64_Shdr){ .sh_name = 9, .sh_type = SHT_SYMTAB,
				 .sh_offset = sym_off, .sh_link = 1,
				 .sh_size = m->sym_nr * sizeof(Elf64_Sym),
				 .sh_entsize = sizeof(Elf64_Sym) };
	m->sh[3] = (Elf64_Shdr){ .sh_name = 17, .sh_type = SHT_STRTAB,
				 .sh_offset = shs_off,
				 .sh_size = sizeof(shstr) };
	m->eh->e_shoff = sh_off;
	m->eh->e_shnum = 4;
	m->eh->e_shstrndx = 3;
	m->len = sh_off + 4 * sizeof(Elf64_Shdr);
	assert_true(m->len <= sizeof(m->b));
}

static void put(const char *name, const void *data, size_t len)
{
	assert_int_equal(fs_write_at(dfd, name, data, len), 0);
}

static const char *const WANT[] = {
	"parse_extended", "rp_parse", "ns::Class::method", "undefined_fn",
	"data_object", "parse", "missing",
};
#define WANT_NR (sizeof(WANT) / sizeof(*WANT))

static int lookup(const char *file, size_t *nr, unsigned char *found)
{
	int r = elf_symbols_find(nr, found, dfd, file, file, WANT, WANT_NR,
				 NULL);

	if (r != 0)
		print_message("  %s: %s\n", file, crs_error_last());
	return r;
}

static void test_finds_defined_functions(void **state)
{
	struct img m;
	unsigned char found[WANT_NR];
	size_t nr = 99;

	(void)state;
	build(&m);
	put("good", m.b, m.len);
	assert_int_equal(lookup("good", &nr, found), 0);
	assert_int_equal(nr, 3);
	assert_true(found[0]);		/* exact */
	assert_true(found[1]);		/* rp_parse.cold: a clone */
	assert_true(found[2]);		/* mangled nested name */
	assert_false(found[3]);		/* undefined */
	assert_false(found[4]);		/* an object, not a function */
	assert_false(found[5]);		/* "15parse_something" is not it */
	assert_false(found[6]);
}

/* One symbol against one name through the index. */
static int matches(const char *sym, const char *name)
{
	struct symbol_match *m = symbol_match_new(&name, 1);
	unsigned char found = 0;
	size_t nr = 0;
	uint64_t work = UINT64_MAX;

	assert_int_equal(symbol_match_sym(m, sym, &found, &nr, &work), 0);
	symbol_match_free(m);
	assert_int_equal(nr, found);
	assert_int_equal(found, symbol_ref_matches(sym, name));
	return found;
}

static void test_matches(void **state)
{
	(void)state;
	assert_true(matches("parse", "parse"));
	assert_true(matches("parse.llvm.123", "parse"));
	assert_false(matches("parser", "parse"));
	assert_false(matches("xparse", "parse"));
	assert_true(matches("_Z5parsePKc", "parse"));
	assert_false(matches("_Z15parsePKc", "parse"));
	assert_false(matches("_Z6parserPKc", "parse"));
	assert_true(matches("_ZN2ns5Class6methodEv", "ns::Class::method"));
	assert_false(matches("_ZN2ns5Class7methodsEv", "ns::Class::method"));
	assert_false(matches("_ZN2ns5Class6methodEv", "ns::Class::~Class"));
	assert_false(matches("anything", ""));
	/* a name with a dot, clones of clones, a leading zero */
	assert_true(matches("a.b.cold", "a.b"));
	assert_true(matches("a.b", "a"));
	assert_false(matches("_ZN02ns5Class6methodEv", "ns::Class::method"));
	/* the encoding after other components, and cut short */
	assert_true(matches("_ZN3foo2ns5Class6methodEv", "ns::Class::method"));
	assert_false(matches("_ZN2ns5Class6meth", "ns::Class::method"));
	assert_true(matches("_ZN2ns5Class6method", "ns::Class::method"));
	/* a component text ending in a digit before the next length */
	assert_true(matches("_ZN2a13b3cEv", "a1::b3c"));
	assert_false(matches("_ZN2a14b3cEv", "a1::b3c"));
	assert_false(matches("_ZN99999999999999999999999ns", "ns"));
}

/*
 * Many names against many symbols, one index and one found array for
 * all (as in a lookup): the index says what the old rule says.
 */
static void test_matches_like_the_old_rule(void **state)
{
	static const char *const parts[] = { "a", "b1", "ns", "x.y", "op",
					     "Class", "2c", "" };
	static const char *const tails[] = { "", "Ev", ".cold", "1", "E",
					     "ns", "2ns" };
	enum { NAMES = 200, SYMS = 3000 };
	char *names[NAMES], sym[128];
	unsigned char found[NAMES] = { 0 }, want[NAMES] = { 0 };
	struct symbol_match *m;
	unsigned seed = 7;
	size_t nr = 0;

	(void)state;
	for (size_t i = 0; i < NAMES; i++) {
		char b[64] = "";
		size_t k = 1 + (seed = seed * 1103515245u + 12345u) % 3;

		for (size_t j = 0; j < k; j++) {
			seed = seed * 1103515245u + 12345u;
			if (j)
				strcat(b, "::");
			strcat(b, parts[(seed >> 8) % 8]);
		}
		names[i] = strdup(b);
	}
	m = symbol_match_new((const char *const *)names, NAMES);
	for (size_t s = 0; s < SYMS; s++) {
		size_t want_nr = 0, k;
		uint64_t work = UINT64_MAX;

		seed = seed * 1103515245u + 12345u;
		strcpy(sym, (seed >> 4) % 3 ? "_ZN" : "");
		k = (seed >> 10) % 4;
		for (size_t j = 0; j < k; j++) {
			const char *p;

			seed = seed * 1103515245u + 12345u;
			p = parts[(seed >> 8) % 8];
			if ((seed >> 16) % 2)
				sprintf(sym + strlen(sym), "%zu", strlen(p));
			strcat(sym, p);
		}
		strcat(sym, tails[(seed >> 20) % 7]);
		assert_int_equal(symbol_match_sym(m, sym, found, &nr, &work),
				 0);
		for (size_t i = 0; i < NAMES; i++) {
			want[i] |= (unsigned char)symbol_ref_matches(sym, names[i]);
			if (found[i] != want[i])
				fail_msg("'%s' vs '%s': %d", sym, names[i],
					 found[i]);
			want_nr += want[i];
		}
		assert_int_equal(nr, want_nr);
	}
	print_message("  %zu of %d names matched\n", nr, NAMES);
	assert_true(nr > NAMES / 10 && nr < NAMES);
	symbol_match_free(m);
	for (size_t i = 0; i < NAMES; i++)
		free(names[i]);
}

/* A symbol that costs more than the steps left ends the match. */
static void test_work_cap(void **state)
{
	const char *name = "a::a::a::a::a::a::a::a::b";
	struct symbol_match *m = symbol_match_new(&name, 1);
	char *sym = malloc(200003);
	unsigned char found = 0;
	size_t nr = 0;
	uint64_t work = 100000;

	(void)state;
	memcpy(sym, "_Z", 2);
	for (size_t i = 0; i < 100000; i++)
		memcpy(sym + 2 + 2 * i, "1a", 2);
	sym[200002] = '\0';
	assert_int_equal(symbol_match_sym(m, sym, &found, &nr, &work), -1);
	assert_int_equal(work, 0);
	assert_int_equal(nr, 0);
	symbol_match_free(m);
	free(sym);
}

/*
 * Issue 21's harness: 200,000 symbols, 4,096 touched names, half of
 * them defined (exactly, as clones, mangled; and near misses of the
 * rest). Its time is measured by `make bench-elf`, not asserted here.
 */
static void test_large_harness(void **state)
{
	struct elf_build_big b;
	unsigned char *found;
	size_t nr = 0, want = 0;

	(void)state;
	elf_build_big_make(&b, 200000, 4096);
	assert_int_equal(b.syms_nr, 200000);
	assert_int_equal(elf_build_write(dfd, "big", (const char *const *)
					 b.syms, b.syms_nr), 0);
	found = malloc(b.names_nr);
	assert_int_equal(elf_symbols_find(&nr, found, dfd, "big", "big",
					  (const char *const *)b.names,
					  b.names_nr, NULL), 0);
	for (size_t i = 0; i < b.names_nr; i++) {
		if (found[i] != b.expect[i])
			fail_msg("%s: found %d", b.names[i], found[i]);
		want += b.expect[i];
	}
	assert_int_equal(want, 2048);
	assert_int_equal(nr, want);
	free(found);
	elf_build_big_release(&b);
}

/* A set stop flag ends the lookup with CRS_EINTR; found kept. */
static void test_stop_flag(void **state)
{
	volatile int stop = 1;
	struct elf_symbols_limit lim = { &stop, 0 };
	struct elf_build_big b;
	unsigned char *found;
	size_t nr = 99;

	(void)state;
	elf_build_big_make(&b, 20000, 64);
	assert_int_equal(elf_build_write(dfd, "stopped", (const char *const *)
					 b.syms, b.syms_nr), 0);
	found = malloc(b.names_nr);
	assert_int_equal(elf_symbols_find(&nr, found, dfd, "stopped",
					  "stopped",
					  (const char *const *)b.names,
					  b.names_nr, &lim), CRS_EINTR);
	assert_non_null(strstr(crs_error_last(), "interrupted"));
	crs_error_clear();
	free(found);
	elf_build_big_release(&b);
}

/* Each hostile variant: refused with CRS_EINPUT, nothing found. */
static void expect_refused(const char *name, const struct img *m,
			   const char *needle)
{
	unsigned char found[WANT_NR];
	size_t nr = 99;

	put(name, m->b, m->len);
	assert_int_equal(lookup(name, &nr, found), CRS_EINPUT);
	assert_int_equal(nr, 0);
	for (size_t i = 0; i < WANT_NR; i++)
		assert_false(found[i]);
	if (needle && !strstr(crs_error_last(), needle))
		fail_msg("%s: '%s' lacks '%s'", name, crs_error_last(),
			 needle);
	crs_error_clear();
}

static void test_hostile(void **state)
{
	struct img m, t;

	(void)state;
	build(&m);
	/* truncated: section headers cut off, then only the ident */
	t = m;
	t.len = m.len - 10;
	expect_refused("truncated", &t, "section headers");
	t = m;
	t.len = 10;
	expect_refused("tiny", &t, "not an ELF");
	t = m;
	t.b[0] = 'X';
	expect_refused("notelf", &t, "not an ELF");
	t = m;
	t.b[EI_DATA] = ELFDATA2MSB;
	expect_refused("bigendian", &t, "little-endian");
	/* huge counts */
	t = m;
	((Elf64_Ehdr *)t.b)->e_shnum = 0xffff;
	expect_refused("huge-shnum", &t, "section headers");
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[2].sh_size =
		(Elf64_Xword)1 << 40;
	expect_refused("huge-symtab", &t, NULL);
	/* extended numbering with an absurd count */
	t = m;
	((Elf64_Ehdr *)t.b)->e_shnum = 0;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[0].sh_size =
		UINT64_MAX;
	expect_refused("huge-extended", &t, "section headers");
	/* bad offsets */
	t = m;
	((Elf64_Ehdr *)t.b)->e_shoff = UINT64_MAX - 8;
	expect_refused("shoff", &t, "section headers");
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[2].sh_offset =
		UINT64_MAX - 4;
	expect_refused("symoff", &t, "past the end");
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[1].sh_offset =
		m.len - 2;
	expect_refused("stroff", &t, "past the end");
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[2].sh_link = 77;
	expect_refused("link", &t, "string table");
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[2].sh_entsize = 1;
	expect_refused("entsize", &t, "entry size");
	t = m;
	((Elf64_Ehdr *)t.b)->e_shentsize = 1;
	expect_refused("shentsize", &t, "section header size");
	/* no symbol table at all */
	t = m;
	((Elf64_Shdr *)(t.b + ((Elf64_Ehdr *)t.b)->e_shoff))[2].sh_type =
		SHT_PROGBITS;
	expect_refused("stripped", &t, "no symbol table");
}

/* Names past their table are skipped, not read. */
static void test_bad_name_offsets(void **state)
{
	struct img m;
	unsigned char found[WANT_NR];
	size_t nr = 99;

	(void)state;
	build(&m);
	m.sym[1].st_name = 0x7fffffff;
	/* the last name's terminator cut: the table ends inside it */
	((Elf64_Shdr *)(m.b + m.eh->e_shoff))[1].sh_size -= 1;
	put("names", m.b, m.len);
	assert_int_equal(lookup("names", &nr, found), 0);
	assert_false(found[0]);
	assert_true(found[1]);
	assert_int_equal(nr, 2);
}

static void test_link_and_kinds(void **state)
{
	unsigned char found[WANT_NR];
	size_t nr = 99;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/good", dir);
	assert_int_equal(symlinkat("good", dfd, "alink"), 0);
	assert_int_equal(lookup("alink", &nr, found), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "a link"));
	assert_int_equal(mkdirat(dfd, "adir", 0700), 0);
	assert_int_equal(lookup("adir", &nr, found), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "not a regular file"));
	assert_int_equal(mkfifoat(dfd, "afifo", 0600), 0);
	assert_int_equal(lookup("afifo", &nr, found), CRS_EINPUT);
	assert_int_equal(lookup("absent", &nr, found), CRS_EINPUT);
	crs_error_clear();
}

/* A real binary from the toolchain: this test's own executable. */
static void test_real_binary(void **state)
{
	static const char *const names[] = { "elf_symbols_find", "main",
					     "no_such_function_here" };
	unsigned char found[3];
	size_t nr = 0;
	int self = -1;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	assert_int_equal(fs_open_dir(&self, exe), 0);
	assert_int_equal(elf_symbols_find(&nr, found, self, slash + 1,
					  slash + 1, names, 3, NULL), 0);
	close(self);
	assert_int_equal(nr, 2);
	assert_true(found[0] && found[1] && !found[2]);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return fs_open_dir(&dfd, dir);
}

static int teardown(void **state)
{
	(void)state;
	close(dfd);
	return fs_remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_defined_functions),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_matches_like_the_old_rule),
		cmocka_unit_test(test_work_cap),
		cmocka_unit_test(test_large_harness),
		cmocka_unit_test(test_stop_flag),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_bad_name_offsets),
		cmocka_unit_test(test_link_and_kinds),
		cmocka_unit_test(test_real_binary),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
