#!/usr/bin/env bash
# Makes sure the tests can run Compose v2 (`docker compose`) beside whatever
# Compose the machine has: the integration tests' Compose files run once with
# the machine's own Compose (v1 on a Debian 12 machine: the only one Debian 12
# ships) and once more with v2 (test.mjs, layer `compose-v2`).
#
# Where the machine's `docker compose` already is v2, nothing is installed.
# Otherwise the plugin binary is taken from Debian 13's `docker-compose`
# package (v2, built against a libc Debian 12 has; scripts/debian13-unpack.sh
# fetches it with the archive's signature checked), and installed as a
# Docker CLI plugin in its own config folder:
#
#   $HUD_STUDIO_TOOLS/compose-v2/cli-plugins/docker-compose
#
# which `DOCKER_CONFIG=$HUD_STUDIO_TOOLS/compose-v2 docker compose` runs.
set -euo pipefail

TOOLS="${HUD_STUDIO_TOOLS:-/opt/hud-studio-tools}"
CONFIG="$TOOLS/compose-v2"
PLUGIN="$CONFIG/cli-plugins/docker-compose"

log() { printf '[setup-compose-v2] %s\n' "$*" >&2; }
is_v2() { [[ "$("$@" version --short 2>/dev/null)" =~ ^v?2\. ]]; }

if is_v2 docker compose; then
  log "docker compose is v2 already: $(docker compose version --short)"
  exit 0
fi
if [ -x "$PLUGIN" ] && is_v2 env DOCKER_CONFIG="$CONFIG" docker compose; then
  exit 0
fi

work=$(mktemp -d /tmp/hud-compose-v2.XXXXXX)
trap 'rm -rf "$work"' EXIT
log "fetching Debian 13's docker-compose (Compose v2)"
bash "$(dirname "$0")/debian13-unpack.sh" "$work/root" docker-compose
found=""
for candidate in "$work/root/usr/libexec/docker/cli-plugins/docker-compose" "$work/root/usr/bin/docker-compose"; do
  if [ -f "$candidate" ]; then found="$candidate"; break; fi
done
[ -n "$found" ] || { log "the package holds no docker-compose binary"; exit 1; }
mkdir -p "$CONFIG/cli-plugins"
# Copied under a temporary name first: an interrupted run never leaves half a binary where the next looks.
install -m 0755 "$found" "$PLUGIN.partial"
mv "$PLUGIN.partial" "$PLUGIN"
is_v2 env DOCKER_CONFIG="$CONFIG" docker compose || { log "$PLUGIN does not run as 'docker compose'"; exit 1; }
log "Compose $(DOCKER_CONFIG="$CONFIG" docker compose version --short) installed in $PLUGIN"
