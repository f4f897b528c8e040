#!/bin/bash -eu
# build.sh - cJSON's OSS-Fuzz harness, cjson_read_fuzzer, into $OUT (as
# cJSON's fuzzing/ossfuzz.sh does, without cmake), with its seed corpus
# (fuzzing/inputs) and dictionary (fuzzing/json.dict).

# CFLAGS and LIB_FUZZING_ENGINE hold several flags: unquoted on purpose.
# shellcheck disable=SC2086
cd "$SRC/cjson"
$CC $CFLAGS -c cJSON.c -o "$WORK/cJSON.o"
$CC $CFLAGS -I. fuzzing/cjson_read_fuzzer.c "$WORK/cJSON.o" \
	$LIB_FUZZING_ENGINE -o "$OUT/cjson_read_fuzzer"
rm -f "$OUT/cjson_read_fuzzer_seed_corpus.zip"
(cd fuzzing/inputs && zip -q -r "$OUT/cjson_read_fuzzer_seed_corpus.zip" .)
cp fuzzing/json.dict "$OUT/cjson_read_fuzzer.dict"
