#!/bin/bash -eu
# build.sh - expat's OSS-Fuzz harnesses into $OUT, as its CMake build does
# with EXPAT_BUILD_FUZZERS and EXPAT_OSSFUZZ_BUILD (the base builder has
# no cmake): lib/*.c once, then fuzz/xml_parse_fuzzer.c and
# fuzz/xml_parsebuffer_fuzzer.c once per encoding, each linked with the
# library and $LIB_FUZZING_ENGINE (xml_parse_fuzzer_UTF-8, ...). The
# compiles run $(nproc) at a time, as make -j would. Every harness gets
# the seed corpus and dictionary of this project folder.

# CFLAGS and LIB_FUZZING_ENGINE hold several flags: unquoted on purpose.
# shellcheck disable=SC2086
cd "$SRC/expat/expat"

# What CMake's configure step would write on this (x86_64 glibc) builder.
mkdir -p "$WORK/config"
cat >"$WORK/config/expat_config.h" <<'H'
#ifndef EXPAT_CONFIG_H
#define EXPAT_CONFIG_H 1
#define BYTEORDER 1234
#define HAVE_DLFCN_H 1
#define HAVE_FCNTL_H 1
#define HAVE_GETPAGESIZE 1
#define HAVE_GETRANDOM 1
#define HAVE_INTTYPES_H 1
#define HAVE_MEMORY_H 1
#define HAVE_MMAP 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYSCALL_GETRANDOM 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define PACKAGE "expat"
#define PACKAGE_NAME "expat"
#define PACKAGE_VERSION "2.5.0"
#define STDC_HEADERS 1
#define XML_CONTEXT_BYTES 1024
#define XML_DEV_URANDOM 1
#define XML_DTD 1
#define XML_NS 1
#endif
H

encodings="UTF-16 UTF-8 ISO-8859-1 US-ASCII UTF-16BE UTF-16LE"
fuzzers="xml_parse_fuzzer xml_parsebuffer_fuzzer"
jobs=$(nproc)

# run_jobs: runs the commands of stdin, one a line, $jobs at a time
run_jobs() {
	xargs -d '\n' -P "$jobs" -I{} bash -euc '{}'
}

inc="-I$WORK/config -Ilib"
for c in lib/xmlparse.c lib/xmlrole.c lib/xmltok.c; do
	echo "$CC $CFLAGS $inc -c $c -o $WORK/$(basename "$c" .c).o"
done | run_jobs
ar rcs "$WORK/libexpat.a" "$WORK/xmlparse.o" "$WORK/xmlrole.o" \
	"$WORK/xmltok.o"

for f in $fuzzers; do
	for e in $encodings; do
		echo "$CC $CFLAGS $inc -DENCODING_FOR_FUZZING=$e fuzz/$f.c" \
			"-c -o $WORK/${f}_$e.o && $CXX $CXXFLAGS $WORK/${f}_$e.o" \
			"$WORK/libexpat.a $LIB_FUZZING_ENGINE -o $OUT/${f}_$e"
	done
done | run_jobs

rm -f "$WORK/seeds.zip"
(cd "$SRC/expat-seeds" && zip -q -r "$WORK/seeds.zip" .)
for f in $fuzzers; do
	for e in $encodings; do
		cp "$WORK/seeds.zip" "$OUT/${f}_${e}_seed_corpus.zip"
		cp "$SRC/xml.dict" "$OUT/${f}_$e.dict"
	done
done
