# base-runner.Dockerfile - the local equivalent of OSS-Fuzz's base-runner, on
# a small Debian bookworm root file system (crs-ci/base-runtime: llvm-14 for
# llvm-symbolizer, bash, unzip; no compiler). build.sh passes BASE_IMAGE and
# tags the result crs-ci/base-runner:stand-in, which crs-ci runs in place of
# gcr.io/oss-fuzz-base/base-runner and ghcr.io/aixcc-finals/base-runner when
# asked to (--base-images stand-in).
#
# Fuzz targets come from base-builder and link Debian's libstdc++ and glibc,
# which this image has in the same versions.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}

ENV OUT=/out \
    SRC=/src \
    WORK=/work \
    SANITIZER=address \
    FUZZING_ENGINE=libfuzzer \
    ARCHITECTURE=x86_64 \
    FUZZING_LANGUAGE=c \
    ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer \
    MSAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer \
    ASAN_OPTIONS="alloc_dealloc_mismatch=0:allocator_may_return_null=1:allocator_release_to_os_interval_ms=500:check_malloc_usable_size=0:detect_container_overflow=1:detect_odr_violation=0:detect_leaks=1:detect_stack_use_after_return=1:fast_unwind_on_fatal=0:handle_abort=1:handle_segv=1:handle_sigill=1:max_uar_stack_size_log=16:print_scariness=1:quarantine_size_mb=10:strict_memcmp=1:strip_path_prefix=/workspace/:symbolize=1:use_sigaltstack=1:dedup_token_length=3" \
    MSAN_OPTIONS="print_stats=1:strip_path_prefix=/workspace/:symbolize=1:dedup_token_length=3" \
    UBSAN_OPTIONS="print_stacktrace=1:print_summary=1:silence_unsigned_overflow=1:strip_path_prefix=/workspace/:symbolize=1:dedup_token_length=3" \
    FUZZER_ARGS="-rss_limit_mb=2560 -timeout=25" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/llvm-14/bin:/usr/sbin:/usr/bin:/sbin:/bin:/out

RUN set -eu; \
    for t in llvm-symbolizer llvm-profdata llvm-cov; do \
        ln -sf "/usr/bin/$t-14" "/usr/local/bin/$t"; \
    done; \
    llvm-symbolizer --version >/dev/null; \
    mkdir -p /out /src /work

COPY bin/run_fuzzer bin/reproduce /usr/local/bin/
RUN chmod 0755 /usr/local/bin/run_fuzzer /usr/local/bin/reproduce

WORKDIR /out
CMD ["/bin/bash"]
