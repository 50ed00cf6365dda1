#!/usr/bin/env bash
# A newer Docker engine beside the machine's own, for the `newer-docker` test
# layer (scripts/with-newer-docker.sh runs it): Debian 13's docker.io (Docker
# 26 when this was written) and its CLI, unpacked into a folder without
# installing anything (scripts/debian13-unpack.sh, which checks the archive's
# signature and the packages' hashes). Debian 12's containerd and runc, which
# the machine's engine already uses, serve it.
#
#   HUD_STUDIO_TOOLS   install root (default /opt/hud-studio-tools); may be an empty folder
#
# Prints the folder (its usr/sbin holds dockerd) on stdout; nothing else when it is there already.
set -euo pipefail

TOOLS="${HUD_STUDIO_TOOLS:-/opt/hud-studio-tools}"
DIR="$TOOLS/docker-newer"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
log() { echo "[setup-docker-newer] $*" >&2; }

if [ -x "$DIR/root/usr/sbin/dockerd" ] && [ -x "$DIR/root/usr/bin/docker" ]; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$TOOLS" 2>/dev/null || { $SUDO mkdir -p "$TOOLS" && $SUDO chown "$(id -u):$(id -g)" "$TOOLS"; }
log "fetching docker.io and docker-cli from Debian 13"
rm -rf "$DIR.partial"
bash "$(dirname "$0")/debian13-unpack.sh" "$DIR.partial/root" docker.io docker-cli
# docker-init links to tini's package, which is not taken: the machine's own docker-init (Debian 12's tini) serves.
find "$DIR.partial/root" -xtype l -delete
"$DIR.partial/root/usr/sbin/dockerd" --version >/dev/null
rm -rf "$DIR"
mv "$DIR.partial" "$DIR"
log "$("$DIR/root/usr/sbin/dockerd" --version) in $DIR"
echo "$DIR"
