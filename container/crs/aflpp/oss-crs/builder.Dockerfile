# Build step "build": install Debian's afl++ into the target image, compile
# the target with afl-clang-fast and libAFLDriver (the image CMD runs at
# container start, not at image build) and submit $OUT as the build output
# "build". Build context: the CRS root folder. Needs deb.debian.org (or the
# target image's apt sources) while the image is built.
ARG target_base_image
FROM $target_base_image

RUN apt-get update -q && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends afl++ && \
    rm -rf /var/lib/apt/lists/* && \
    test -f /usr/lib/afl/libAFLDriver.a

COPY --from=libcrs . /opt/libCRS
RUN /opt/libCRS/install.sh

COPY bin/compile_target /usr/local/bin/compile_target
RUN chmod 0755 /usr/local/bin/compile_target

CMD ["compile_target"]
