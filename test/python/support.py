"""Shared helpers for the Python runtime tests: real subprocesses, real TCP."""
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNTIME = os.path.join(ROOT, "runtime", "python")
FIXTURES = os.path.join(ROOT, "test", "fixtures", "python")


def fixture(*parts: str) -> str:
    return os.path.join(FIXTURES, *parts)


def runtime_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = RUNTIME
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def run_python(args: List[str], extra_env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
               timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable] + args,
        cwd=cwd or ROOT,
        env=runtime_env(extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )


class ServerProcess:
    """`python3 -m hud.environment.server PATH` in a subprocess; stderr goes to a log file."""

    def __init__(self, path: str, env_name: Optional[str] = None, extra_env: Optional[Dict[str, str]] = None) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="hud-server-", suffix=".log", delete=False)
        argv = [sys.executable, "-m", "hud.environment.server", path]
        if env_name:
            argv += ["--env", env_name]
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=runtime_env(extra_env),
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.port = self._read_port()

    def _read_port(self, timeout: float = 15) -> int:
        deadline = time.monotonic() + timeout
        buf = b""
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
                for line in buf.split(b"\n")[:-1]:
                    if line.startswith(b"HUD_SERVE_PORT="):
                        return int(line.split(b"=", 1)[1])
            elif self.proc.poll() is not None:
                break
        self.stop()
        raise AssertionError("server did not print HUD_SERVE_PORT; stdout={!r} stderr={}".format(buf, self.stderr()))

    def stderr(self) -> str:
        with open(self.log.name, "r", encoding="utf-8", errors="replace") as f:
            return f.read()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self, timeout: float = 20) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass

    def client(self) -> "RpcClient":
        return RpcClient(self.port)


class RpcClient:
    """A line-framed JSON-RPC client over a plain socket."""

    def __init__(self, port: int, timeout: float = 20) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        self.next_id = 0

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, frame: Dict[str, Any]) -> None:
        self.send_raw((json.dumps(frame) + "\n").encode("utf-8"))

    def read_line(self) -> Optional[bytes]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read_frame(self) -> Dict[str, Any]:
        line = self.read_line()
        if line is None:
            raise ConnectionError("server closed the connection")
        return json.loads(line.decode("utf-8"))

    def request(self, method: str, params: Any = None) -> Dict[str, Any]:
        self.next_id += 1
        frame = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            frame["params"] = params
        self.send(frame)
        reply = self.read_frame()
        if reply.get("id") != self.next_id:
            raise AssertionError("reply id {!r} != request id {}".format(reply.get("id"), self.next_id))
        return reply

    def call(self, method: str, params: Any = None) -> Any:
        reply = self.request(method, params)
        if "error" in reply:
            raise AssertionError("{} failed: {}".format(method, reply["error"]))
        return reply["result"]

    def error(self, method: str, params: Any = None) -> Dict[str, Any]:
        reply = self.request(method, params)
        if "error" not in reply:
            raise AssertionError("{} unexpectedly succeeded: {}".format(method, reply.get("result")))
        return reply["error"]

    def closed_by_peer(self) -> bool:
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()
