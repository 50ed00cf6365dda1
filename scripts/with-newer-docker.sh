#!/usr/bin/env bash
# Runs a command with a newer Docker engine (scripts/setup-docker-newer.sh) in
# place of the machine's own, on the same socket, then starts the machine's
# engine again exactly as it was started. Two engines cannot run side by side
# here: each one rewrites the host's DOCKER iptables chains when it starts, so
# the other's networks would lose their isolation.
#
#   scripts/with-newer-docker.sh COMMAND [ARG...]
#
# Stopping an engine stops its containers, so the swap is only made when
# nothing depends on it: no container is running, and the engine is a plain
# process (as scripts/setup-docker.sh starts it), not a service that a service
# manager would restart or that the machine's users share. Otherwise it says
# why and exits with status 75 (EX_TEMPFAIL) without running COMMAND.
#
#   HUD_STUDIO_TOOLS   install root of the newer engine, its data folder and the base image's cache
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
SOCK=/var/run/docker.sock
PIDFILE=/var/run/docker.pid
EXEC_ROOT=/var/run/hud-studio-docker-newer
LOG=/var/log/hud-studio-dockerd-newer.log
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
log() { echo "[newer-docker] $*" >&2; }
refuse() { log "not run: $*"; exit 75; }

engine_ok() { docker -H "unix://$SOCK" version --format '{{.Server.Version}}' 2>/dev/null; }
# By /proc, not kill -0: without root, a root engine's process cannot be signalled but is still there.
wait_gone() { for _ in $(seq 1 60); do [ -e "/proc/$1" ] || return 0; sleep 0.5; done; return 1; }
wait_up() { for _ in $(seq 1 60); do engine_ok >/dev/null && return 0; sleep 1; done; return 1; }

[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
old_version="$(engine_ok)" || refuse "no Docker engine answers on $SOCK (run scripts/setup-docker.sh first)"
old_pid="$(cat "$PIDFILE" 2>/dev/null || true)"
[ -n "$old_pid" ] && [ -r "/proc/$old_pid/cmdline" ] || refuse "the engine on $SOCK has no process of its own here ($PIDFILE)"
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet docker 2>/dev/null; then
  refuse "the machine's engine is the docker service; stop it by hand and start scripts/setup-docker.sh's engine to run this layer"
fi
running="$(docker -H "unix://$SOCK" ps -q | wc -l)"
[ "$running" = 0 ] || refuse "$running container(s) run on the machine's engine, and stopping it would stop them"

dir="$(bash "$here/setup-docker-newer.sh")"
# The machine's engine as it was started: its program, arguments, environment and folder, to start it again the
# same way. Nothing of this script's environment may reach it: the test layer's TMPDIR is removed when the layer
# ends (containerd keeps runc's files there, and every exec would fail after), and PATH leads to the newer engine.
mapfile -d '' old_cmd < <($SUDO cat "/proc/$old_pid/cmdline")
mapfile -d '' old_env < <($SUDO cat "/proc/$old_pid/environ")
old_cmd[0]="$($SUDO readlink "/proc/$old_pid/exe")"
old_cwd="$($SUDO readlink "/proc/$old_pid/cwd")"
old_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
for v in "${old_env[@]}"; do [[ "$v" == PATH=* ]] && old_path="${v#PATH=}"; done

# A daemon in the background, in the machine's engine's environment with PATH as given, holding none of this
# script's files open (whoever reads this script's output, the test runner, waits for every writer to close it),
# in a session of its own: a Ctrl-C meant for the tests does not reach it.
start_daemon() { # LOG DIR PATH COMMAND...
  local log="$1" cwd="$2" path="$3"
  shift 3
  (cd "$cwd" && exec $SUDO env -i "${old_env[@]}" PATH="$path" setsid "$@" </dev/null >>"$log" 2>&1 &)
}

smoke_test() {
  local id ok=0
  id="$(docker -H "unix://$SOCK" run -d --rm --network none hud-studio/base:bookworm sleep 60)" || return 1
  [ "$(docker -H "unix://$SOCK" exec "$id" echo ok 2>&1)" = ok ] || ok=1
  docker -H "unix://$SOCK" rm -f "$id" >/dev/null 2>&1 || true
  return "$ok"
}

restore() {
  local status=$?
  # An interrupted test runner is gone with its end of our output, and a failed log line must not stop the
  # restore: the machine's engine comes back whatever happens here.
  set +e
  trap '' PIPE INT TERM HUP
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && [ "$pid" != "$old_pid" ]; then
    $SUDO kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid" || { log "the newer engine ($pid) did not stop; killing it"; $SUDO kill -KILL "$pid" 2>/dev/null || true; }
  fi
  if ! engine_ok >/dev/null; then
    log "starting the machine's engine again: ${old_cmd[*]}"
    start_daemon /var/log/hud-studio-dockerd.log "$old_cwd" "$old_path" "${old_cmd[@]}"
    wait_up || { log "the machine's engine did not start again; see /var/log/hud-studio-dockerd.log"; status=1; }
  fi
  # The machine's engine is left able to start a container and exec in it, which the next test run needs.
  if ! smoke_test; then
    log "the machine's engine does not run containers after the swap; see /var/log/hud-studio-dockerd.log"
    status=1
  fi
  exit "$status"
}
trap restore EXIT
# A signal ends the script through its EXIT trap, as bash does not run it for a signal's default action.
trap 'exit 130' INT
trap 'exit 143' TERM HUP

log "stopping the machine's engine (Docker $old_version, pid $old_pid)"
$SUDO kill -TERM "$old_pid"
wait_gone "$old_pid" || refuse "the machine's engine did not stop"

$SUDO mkdir -p "$EXEC_ROOT" "$dir/data"
# Its own data and state folders: the machine's images and networks are not touched.
: >"$LOG"
start_daemon "$LOG" / "$dir/root/usr/sbin:$dir/root/usr/bin:$old_path" \
  dockerd -H "unix://$SOCK" --pidfile "$PIDFILE" --data-root "$dir/data" --exec-root "$EXEC_ROOT"
# The newer CLI for the command, as a user of that engine would have it.
export PATH="$dir/root/usr/sbin:$dir/root/usr/bin:$PATH"
wait_up || { log "the newer engine did not start; see $LOG"; tail -n 30 "$LOG" >&2 || true; exit 1; }
log "Docker $(engine_ok) answers on $SOCK"
# The base images the tests build from, imported from the cached root file system (seconds).
bash "$here/setup-docker.sh"
"$@"
