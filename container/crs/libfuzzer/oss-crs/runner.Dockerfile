# Run module "fuzzer": libFuzzer on OSS_CRS_TARGET_HARNESS, submitting every
# crash as a PoV. Build context: the CRS root folder.
ARG base_runner_image=gcr.io/oss-fuzz-base/base-runner:latest
FROM $base_runner_image

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/run_fuzzer.sh /usr/local/bin/run_fuzzer.sh
# the PoV submit step, from container/crs-shared (make copies it to bin/)
COPY bin/crs_submit.sh /usr/local/bin/crs_submit.sh
RUN chmod 0755 /usr/local/bin/run_fuzzer.sh

ENTRYPOINT ["/usr/local/bin/run_fuzzer.sh"]
