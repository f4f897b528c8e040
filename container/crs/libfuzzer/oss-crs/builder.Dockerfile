# Build step "build": compile the target with its own build.sh (the image
# CMD runs at container start, not at image build) and submit $OUT as the
# build output "build". Build context: the CRS root folder.
ARG target_base_image
FROM $target_base_image

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/compile_target /usr/local/bin/compile_target
RUN chmod 0755 /usr/local/bin/compile_target

CMD ["compile_target"]
