# Run module "patcher": llm_patcher.py (Python 3 standard library) waits
# for a PoV, asks the model for a patch, checks it through libCRS and
# submits it. FROM the base builder image, which has python3 (the base
# runner has none). Build context: the CRS root folder.
ARG base_builder_image=gcr.io/oss-fuzz-base/base-builder:latest
FROM $base_builder_image

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/llm_patcher.py /usr/local/bin/llm_patcher.py
# the gateway client, from container/crs-shared (make copies it to bin/)
COPY bin/llm_client.py /usr/local/bin/llm_client.py
RUN chmod 0755 /usr/local/bin/llm_patcher.py

ENTRYPOINT ["/usr/local/bin/llm_patcher.py"]
