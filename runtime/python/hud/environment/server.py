"""Serves one environment over the control channel (docs/hud-protocol.md).

    python3 -m hud.environment.server PATH [--env NAME] [--host H] [--port P] [--port-stdout-only]

Prints `HUD_SERVE_PORT=<port>` on stdout once bound; everything else it says
goes to stderr, one `[hud-server]` line per event. With --port-stdout-only
the port line is the only thing ever written to stdout.
"""
import argparse
import asyncio
import inspect
import os
import signal
import sys
import traceback
from typing import Any, Optional

from .connection import SHUTDOWN_STEP_S, Server
from .core import Environment
from .framing import MAX_FRAME_BYTES
from .loader import LoadError, choose_environment, import_env_module
from .log import log


async def _run_hooks(hooks: Any) -> None:
    for hook in hooks:
        result = hook()
        if inspect.isawaitable(result):
            await result


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__qualname__", None) or repr(hook)


def _announce_stdout_only() -> int:
    """Keeps the real stdout for the port line alone, before any environment code runs.

    The environment's own prints (and any `HUD_SERVE_PORT=` they contain) go
    to stderr from here on, so they can never be taken for the port line
    (docs/reliability.md).
    """
    sys.stdout.flush()
    announce = os.dup(1)
    os.dup2(2, 1)
    return announce


def _announce(port: int, fd: Optional[int]) -> None:
    line = "HUD_SERVE_PORT={}\n".format(port)
    if fd is None:
        sys.stdout.write(line)
        sys.stdout.flush()
        return
    os.write(fd, line.encode("ascii"))
    os.close(fd)


async def serve(env: Environment, host: str, port: int, announce_fd: Optional[int] = None) -> int:
    # Handlers go in before anything else so a signal right after the port
    # line (or during initialize) still means a clean shutdown.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    for hook in env.initialize_hooks:
        try:
            await _run_hooks([hook])
        except Exception:
            log("initialize hook '{}' of environment '{}' failed; not serving:\n{}".format(
                _hook_name(hook), env.name, traceback.format_exc().rstrip()))
            return 1
    server = Server(env)
    # The limit only matters for StreamReader.readline, which we do not use
    # (LineReader enforces MAX_FRAME_BYTES itself); keep it generous anyway.
    listener = await asyncio.start_server(server.handle, host, port, limit=MAX_FRAME_BYTES + 1)
    bound = listener.sockets[0].getsockname()[1]
    _announce(bound, announce_fd)
    log("serving environment '{}' {} on {}:{}".format(env.name, env.version, host, bound))

    await stop.wait()

    log("stopping")
    listener.close()
    for connection in list(server.connections):
        connection.cancel()
    if server.connections:
        await asyncio.wait(list(server.connections), timeout=SHUTDOWN_STEP_S)
    await server.close_all_tasks()
    for hook in reversed(env.shutdown_hooks):
        try:
            await asyncio.wait_for(_run_hooks([hook]), SHUTDOWN_STEP_S)
        except Exception as err:
            log("shutdown hook '{}' failed: {}: {}".format(_hook_name(hook), type(err).__name__, err))
    log("stopped")
    return 0


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hud.environment.server", description=__doc__.split("\n")[0])
    parser.add_argument("path", help="the env.py to serve")
    parser.add_argument("--env", dest="env_name", help="environment to serve when the module defines several")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--port-stdout-only", action="store_true",
                        help="keep stdout for the port line; the environment's own stdout goes to stderr")
    options = parser.parse_args(argv)
    announce_fd = _announce_stdout_only() if options.port_stdout_only else None
    try:
        _, envs = import_env_module(options.path)
        env = choose_environment(envs, options.env_name, options.path)
    except LoadError as err:
        log("error: {}".format(err))
        return 2
    except BaseException as err:
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        log("error importing {}:\n{}".format(options.path, traceback.format_exc().rstrip()))
        return 1
    try:
        return asyncio.run(serve(env, options.host, options.port, announce_fd))
    except OSError as err:
        log("error: cannot listen on {}:{}: {}".format(options.host, options.port, err))
        return 1
    except Exception:
        log("error: {}".format(traceback.format_exc().rstrip()))
        return 1


if __name__ == "__main__":
    sys.exit(main())
