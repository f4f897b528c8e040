# lib.sh - shared helpers of the integration tests (sourced, not run)
#
# Each test is a bash script that exits 0 on success. They drive the real
# crs-ci binary against the real Docker engine and real git repositories.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CRS_CI="$ROOT/build/crs-ci"
TMP_ROOT=${TMPDIR:-/tmp}

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  - $*" >&2; }

# A fresh temp dir in $TMP, removed when the test exits. Call it directly
# (not in $(...): a trap set in a subshell fires when the subshell ends).
mktemp_dir() {
	TMP=$(mktemp -d "$TMP_ROOT/crs-ci-it.XXXXXX")
	if [ "$BASH_SUBSHELL" -eq 0 ]; then
		[ -n "${KEEP_TMP:-}" ] || trap "rm -rf '$TMP'" EXIT
	else
		echo "$TMP"	# old style tmp=$(mktemp_dir): not removed
	fi
}

# Containers and networks on the engine, for before/after comparisons.
engine_snapshot() {
	{ docker ps -aq --no-trunc | sort; echo --; docker network ls -q --no-trunc | sort; }
}

# The SARIF validator (npm), installed once into build/npm.
sarif_validate() {
	local tool="$ROOT/build/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
	if [ ! -x "$tool" ]; then
		mkdir -p "$ROOT/build/npm"
		npm install --silent --prefix "$ROOT/build/npm" @microsoft/sarif-multitool >/dev/null 2>&1 || fail "npm install @microsoft/sarif-multitool"
		chmod u+x "$tool"
	fi
	"$tool" validate --rule-kind "Gh;Sarif" "$@"
}
