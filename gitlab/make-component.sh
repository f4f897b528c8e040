#!/usr/bin/env bash
# make-component.sh - write templates/crs-ci.yml, the GitLab CI/CD
# component form of gitlab/crs-ci.gitlab-ci.yml (the one source: edit
# that file, then run this script).
#
#   gitlab/make-component.sh           write templates/crs-ci.yml
#   gitlab/make-component.sh --check   exit 1 when it is out of date
#
# The component is the same file under the name GitLab's CI/CD catalog
# looks for, with a first line that says where it comes from.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$root/gitlab/crs-ci.gitlab-ci.yml
dst=$root/templates/crs-ci.yml
render() {
	echo "# templates/crs-ci.yml - generated from gitlab/crs-ci.gitlab-ci.yml by gitlab/make-component.sh: do not edit"
	cat "$src"
}
if [ "${1:-}" = --check ]; then
	if ! render | cmp -s - "$dst"; then
		echo "make-component: $dst is out of date: run gitlab/make-component.sh" >&2
		exit 1
	fi
	exit 0
fi
mkdir -p "$root/templates"
render > "$dst.tmp"
mv "$dst.tmp" "$dst"
