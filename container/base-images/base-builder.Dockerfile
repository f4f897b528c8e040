# base-builder.Dockerfile - the local equivalent of OSS-Fuzz's base-builder,
# on a Debian bookworm root file system with clang-14 (crs-ci/base-clang).
# build.sh passes BASE_IMAGE and tags the result crs-ci/base-builder:stand-in,
# which crs-ci builds FROM in place of gcr.io/oss-fuzz-base/base-builder and
# ghcr.io/aixcc-finals/base-builder when asked to (--base-images stand-in).
#
# Differences from OSS-Fuzz, on purpose:
#  - C++ uses Debian's libstdc++ (CXXFLAGS_EXTRA is empty, no -stdlib=libc++):
#    the runner then needs no libc++, and MSan C++ builds are not supported.
#  - clang-14 does not know -Wno-error=vla-cxx-extension; it is left out.
#  - compile does not copy llvm-symbolizer into $OUT: Debian's is linked
#    against libLLVM; base-runner has it on PATH (ASAN_SYMBOLIZER_PATH).
#
# As OSS-Fuzz's base-builder (its install_deps.sh): the i386 architecture is
# enabled and the package lists of both are kept, so a project Dockerfile's
# `apt-get install zlib1g-dev:i386` works without its own `apt-get update`;
# the same helper packages (build-essential, curl, wget, jq, patchelf,
# subversion, binutils-dev, libc6-dev-i386) and the helper `srcmap`.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}

ENV CC=clang \
    CXX=clang++ \
    CCC=clang++ \
    CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Wno-error=incompatible-function-pointer-types -Wno-error=int-conversion -Wno-error=deprecated-declarations -Wno-error=implicit-function-declaration -Wno-error=implicit-int -Wno-error=unknown-warning-option" \
    CXXFLAGS_EXTRA="" \
    SRC=/src \
    WORK=/work \
    OUT=/out \
    SANITIZER=address \
    FUZZING_ENGINE=libfuzzer \
    ARCHITECTURE=x86_64 \
    FUZZING_LANGUAGE=c \
    LIB_FUZZING_ENGINE=/usr/lib/libFuzzingEngine.a \
    LIB_FUZZING_ENGINE_DEPRECATED=/usr/lib/libFuzzingEngine.a \
    SANITIZER_FLAGS_address="-fsanitize=address -fsanitize-address-use-after-scope" \
    SANITIZER_FLAGS_undefined="-fsanitize=array-bounds,bool,builtin,enum,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr -fno-sanitize-recover=array-bounds,bool,builtin,enum,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr" \
    SANITIZER_FLAGS_memory="-fsanitize=memory -fsanitize-memory-track-origins" \
    SANITIZER_FLAGS_thread="-fsanitize=thread" \
    SANITIZER_FLAGS_coverage="" \
    COVERAGE_FLAGS="-fsanitize=fuzzer-no-link" \
    COVERAGE_FLAGS_coverage="-fprofile-instr-generate -fcoverage-mapping -pthread -Wl,--no-as-needed -Wl,-ldl -Wl,-lm -Wno-unused-command-line-argument" \
    UBSAN_OPTIONS=silence_unsigned_overflow=1 \
    DFSAN_OPTIONS=warn_unimplemented=0 \
    HWASAN_OPTIONS=random_tags=0 \
    FUZZER_LDFLAGS="" \
    FUZZINTRO_OUTDIR=/src \
    DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/llvm-14/bin:/usr/sbin:/usr/bin:/sbin:/bin:/out
ENV CXXFLAGS="$CFLAGS"

RUN set -eu; \
    dpkg --add-architecture i386; \
    apt-get update; \
    apt-get install -y --no-install-recommends build-essential curl wget jq \
        patchelf subversion binutils-dev libc6-dev-i386; \
    apt-get clean

RUN set -eu; \
    for t in clang clang++ clang-cpp llvm-symbolizer llvm-profdata llvm-cov \
        llvm-ar llvm-nm llvm-ranlib llvm-objcopy llvm-objdump lld ld.lld; do \
        if [ -e "/usr/bin/$t-14" ]; then ln -sf "/usr/bin/$t-14" "/usr/local/bin/$t"; fi; \
    done; \
    rt="$(clang-14 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a"; \
    test -f "$rt"; \
    cp "$rt" /usr/lib/libFuzzingEngine.a; \
    ln -sf /usr/bin/python3 /usr/local/bin/python; \
    mkdir -p /src /work /out; \
    chmod a+rwx /src /work /out

COPY bin/compile bin/srcmap /usr/local/bin/
RUN chmod 0755 /usr/local/bin/compile /usr/local/bin/srcmap

WORKDIR /src
CMD ["compile"]
