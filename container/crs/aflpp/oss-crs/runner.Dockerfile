# Run module "fuzzer": afl-fuzz on OSS_CRS_TARGET_HARNESS, sharing seeds
# both ways and submitting every distinct crash as a PoV. Build context:
# the CRS root folder.
#
# afl-fuzz comes from the very afl++ installation that compiled the target:
# stage "aflpp" repeats builder.Dockerfile's install step word for word on
# the same target image, so Docker's layer cache hands back the builder's
# layer, and the fuzzer always matches the instrumentation's runtime. The
# runner then needs only afl-fuzz's own libraries (libpython3.11), not the
# compilers the package depends on: about 400 MB less than installing afl++
# here.
ARG base_runner_image=gcr.io/oss-fuzz-base/base-runner:latest
ARG target_base_image
FROM $target_base_image AS aflpp

RUN apt-get update -q && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends afl++ && \
    rm -rf /var/lib/apt/lists/* && \
    test -f /usr/lib/afl/libAFLDriver.a

FROM $base_runner_image

RUN apt-get update -q && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends libpython3.11 && \
    rm -rf /var/lib/apt/lists/*
COPY --from=aflpp /usr/bin/afl-fuzz /usr/bin/afl-showmap /usr/bin/afl-tmin \
    /usr/bin/afl-whatsup /usr/local/bin/
RUN afl-fuzz -h >/dev/null 2>&1; [ $? -ne 127 ]

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/run_afl.sh /usr/local/bin/run_afl.sh
# the PoV submit step, from container/crs-shared (make copies it to bin/)
COPY bin/crs_submit.sh /usr/local/bin/crs_submit.sh
RUN chmod 0755 /usr/local/bin/run_afl.sh

ENTRYPOINT ["/usr/local/bin/run_afl.sh"]
