#!/usr/bin/env bash
# bench_projects.sh - how many real OSS-Fuzz project folders build on the
# offline stand-ins (issue 26): `make bench-projects`.
#
#   OSS_FUZZ=DIR tests/bench/bench_projects.sh [PROJECT...]
#                                          (default: every project)
#
# The projects are DIR/projects/<name> of a google/oss-fuzz checkout the
# user supplies (`git clone https://github.com/google/oss-fuzz`, then
# `git checkout` the commit oss-fuzz/projects.sha256 names): crs-ci keeps
# no copy of OSS-Fuzz's files, only their SHA-256 (projects.sha256), which
# are checked first, so every run builds the same folders.
# tests/bench/oss-fuzz/sources.tsv names the Debian bookworm source package
# each builds from. For each project, one at a time under `nice`:
#   1. the Debian orig tarball, downloaded once into $CRS_CI_BENCH_CACHE
#      (default ~/.cache/crs-ci-bench) and checked against its SHA-256,
#      is unpacked (top folder stripped) into a copy of the folder as
#      bench-src/;
#   2. THE ONE ALLOWED MODIFICATION: the Dockerfile's `RUN git clone
#      <main_repo> [DEST]` becomes `COPY bench-src DEST`
#      (oss-fuzz/rewrite_clone.py); a project whose clone is not one such
#      line is counted as "needs more than the clone replaced";
#   3. its FROM gcr.io/oss-fuzz-base/base-builder[:tag] names the builder
#      under test, as crs-ci's --base-images stand-in does (not counted:
#      that is the stand-in mapping itself);
#   4. `docker build --force-rm` (no container left by a failed step; classic builder, network on: the Dockerfile's
#      apt-get needs it), then `compile` in it with --network none and
#      SANITIZER=address, as crs-ci runs a target build;
#   5. built = compile exited 0 and left at least one executable in $OUT.
# Prints a Markdown table (project, source, result, fuzzers, why not) and
# "N of M build"; logs in $BENCH_LOG_DIR (default a temporary folder,
# printed). Environment: BENCH_BASE_BUILDER (default
# crs-ci/base-builder:stand-in), the image FROM lines name.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$here/oss-fuzz
builder=${BENCH_BASE_BUILDER:-crs-ci/base-builder:stand-in}
export DOCKER_BUILDKIT=0

die() { printf 'bench-projects: error: %s\n' "$*" >&2; exit 1; }
say() { printf 'bench-projects: %s\n' "$*" >&2; }

command -v docker >/dev/null || die "docker not found"
[ -n "${OSS_FUZZ:-}" ] || die "set OSS_FUZZ to a google/oss-fuzz checkout at the commit $root/projects.sha256 names"
[ -d "$OSS_FUZZ/projects" ] || die "$OSS_FUZZ/projects: no such folder (OSS_FUZZ must be a google/oss-fuzz checkout)"
docker image inspect "$builder" >/dev/null 2>&1 ||
	die "$builder is missing (make base-images)"
logs=${BENCH_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-projects.XXXXXX")}
mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-projects-work.XXXXXX")
images=()
cleanup() {
	rm -rf "$work"
	for i in "${images[@]}"; do docker rmi -f "$i" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# why LOG: the line that says why a build failed, shortened: apt's
# complaint, else the first compiler or tool error, else the last line.
why() {
	local log=$1 line
	line=$(grep -m1 -E "Unable to locate package|has no installation candidate|E: Package '" "$log" ||
	       grep -m1 -E "unsupported option '-stdlib|stdlib=libc\+\+|'c\+\+/v1" "$log" ||
	       grep -m1 -E "(^|: )(fatal )?error: |Error [0-9]+|^ERROR: |CMake Error" "$log" ||
	       grep -m1 -E "No such file or directory|Could not resolve|Temporary failure in name resolution|command not found" "$log" ||
	       tail -n 1 "$log")
	printf '%s' "$line" | sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/[|`]/ /g' |
		tr -d '\r' | cut -c1-140
}

# run in the builder: compile, then how many executables it left in $OUT
# shellcheck disable=SC2016
count_fuzzers='compile && echo "bench-fuzzers: $(find "$OUT" -maxdepth 1 -type f -perm -u+x | wc -l)"'

list=("$@")
if [ ${#list[@]} -eq 0 ]; then
	mapfile -t list < <(grep -v '^#' "$root/sources.tsv" | cut -f1)
fi
# the folders must be the ones the table was made from
(cd "$OSS_FUZZ/projects" && grep -v '^#' "$root/projects.sha256" |
	sha256sum --check --strict --quiet) ||
	die "$OSS_FUZZ/projects differs from $root/projects.sha256 (check out the commit it names)"
say "builder $builder ($(docker image inspect -f '{{.Id}}' "$builder" | cut -c8-19)); logs in $logs"
rows=() ok=0 total=0 start=$SECONDS
for name in "${list[@]}"; do
	entry=$(awk -F'\t' -v n="$name" '$1 == n' "$root/sources.tsv")
	[ -n "$entry" ] || die "$name: not in $root/sources.tsv"
	IFS=$'\t' read -r _ source url sha <<<"$entry"
	total=$((total + 1))
	t0=$SECONDS
	ctx=$work/$name
	mkdir "$ctx"
	# only the files the hash list names: the checked ones
	(cd "$OSS_FUZZ/projects" && grep -v '^#' "$root/projects.sha256" |
		awk -v n="$name/" 'index($2, n) == 1 { print $2 }' |
		tar -cf - -T - --transform "s#^$name/##") | tar -xf - -C "$ctx"
	mkdir "$ctx/bench-src"
	tarball=$("$here/real/fetch-orig.sh" "$url" "$sha") || die "no $name tarball"
	tar -xaf "$tarball" -C "$ctx/bench-src" \
		--strip-components=1 --no-same-owner
	log=$logs/$name.log
	result='' fuzzers=0 reason=''
	if ! python3 "$here/oss-fuzz/rewrite_clone.py" "$ctx/Dockerfile" \
		"$ctx/project.yaml" bench-src >"$ctx/Dockerfile.bench" 2>"$log"; then
		result="not run" reason="needs more than the clone replaced: $(tail -n1 "$log")"
	else
		sed -i -E "s#^([[:space:]]*FROM[[:space:]]+)gcr\.io/oss-fuzz-base/base-builder(:[^[:space:]]+)?#\1$builder#I" \
			"$ctx/Dockerfile.bench"
		tag=crs-ci-bench/$name:$$
		if ! nice docker build --force-rm -f "$ctx/Dockerfile.bench" -t "$tag" \
			"$ctx" >>"$log" 2>&1; then
			result="image fails" reason=$(why "$log")
		else
			images+=("$tag")
			if nice docker run --rm --network none -e SANITIZER=address \
				"$tag" bash -c "$count_fuzzers" >>"$log" 2>&1; then
				fuzzers=$(sed -n 's/^bench-fuzzers: //p' "$log" | tail -n1)
			fi
			if [ "${fuzzers:-0}" -gt 0 ]; then
				result=builds ok=$((ok + 1))
			else
				result="compile fails" reason=$(why "$log")
			fi
		fi
	fi
	say "$name: $result${reason:+ ($reason)} in $((SECONDS - t0)) s"
	rows+=("| $name | $source | $result | ${fuzzers:-0} | ${reason:--} |")
done
echo "builder: $builder"
echo
echo "| project | Debian source | result | fuzzers | why not |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "$ok of $total build with only the clone replaced ($((SECONDS - start)) s)"
