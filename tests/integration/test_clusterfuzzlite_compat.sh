#!/usr/bin/env bash
# test_clusterfuzzlite_compat.sh - test_libcrs_compat.sh on a repository
# with .clusterfuzzlite/ and no --project: every libCRS command and
# sidecar request works the same, and build-project of a changed fuzz
# project rebuilds the target image from the head's tree with the CRS's
# copy in place of .clusterfuzzlite/ (runner/exec/target_build.c).
set -euo pipefail
COMPAT_LAYOUT=clusterfuzzlite exec bash "$(dirname "$0")/test_libcrs_compat.sh"
