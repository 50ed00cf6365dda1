"""Serves an environment with the image's own HUD SDK behind the peer check.

    python3 -c LOADER HELPER_DIRS_JSON ENV_PY --env NAME --host 127.0.0.1 --port 0

The image's SDK accepts every loopback connection, and in a Docker actor
container the agent shares that loopback (docs/security.md). This module is
loaded by file (the bundled `hud` must not shadow the image's), wraps the
callback of the control server the SDK's server module starts with
`asyncio.start_server` in the same check the bundled server makes, and then
runs that module as `python3 -m hud.environment.server` would. Servers the
environment's own code starts (services for the agent) are left alone.
"""
import asyncio
import runpy
import sys
from typing import Any, List

from .peers import admit_only_own_user_cb

SERVER_MODULE = "hud.environment.server"


def _called_from_server_module(depth: int) -> bool:
    caller = sys._getframe(depth).f_globals
    spec = caller.get("__spec__")
    return caller.get("__name__") == SERVER_MODULE or getattr(spec, "name", None) == SERVER_MODULE


def install() -> None:
    start_server = asyncio.start_server

    async def start_guarded(client_connected_cb: Any, *args: Any, **kwargs: Any) -> Any:
        if _called_from_server_module(2):
            client_connected_cb = admit_only_own_user_cb(client_connected_cb)
            print("[hud-studio] peer check on the control channel", file=sys.stderr, flush=True)
        return await start_server(client_connected_cb, *args, **kwargs)

    asyncio.start_server = start_guarded  # type: ignore[assignment]


def main(argv: List[str]) -> None:
    install()
    sys.argv = [SERVER_MODULE] + argv
    runpy.run_module(SERVER_MODULE, run_name="__main__", alter_sys=True)
