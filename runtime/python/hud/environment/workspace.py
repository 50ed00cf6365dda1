"""`env.workspace(root)` in the bundled runtime: a directory plus a shell daemon on 127.0.0.1.

The SDK serves a workspace over `ssh/2`; the bundled runtime has no SSH
server, so it serves the protocol HUD Studio's engine speaks instead,
`hud-studio-shell/1` (docs/sdk-compatibility.md): after `tunnel.open`, one
JSON object per line each way. A request `{"id", "command", "timeout"?,
"stdin"?}` runs `bash -lc command` in the workspace root in its own process
group; the reply is `{"id", "exit_code", "stdout", "stderr", "timed_out"}`.
"""
import asyncio
import json
import os
import sys
from typing import Any, Dict, Optional

from ..capabilities import Capability
from ..graders.bash import run_bash

PROTOCOL = "hud-studio-shell/1"
# Set by HUD Studio's engine to the agent's workspace root (docs/sdk-compatibility.md).
AGENT_WORKSPACE_ENV = "HUD_STUDIO_AGENT_WORKSPACE"
DEFAULT_TIMEOUT_S = 600.0
MAX_REQUEST_BYTES = 16 * 1024 * 1024


class Workspace:
    def __init__(self, root: Any, *, env: Optional[Dict[str, str]] = None, **options: Any) -> None:
        # The SDK gives a workspace's sessions a network of their own where bubblewrap works; here the agent's
        # commands have the container's (docs/sdk-compatibility.md): an environment that asked for less hears so.
        unapplied = sorted(k for k in ("allowed_hosts", "peers") if options.get(k))
        if unapplied:
            print("[hud-studio] env.workspace({}=...) is not applied by the bundled runtime: the agent's commands "
                  "have the network of the task's container (runtime_config network_mode)".format(
                      "=..., ".join(unapplied)), file=sys.stderr, flush=True)
        self.root = os.path.abspath(os.fspath(root))
        self.env = dict(env or {})
        self._server = None  # type: Optional[asyncio.AbstractServer]
        self.port = None  # type: Optional[int]

    async def start(self) -> None:
        os.makedirs(self.root, exist_ok=True)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_REQUEST_BYTES)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    def capability(self, name: str = "shell") -> Capability:
        if self.port is None:
            raise RuntimeError("the workspace is not started; env.workspace() starts it when the environment serves")
        return Capability(name, PROTOCOL, "tcp://127.0.0.1:{}".format(self.port),
                          {"cwd": self.root, "shell": "bash", "note": "HUD Studio shell protocol, not ssh/2"})

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    await _send(writer, {"id": None, "error": "request over {} bytes".format(MAX_REQUEST_BYTES)})
                    return
                if not line:
                    return
                if not line.strip():
                    continue
                await _send(writer, await self._run(line))
        except (ConnectionError, OSError):
            return
        finally:
            writer.close()

    async def _run(self, line: bytes) -> Dict[str, Any]:
        try:
            request = json.loads(line.decode("utf-8"))
        except ValueError as err:
            return {"id": None, "error": "not JSON: {}".format(err)}
        if not isinstance(request, dict) or not isinstance(request.get("command"), str):
            return {"id": request.get("id") if isinstance(request, dict) else None,
                    "error": "a request is {\"id\", \"command\": str, \"timeout\"?: seconds}"}
        timeout = request.get("timeout")
        timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else DEFAULT_TIMEOUT_S
        result = await run_bash(request["command"], cwd=self.root, timeout_seconds=timeout,
                                stdin=request.get("stdin") if isinstance(request.get("stdin"), str) else None,
                                env=self.env)
        return {"id": request.get("id"), "exit_code": result["exit_code"], "stdout": result["stdout"],
                "stderr": result["stderr"], "timed_out": result["timed_out"]}


async def _send(writer: asyncio.StreamWriter, reply: Dict[str, Any]) -> None:
    writer.write((json.dumps(reply) + "\n").encode("utf-8"))
    await writer.drain()
