#!/bin/bash -eu
# build.sh - libwebp's own libFuzzer harnesses (tests/fuzzer) into $OUT:
# the static libraries from the tree's makefile.unix (with $CFLAGS in
# place of its -O3 -DNDEBUG, so libwebp's asserts are on), then
# advanced_api_fuzzer, mux_demux_api_fuzzer, simple_api_fuzzer and
# animdecoder_fuzzer, each with the tree's tests/fuzzer/fuzz.dict and a
# seed corpus of the tree's own .webp files (examples/, where present).

# CFLAGS and LIB_FUZZING_ENGINE hold several flags: unquoted on purpose.
# shellcheck disable=SC2086
cd "$SRC/libwebp"
libs="src/mux/libwebpmux.a src/demux/libwebpdemux.a src/libwebp.a imageio/libimageio_util.a"
make -f makefile.unix -j"$(nproc)" CC="$CC" CFLAGS="$CFLAGS -I." $libs
for f in advanced_api_fuzzer mux_demux_api_fuzzer simple_api_fuzzer; do
	$CC $CFLAGS -Isrc -I. -c "tests/fuzzer/$f.c" -o "$WORK/$f.o"
	$CXX $CXXFLAGS "$WORK/$f.o" $libs $LIB_FUZZING_ENGINE -o "$OUT/$f"
done
$CXX $CXXFLAGS -std=c++11 -Isrc -I. tests/fuzzer/animdecoder_fuzzer.cc \
	$libs $LIB_FUZZING_ENGINE -o "$OUT/animdecoder_fuzzer"
rm -f "$WORK/seeds.zip"
find . -name '*.webp' -size -256k -print0 | xargs -0 -r zip -q -j "$WORK/seeds.zip"
for f in advanced_api_fuzzer mux_demux_api_fuzzer simple_api_fuzzer animdecoder_fuzzer; do
	cp tests/fuzzer/fuzz.dict "$OUT/$f.dict"
	[ ! -f "$WORK/seeds.zip" ] || cp "$WORK/seeds.zip" "$OUT/${f}_seed_corpus.zip"
done
