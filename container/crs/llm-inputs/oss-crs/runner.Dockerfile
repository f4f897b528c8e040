# Run module "inputs": llm_inputs.py (Python 3 standard library) asks a
# model for inputs aimed at the change, runs them on the harness from the
# build output and shares them (seeds, PoVs) through libCRS; the model's
# generator scripts run in gen_sandbox.py as an unprivileged user. FROM
# the base builder image, which has python3 (the base runner has none).
# Build context: the CRS root folder.
ARG base_builder_image=gcr.io/oss-fuzz-base/base-builder:latest
FROM $base_builder_image

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/llm_inputs.py /usr/local/bin/llm_inputs.py
# the gateway client, from container/crs-shared (make copies it to bin/)
COPY bin/llm_client.py /usr/local/bin/llm_client.py
COPY bin/gen_sandbox.py /usr/local/lib/llm-inputs/gen_sandbox.py
RUN chmod 0755 /usr/local/bin/llm_inputs.py && \
    chmod 0644 /usr/local/lib/llm-inputs/gen_sandbox.py

ENTRYPOINT ["/usr/local/bin/llm_inputs.py"]
