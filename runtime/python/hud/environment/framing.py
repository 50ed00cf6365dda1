"""Newline-delimited JSON-RPC 2.0 frames over an asyncio stream."""
import asyncio
import json
from typing import Any, Dict, Optional

MAX_FRAME_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000


class FrameTooLarge(Exception):
    pass


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class LineReader:
    """Reads `\\n`-terminated lines of up to `limit` bytes.

    Written by hand rather than StreamReader.readline so that the limit is
    exact, an oversized line is detected without buffering all of it, and the
    bytes after a `tunnel.open` line can be handed to the tunnel untouched.
    """

    def __init__(self, reader: asyncio.StreamReader, limit: int = MAX_FRAME_BYTES) -> None:
        self._reader = reader
        self._limit = limit
        self._buf = bytearray()
        self._scanned = 0

    async def readline(self) -> Optional[bytes]:
        """The next line without its newline; None at end of stream."""
        while True:
            at = self._buf.find(b"\n", self._scanned)
            if at >= 0:
                if at > self._limit:
                    raise FrameTooLarge()
                line = bytes(self._buf[:at])
                del self._buf[: at + 1]
                self._scanned = 0
                return line
            if len(self._buf) > self._limit:
                raise FrameTooLarge()
            self._scanned = len(self._buf)
            chunk = await self._reader.read(_CHUNK)
            if not chunk:
                if self._buf:
                    line = bytes(self._buf)
                    self._buf.clear()
                    self._scanned = 0
                    return line
                return None
            self._buf.extend(chunk)

    def take_buffered(self) -> bytes:
        data = bytes(self._buf)
        self._buf.clear()
        self._scanned = 0
        return data


def encode(frame: Dict[str, Any]) -> bytes:
    return (json.dumps(frame, ensure_ascii=False, allow_nan=False, default=str) + "\n").encode("utf-8")


def result_frame(request_id: Any, result: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_frame(request_id: Any, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    error = {"code": code, "message": message}  # type: Dict[str, Any]
    if data:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
