#!/usr/bin/env bash
# Unpacks Debian 13 packages into a folder, installing nothing: the test
# setup's way to a newer build than Debian 12 ships (Compose v2, a newer
# Docker engine). apt fetches them with a source list, lists and status of
# its own, so the archive's signature and the packages' hashes are checked
# and the machine's apt sources and package database are left as they were.
#
#   scripts/debian13-unpack.sh DEST PACKAGE...
set -euo pipefail

[ "$#" -ge 2 ] || { echo "usage: $0 DEST PACKAGE..." >&2; exit 2; }
dest="$1"
shift

work=$(mktemp -d /tmp/hud-debian13.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/deb"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$work/sources.list"
apt_private=(
  -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null
  -o "APT::Architectures=$(dpkg --print-architecture)" -o "APT::Sandbox::User=$(id -un)"
)
apt-get "${apt_private[@]}" update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
(cd "$work/deb" && apt-get "${apt_private[@]}" download "$@" >>"$work/apt.log" 2>&1) || { cat "$work/apt.log" >&2; exit 1; }
mkdir -p "$dest"
for deb in "$work"/deb/*.deb; do dpkg-deb -x "$deb" "$dest"; done
