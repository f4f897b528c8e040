#!/bin/bash -eu
# build.sh - libjpeg-turbo's own libFuzzer harnesses (fuzz/, built by its
# CMake with WITH_FUZZ=1, static libraries, no SIMD so every decoding path
# is the C one, asserts on) into $OUT, with a seed corpus of the tree's
# own test JPEGs (testimages/*.jpg) for the decompressing harnesses.
cd "$SRC/libjpeg-turbo"
mkdir -p "$WORK/build"
cd "$WORK/build"
cmake "$SRC/libjpeg-turbo" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO=-g -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-g \
	-DENABLE_STATIC=1 -DENABLE_SHARED=0 -DWITH_SIMD=0 -DWITH_FUZZ=1 \
	-DFUZZ_BINDIR="$OUT" -DFUZZ_LIBRARY="$LIB_FUZZING_ENGINE" \
	-DCMAKE_INSTALL_PREFIX="$WORK/install"
make -j"$(nproc)" install
rm -f "$WORK/seeds.zip"
zip -q -j "$WORK/seeds.zip" "$SRC"/libjpeg-turbo/testimages/*.jpg
for f in decompress_fuzzer decompress_yuv_fuzzer transform_fuzzer; do
	cp "$WORK/seeds.zip" "$OUT/${f}_seed_corpus.zip"
done
