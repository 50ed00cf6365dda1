"""The bundled server's interpreter, started before its arguments are known.

    python3 -c "from hud_studio.prestart import main; main()"

Reads JSON request lines on stdin. A discovery request
({"discover": ARGS, "nonce": N, "cwd": DIR, "env": {...}}) runs
`hud_studio.discover ARGS` in a forked child, so that discovery costs no
interpreter start of its own, and answers with one line on stdout:

    HUD_STUDIO_REPLY N {"exit": CODE | null, "signal": SIG | null, "stdout": ..., "stderr": ...}

(or {"unavailable": true} when os.fork is missing: the engine then runs the
plain `python3 -m hud_studio.discover`). The user's module is imported in the
child only, never here, so the server started afterwards is unaffected. The
serve request ({"argv": [...], "env": {...}, "cwd": DIR}) then runs the server in
this process, in DIR. With "channel": true in that request, the next line on
stdin is the server's port, and from then on stdin and stdout carry the control
channel (docs/hud-protocol.md). End of input before the serve request exits quietly; once the
server runs, end of input (or the engine's attach connection closing) stops
it as SIGTERM does, with the same teardown, after which the line
HUD_STUDIO_SERVER_ENDED is written to stderr. The engine stops
the server this way because it costs no `docker exec` of its own.
"""
import atexit
import json
import os
import signal
import socket
import sys
import threading
import traceback
from typing import Any, Dict, List, Optional

from .unpack import reply

# The forked child of the discovery in progress, for SIGUSR1.
_discovery_child = 0


def main() -> None:
    import hud.environment.server as server

    # Imported up front: the forked children start with the helper's imports done.
    from . import discover as _warm  # noqa: F401

    signal.signal(signal.SIGUSR1, _stop_discovery)

    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        request = json.loads(line)
        if "discover" in request:
            reply(request["nonce"], run_discovery(request["discover"], request.get("cwd"), request.get("env") or {}))
            continue
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        os.environ.update(request["env"])
        if request.get("cwd"):
            os.chdir(request["cwd"])
        # The agent shares the container's loopback: only the relay (our user) may connect, and only the
        # server's tunnels may reach a workspace shell, which runs commands as the server's user.
        from hud.environment.connection import Server
        from hud.environment.workspace import Workspace

        from .peers import admit_only_own_user

        admit_only_own_user(Server)
        admit_only_own_user(Workspace, "_serve")
        sys.argv = ["hud.environment.server"] + request["argv"]
        # The real stdout, kept for the control channel before the server sends its own to stderr.
        channel_out = os.dup(1) if request.get("channel") else None
        threading.Thread(
            target=_terminate_at_end_of_input, args=(channel_out,), name="hud-studio-stdin", daemon=True
        ).start()
        try:
            code = server.main(request["argv"])
        finally:
            _announce_end()
        sys.exit(code)


# One line on stderr once the server has returned, teardown done: the engine need not wait for the
# process (and, where it is the container's own, the container) to end before it goes on. The server
# sends everything but its port line to stderr (--port-stdout-only), so nothing it said comes after.
SERVER_ENDED = "HUD_STUDIO_SERVER_ENDED"


def _announce_end() -> None:
    # The environment's exit handlers run now rather than at the interpreter's exit, so that what they
    # print still comes before the end line and reaches the logs; they run once, as they would at exit.
    try:
        atexit._run_exitfuncs()
    except Exception:  # noqa: BLE001 - a failing handler is reported by atexit itself and must not stop the end line
        pass
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(2, (SERVER_ENDED + "\n").encode())
    except (OSError, ValueError):
        pass


def _terminate_at_end_of_input(channel_out: Optional[int]) -> None:
    if channel_out is not None:
        line = sys.stdin.readline()
        if line.strip():
            _carry_channel(int(line), channel_out)
    while sys.stdin.readline():
        pass
    os.kill(os.getpid(), signal.SIGTERM)


def _carry_channel(port: int, out: int) -> None:
    """The control channel on this process's stdin and stdout (docs/hud-protocol.md), until the end of stdin."""
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError as err:
        message = "HUD_STUDIO_CHANNEL_FAILED cannot connect to 127.0.0.1:{} inside the container: {}\n"
        os.write(out, message.format(port, err).encode())
        return
    conn.settimeout(None)
    os.write(out, b"HUD_STUDIO_CHANNEL_READY\n")

    def downstream() -> None:
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                while data:
                    data = data[os.write(out, data) :]
        except OSError:
            pass

    threading.Thread(target=downstream, name="hud-studio-channel", daemon=True).start()
    source = sys.stdin.buffer
    try:
        while True:
            data = source.read1(65536)
            if not data:
                break
            conn.sendall(data)
    except OSError:
        pass
    # The connection stays open: the server closes it in its teardown.


def _stop_discovery(_signum: int, _frame: Any) -> None:
    if _discovery_child:
        try:
            os.killpg(_discovery_child, signal.SIGKILL)
        except OSError:
            pass


def run_discovery(args: List[str], cwd: Optional[str], env: Dict[str, str]) -> Dict[str, Any]:
    """What `python3 -m hud_studio.discover ARGS` prints and how it exits, run in a forked child."""
    if not hasattr(os, "fork"):
        return {"unavailable": True}
    global _discovery_child
    # Here rather than at the top: a job's planned rollouts serve without discovery, and tempfile (with
    # shutil and random) is not needed before the server is ready.
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child leaves through os._exit
            os._exit(_child(args, cwd, env, out.fileno(), err.fileno()))
        _discovery_child = pid
        try:
            # A signal handler may run meanwhile; the wait goes on after it (PEP 475).
            _, status = os.waitpid(pid, 0)
        finally:
            _discovery_child = 0
        out.seek(0)
        err.seek(0)
        return {
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "stdout": out.read().decode("utf-8", "replace"),
            "stderr": err.read().decode("utf-8", "replace"),
        }


def _child(args: List[str], cwd: Optional[str], env: Dict[str, str], out_fd: int, err_fd: int) -> int:
    code = 1
    try:
        # Its own session and process group, which SIGUSR1 to the interpreter kills whole.
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        if cwd:
            os.chdir(cwd)
        os.environ.update(env)
        from . import discover

        sys.argv = ["python3 -m hud_studio.discover"] + list(args)
        code = discover.main(list(args))
    except SystemExit as exc:  # argparse errors, as the plain command would exit
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            sys.stderr.write("{}\n".format(exc.code))
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
    return code
