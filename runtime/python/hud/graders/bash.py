"""BashGrader: 1.0 iff a shell command exits 0."""
import asyncio
import os
import signal
from typing import Any, Dict, Optional

from .base import Grader
from .results import SubScore

# Output kept per stream, so a chatty command cannot blow up the grade frame.
MAX_OUTPUT_BYTES = 1024 * 1024
# After the command exits, how long background children may keep its pipes open.
_DRAIN_AFTER_EXIT_S = 5.0


class BashGrader(Grader):
    """1.0 iff `bash -lc command` exits 0 within `timeout_seconds` (default 600)."""

    name = "BashGrader"
    default_timeout = 600

    @classmethod
    async def compute_score(  # type: ignore[override]
        cls, command: Optional[str] = None, cwd: Optional[str] = None, timeout_seconds: Optional[float] = None, **_: Any
    ) -> SubScore:
        if not isinstance(command, str) or not command.strip():
            raise ValueError("BashGrader requires command=\"...\" (a shell command)")
        if timeout_seconds is None:
            timeout_seconds = cls.default_timeout
        try:
            result = await run_bash(command, cwd=cwd, timeout_seconds=timeout_seconds)
        except FileNotFoundError:
            return SubScore(name=cls.name, value=0.0, info={
                "exit_code": None, "stdout": "", "stderr": "/bin/bash not found", "timed_out": False})
        if result["timed_out"]:
            return SubScore(name=cls.name, value=0.0, info={
                "exit_code": None, "stdout": result["stdout"], "stderr": result["stderr"], "timed_out": True,
                "timeout": timeout_seconds})
        code = result["exit_code"] if result["exit_code"] is not None else 1
        return SubScore(name=cls.name, value=1.0 if code == 0 else 0.0,
                        info={"exit_code": code, "stdout": result["stdout"], "stderr": result["stderr"]})


async def run_bash(command: str, cwd: Optional[str] = None, timeout_seconds: float = 600,
                   stdin: Optional[str] = None, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Runs `/bin/bash -lc command` in its own process group; the group is killed on timeout."""
    proc = await asyncio.create_subprocess_exec(
        "/bin/bash",
        "-lc",
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        env=dict(os.environ, **env) if env else None,
    )
    if stdin is not None and proc.stdin is not None:
        try:
            proc.stdin.write(stdin.encode("utf-8"))
            await proc.stdin.drain()
        except (ConnectionError, OSError):
            pass
        proc.stdin.close()
    out = _Capture()
    err = _Capture()
    readers = [asyncio.ensure_future(out.read(proc.stdout)), asyncio.ensure_future(err.read(proc.stderr))]
    timed_out = False
    try:
        await asyncio.wait_for(proc.wait(), timeout=timeout_seconds)
    except asyncio.TimeoutError:
        timed_out = True
        _kill_group(proc.pid)
        await proc.wait()
    except BaseException:
        _kill_group(proc.pid)
        for r in readers:
            r.cancel()
        raise
    _, pending = await asyncio.wait(readers, timeout=_DRAIN_AFTER_EXIT_S)
    for r in pending:
        r.cancel()
    return {
        "exit_code": proc.returncode,
        "stdout": out.text(),
        "stderr": err.text(),
        "timed_out": timed_out,
        "timeout_seconds": timeout_seconds,
        "command": command,
    }


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Capture:
    def __init__(self) -> None:
        self.data = bytearray()
        self.truncated = False

    async def read(self, stream: Any) -> None:
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                return
            self.data.extend(chunk)
            if len(self.data) > MAX_OUTPUT_BYTES:
                # Keep the tail: the end of a failing test run says why it failed.
                del self.data[: len(self.data) - MAX_OUTPUT_BYTES]
                self.truncated = True

    def text(self) -> str:
        text = self.data.decode("utf-8", errors="replace")
        return "[output truncated]\n" + text if self.truncated else text
