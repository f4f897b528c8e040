#!/bin/bash -eu
# build.sh - zstd's own libFuzzer harnesses (tests/fuzz, built by that
# folder's Makefile) into $OUT: simple_decompress, huf_decompress and
# dictionary_round_trip. DEBUGLEVEL=1 turns zstd's asserts on (as its
# fuzz.py does for OSS-Fuzz); ZSTD_DISABLE_ASM makes the Huffman decoder
# run its C loops, where the assembly one would hide them (OSS-Fuzz's
# MSan build does the same). zstd ships no seed corpus in its tree.
cd "$SRC/zstd"
make -C tests/fuzz -j"$(nproc)" DEBUGLEVEL=1 CPPFLAGS=-DZSTD_DISABLE_ASM \
	LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
	simple_decompress huf_decompress dictionary_round_trip
cp tests/fuzz/simple_decompress tests/fuzz/huf_decompress \
	tests/fuzz/dictionary_round_trip "$OUT/"
