#!/usr/bin/env bash
# setup-host.sh - prepare a Debian or Ubuntu host to build and run crs-ci:
# install the build dependencies and tools with apt (skipped when all are
# installed already), then make sure a Docker engine answers, starting
# dockerd in the background when none does. Idempotent; run as root, or as
# a user with sudo (it re-runs itself under sudo).
#
#   container/setup-host.sh
#
# dockerd's log, when this script starts it: /var/log/crs-ci-dockerd.log.
set -euo pipefail

log() { printf 'setup-host: %s\n' "$*" >&2; }
die() { printf 'setup-host: error: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "run as root (sudo is not installed)"
	log "not root: re-running under sudo"
	exec sudo -E bash "$0" "$@"
fi
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	die "this script needs a Debian or Ubuntu host (apt-get, dpkg-query)"
fi

packages=(
	build-essential gcc make pkg-config file git ca-certificates
	libyaml-dev libjansson-dev libcurl4-openssl-dev libgit2-dev libssl-dev
	libxml2-dev libmicrohttpd-dev libarchive-dev libcmocka-dev
	zlib1g-dev mmdebstrap busybox-static
	debian-archive-keyring	# mmdebstrap of Debian on an Ubuntu host
	clang-14 libclang-rt-14-dev llvm-14	# make fuzz: libFuzzer, sanitizers
	docker-registry apache2-utils	# test_base_pull.sh: a registry, htpasswd
)
# The engine: docker.io, unless the host already has an engine (dockerd on
# PATH, or Docker's own docker-ce / moby packages, which conflict with it).
# A docker CLI alone (some CI images ship one) is not an engine.
if ! command -v dockerd >/dev/null; then
	packages+=(docker.io)
fi
# The tests validate SARIF with the npm package @microsoft/sarif-multitool
# and read JSON with python3.
command -v npm >/dev/null || packages+=(npm)
command -v python3 >/dev/null || packages+=(python3)
# gitlab-ci-local (test_gitlab_ci_local.sh, from npm) copies with rsync.
command -v rsync >/dev/null || packages+=(rsync)
# test_pre_commit*.sh run .pre-commit-hooks.yaml with the pre-commit
# framework 3.2 or later: Debian 12's package is older, but brings the
# Python libraries that lib.sh's pre_commit_install runs Debian 13's on
# (this machine reaches no Python registry).
command -v pre-commit >/dev/null || packages+=(pre-commit)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	log "all ${#packages[@]} packages are installed"
else
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The Docker engine.
if docker info >/dev/null 2>&1; then
	log "a Docker engine answers"
	exit 0
fi
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
	log "starting docker with systemctl"
	systemctl start docker || log "systemctl start docker failed; trying dockerd"
fi
if ! docker info >/dev/null 2>&1; then
	command -v dockerd >/dev/null || die "dockerd not found (install docker.io)"
	# A pid file left by a dockerd that is gone stops a new one from starting.
	if [ -f /var/run/docker.pid ] &&
	    ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
		log "removing stale /var/run/docker.pid"
		rm -f /var/run/docker.pid
	fi
	if ! pgrep -x dockerd >/dev/null; then
		log "starting dockerd (log: /var/log/crs-ci-dockerd.log)"
		setsid dockerd >>/var/log/crs-ci-dockerd.log 2>&1 < /dev/null &
	fi
fi
for _ in $(seq 1 60); do
	if docker info >/dev/null 2>&1; then
		log "the Docker engine answers"
		exit 0
	fi
	sleep 1
done
die "no Docker engine answers after 60 s (see /var/log/crs-ci-dockerd.log)"
