#!/usr/bin/env bash
# Makes sure a Docker engine answers on /var/run/docker.sock and that the
# base image the fixtures build FROM exists locally. Safe to run repeatedly:
# every step is skipped when its result is already there.
#
# Nothing can be pulled from a registry here, so the base image is a
# debootstrapped Debian bookworm (python3 + bash) imported with `docker import`.
# The root file system is kept as a tarball so that a later import (after
# `docker rmi`, or on a new daemon) takes seconds instead of a debootstrap.
#
#   HUD_STUDIO_BASE_CACHE   folder of that tarball (default $HUD_STUDIO_TOOLS/base-image,
#                           HUD_STUDIO_TOOLS defaulting to /opt/hud-studio-tools); may be empty
set -euo pipefail

BASE_TAGS=(hud-studio/base:bookworm python:3.11-slim)
BASE_CACHE="${HUD_STUDIO_BASE_CACHE:-${HUD_STUDIO_TOOLS:-/opt/hud-studio-tools}/base-image}"
BASE_TAR="$BASE_CACHE/bookworm-rootfs.tar"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

log() { printf '[setup-docker] %s\n' "$*" >&2; }

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then $SUDO apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

docker_ok() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# The local runtime's sandbox for agents (docs/security.md); its tests fail without it.
if ! command -v bwrap >/dev/null 2>&1; then
  log "installing bubblewrap"
  apt_install bubblewrap
fi

if ! docker_ok; then
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing docker.io (Debian)"
    apt_install docker.io iptables ca-certificates
  fi
  if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
    log "installing docker-compose (v1, Debian)"
    apt_install docker-compose
  fi
  if [ ! -S /var/run/docker.sock ] || ! docker_ok; then
    log "starting dockerd"
    $SUDO mkdir -p /var/log
    ( $SUDO nohup dockerd >/var/log/hud-studio-dockerd.log 2>&1 & )
    for _ in $(seq 1 60); do
      docker_ok && break
      sleep 1
    done
  fi
  docker_ok || { log "dockerd did not start; see /var/log/hud-studio-dockerd.log"; tail -n 30 /var/log/hud-studio-dockerd.log >&2 || true; exit 1; }
fi

if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
  log "installing docker-compose (v1, Debian)"
  apt_install docker-compose
fi

if ! docker image inspect "${BASE_TAGS[0]}" >/dev/null 2>&1; then
  if [ ! -s "$BASE_TAR" ]; then
    command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
    mkdir -p "$BASE_CACHE" 2>/dev/null || { $SUDO mkdir -p "$BASE_CACHE" && $SUDO chown "$(id -u):$(id -g)" "$BASE_CACHE"; }
    root=$(mktemp -d /tmp/hud-base.XXXXXX)
    log "debootstrapping bookworm into $root (about a minute)"
    $SUDO debootstrap --variant=minbase --include=python3,bash,ca-certificates,procps bookworm "$root" http://deb.debian.org/debian >/tmp/hud-studio-debootstrap.log 2>&1 \
      || { tail -n 30 /tmp/hud-studio-debootstrap.log >&2; exit 1; }
    $SUDO rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
    # Written under a temporary name: an interrupted run never leaves a truncated cache behind.
    $SUDO tar -C "$root" -c . >"$BASE_TAR.partial"
    mv "$BASE_TAR.partial" "$BASE_TAR"
    $SUDO rm -rf "$root"
  fi
  log "importing ${BASE_TAGS[0]} from $BASE_TAR"
  docker import -c 'CMD ["/bin/bash"]' -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$BASE_TAR" "${BASE_TAGS[0]}" >/dev/null
fi
for tag in "${BASE_TAGS[@]:1}"; do
  docker image inspect "$tag" >/dev/null 2>&1 || docker tag "${BASE_TAGS[0]}" "$tag"
done
# The tunnel tests' image (OpenSSH from Debian). Labelled with its Dockerfile's hash: rebuilt only when that changes,
# and then from Docker's layer cache where it can.
OPENSSH_TAG=hud-studio/test-openssh:bookworm
OPENSSH_DIR="$(dirname "$0")/../test/fixtures/docker/openssh"
openssh_hash=$(sha256sum "$OPENSSH_DIR/Dockerfile" | cut -c1-16)
if [ "$(docker image inspect -f '{{index .Config.Labels "hud-studio.dockerfile"}}' "$OPENSSH_TAG" 2>/dev/null)" != "$openssh_hash" ]; then
  log "building $OPENSSH_TAG (apt-get install openssh-server)"
  docker build -q --label "hud-studio.dockerfile=$openssh_hash" -t "$OPENSSH_TAG" "$OPENSSH_DIR" >/dev/null
fi
# The reference registry (Debian's docker-registry): the Harbor pull tests start one on 127.0.0.1.
if ! command -v docker-registry >/dev/null 2>&1; then
  log "installing docker-registry (Debian)"
  apt_install docker-registry
fi
log "docker $(docker version --format '{{.Server.Version}}') ready; base image ${BASE_TAGS[0]}"
