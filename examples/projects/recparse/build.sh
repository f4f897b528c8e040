#!/bin/bash -eu
# build.sh - build recparse's fuzz targets into $OUT (run by `compile` in
# the project's WORKDIR, $SRC/recparse). Every fuzz/fuzz_NAME.c becomes
# $OUT/fuzz_NAME; fuzz/corpus/fuzz_NAME/ becomes $OUT/fuzz_NAME_seed_corpus.zip.

# CFLAGS and LIB_FUZZING_ENGINE hold several flags: unquoted on purpose.
# shellcheck disable=SC2086
cd "$SRC/recparse"
$CC $CFLAGS -Isrc -c src/recparse.c -o "$WORK/recparse.o"

for harness in fuzz/fuzz_*.c; do
	name=$(basename "$harness" .c)
	$CC $CFLAGS -Isrc "$harness" "$WORK/recparse.o" $LIB_FUZZING_ENGINE \
		-o "$OUT/$name"
	rm -f "$OUT/${name}_seed_corpus.zip"
	if [ -d "fuzz/corpus/$name" ]; then
		(cd "fuzz/corpus/$name" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
	fi
done
