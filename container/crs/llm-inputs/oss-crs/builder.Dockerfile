# Build step "build": compile the target with its own build.sh and submit
# $OUT as the build output "build" (the harness binaries the run module
# runs the model's inputs on). The same step as crs-libfuzzer's. Build
# context: the CRS root folder.
ARG target_base_image
FROM $target_base_image

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/compile_target /usr/local/bin/compile_target
RUN chmod 0755 /usr/local/bin/compile_target

CMD ["compile_target"]
