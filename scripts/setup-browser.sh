#!/usr/bin/env bash
# Debian's Chromium for the Playwright tests (playwright-core never downloads
# a browser here).
#
#   HUD_STUDIO_CHROMIUM   the browser executable the tests start (default /usr/bin/chromium).
#                         When it names a path that does not exist yet (say, in an empty
#                         folder), Debian's chromium is installed and linked there.
set -euo pipefail
CHROMIUM="${HUD_STUDIO_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if [ ! -x /usr/bin/chromium ]; then
  echo "[setup-browser] installing chromium (Debian)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
if [ "$CHROMIUM" != /usr/bin/chromium ]; then
  mkdir -p "$(dirname "$CHROMIUM")"
  ln -sf /usr/bin/chromium "$CHROMIUM"
fi
[ -x "$CHROMIUM" ] || { echo "[setup-browser] $CHROMIUM is not executable" >&2; exit 1; }
