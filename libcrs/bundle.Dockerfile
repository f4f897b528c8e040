# SPDX-License-Identifier: Apache-2.0
#
# bundle.Dockerfile - the `libcrs:latest` image that OSS-CRS build files
# copy from (`COPY --from=libcrs . /opt/libCRS`, then
# `RUN /opt/libCRS/install.sh`). The build context holds exactly two files:
# the static libCRS binary (build/libCRS) and libcrs/install.sh.
#
#   mkdir ctx && cp build/libCRS libcrs/install.sh ctx/
#   docker build -f libcrs/bundle.Dockerfile -t libcrs:latest ctx
FROM scratch
COPY libCRS install.sh /
