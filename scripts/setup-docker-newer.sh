#!/usr/bin/env bash
# A newer Docker engine beside the machine's own, for the `newer-docker` test
# layer (scripts/with-newer-docker.sh runs it): Debian 13's docker.io (Docker
# 26 when this was written) and its CLI, fetched through apt from a source
# list of their own, so the signature and hashes are checked as for any
# package, and unpacked into a folder without installing anything. Debian
# 12's containerd and runc, which the machine's engine already uses, serve it.
#
#   HUD_STUDIO_TOOLS   install root (default /opt/hud-studio-tools); may be an empty folder
#
# Prints the folder (its usr/sbin holds dockerd) on stdout; nothing else when it is there already.
set -euo pipefail

TOOLS="${HUD_STUDIO_TOOLS:-/opt/hud-studio-tools}"
DIR="$TOOLS/docker-newer"
SUITE=trixie
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
log() { echo "[setup-docker-newer] $*" >&2; }

if [ -x "$DIR/root/usr/sbin/dockerd" ] && [ -x "$DIR/root/usr/bin/docker" ]; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$TOOLS" 2>/dev/null || { $SUDO mkdir -p "$TOOLS" && $SUDO chown "$(id -u):$(id -g)" "$TOOLS"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" >"$work/sources.list"
# Only this source and this state: the machine's own apt configuration and package lists are left alone.
apt_opts=(
  -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=$(id -un)"
)
log "fetching docker.io and docker-cli from Debian $SUITE"
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" download -qq docker.io docker-cli)
rm -rf "$DIR.partial"
mkdir -p "$DIR.partial/root"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$DIR.partial/root"; done
# docker-init links to tini's package, which is not taken: the machine's own docker-init (Debian 12's tini) serves.
find "$DIR.partial/root" -xtype l -delete
"$DIR.partial/root/usr/sbin/dockerd" --version >/dev/null
rm -rf "$DIR"
mv "$DIR.partial" "$DIR"
log "$("$DIR/root/usr/sbin/dockerd" --version) in $DIR"
echo "$DIR"
