#!/usr/bin/env bash
# Debian's Chromium for the Playwright tests (playwright-core never downloads
# a browser here). HUD_STUDIO_CHROMIUM overrides the path.
set -euo pipefail
CHROMIUM="${HUD_STUDIO_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
echo "[setup-browser] installing chromium (Debian)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
