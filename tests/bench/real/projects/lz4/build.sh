#!/bin/bash -eu
# build.sh - lz4's own libFuzzer harnesses (ossfuzz/, built by that
# folder's Makefile with its default LZ4_DEBUG=1, so lz4's asserts are
# on) into $OUT: the block API's compress_fuzzer and round_trip_fuzzer.
# lz4 ships no seed corpus; the harnesses start from nothing.
cd "$SRC/lz4"
make -C ossfuzz -j"$(nproc)" compress_fuzzer round_trip_fuzzer
cp ossfuzz/compress_fuzzer ossfuzz/round_trip_fuzzer "$OUT/"
