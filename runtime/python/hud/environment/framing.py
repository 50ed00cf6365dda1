"""Newline-delimited JSON-RPC 2.0 frames over an asyncio stream.

Every frame a client can send gets an answer or a clean close, never a
crash of the connection: see docs/reliability.md for the limits below.
"""
import asyncio
import json
import math
from typing import Any, Dict, Optional, Tuple

MAX_FRAME_BYTES = 64 * 1024 * 1024
# Bytes of unfinished frames held for all connections together: many clients
# each sending a frame just under the limit must not exhaust the server.
MAX_BUFFERED_BYTES = 2 * MAX_FRAME_BYTES
# Deeper values are refused before any code walks them recursively.
MAX_NESTING = 256
_CHUNK = 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000


class FrameTooLarge(Exception):
    pass


class BufferBudgetExceeded(Exception):
    pass


class BufferBudget:
    """Bytes held by every connection's LineReader, bounded together."""

    def __init__(self, limit: int = MAX_BUFFERED_BYTES) -> None:
        self.limit = limit
        self.used = 0

    def take(self, n: int) -> None:
        if self.used + n > self.limit:
            raise BufferBudgetExceeded()
        self.used += n

    def give(self, n: int) -> None:
        self.used = max(0, self.used - n)


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

    def __init__(self, reader: asyncio.StreamReader, limit: int = MAX_FRAME_BYTES,
                 budget: Optional[BufferBudget] = None) -> None:
        self._reader = reader
        self._limit = limit
        self._budget = budget if budget is not None else BufferBudget(limit * 2)
        self._held = 0
        self._buf = bytearray()
        self._scanned = 0

    def _account(self) -> None:
        held = len(self._buf)
        if held > self._held:
            self._budget.take(held - self._held)
        else:
            self._budget.give(self._held - held)
        self._held = held

    def release(self) -> None:
        """Gives back what this reader still holds (its connection is closing)."""
        self._buf.clear()
        self._scanned = 0
        self._account()

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
                self._account()
                return line
            if len(self._buf) > self._limit:
                raise FrameTooLarge()
            self._scanned = len(self._buf)
            chunk = await self._reader.read(_CHUNK)
            if not chunk:
                if self._buf:
                    line = bytes(self._buf)
                    self.release()
                    return line
                return None
            self._buf.extend(chunk)
            try:
                self._account()
            except BufferBudgetExceeded:
                self.release()
                raise

    def take_buffered(self) -> bytes:
        data = bytes(self._buf)
        self.release()
        return data


class InvalidRequest(RpcError):
    """A frame that is JSON but not a valid request; answered with `reply_id` when that was valid."""

    def __init__(self, message: str, reply_id: Any = None) -> None:
        super().__init__(INVALID_REQUEST, "invalid request: " + message)
        self.reply_id = reply_id


def _reject_constant(name: str) -> Any:
    raise ValueError("{} is not a JSON number".format(name))


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number {} is out of range".format(text[:40]))
    return value


def decode(line: bytes) -> Any:
    """One frame's JSON value; RpcError(PARSE_ERROR) for anything that is not strict, finite, shallow JSON."""
    try:
        value = json.loads(line.decode("utf-8"), parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise RpcError(PARSE_ERROR, "parse error: frame nests deeper than {} levels".format(MAX_NESTING))
    except ValueError as err:  # also UnicodeDecodeError
        raise RpcError(PARSE_ERROR, "parse error: frame is not JSON ({})".format(str(err)[:200]))
    if _depth_exceeds(value, MAX_NESTING):
        raise RpcError(PARSE_ERROR, "parse error: frame nests deeper than {} levels".format(MAX_NESTING))
    return value


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 0)]  # iterative: the point is not to recurse
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def is_valid_id(request_id: Any) -> bool:
    if request_id is None or isinstance(request_id, str):
        return True
    if isinstance(request_id, bool):
        return False
    if isinstance(request_id, int):
        return True
    return isinstance(request_id, float) and math.isfinite(request_id)


def check_request(frame: Any) -> Tuple[Any, str, Any]:
    """(id, method, params) of a valid request; InvalidRequest naming what is wrong."""
    if not isinstance(frame, dict):
        raise InvalidRequest("a frame must be a JSON object")
    request_id = frame.get("id")
    if not is_valid_id(request_id):
        raise InvalidRequest("'id' must be a string, a finite number or null")
    if frame.get("jsonrpc") != "2.0":
        raise InvalidRequest("'jsonrpc' must be \"2.0\"", request_id)
    method = frame.get("method")
    if not isinstance(method, str):
        raise InvalidRequest("missing string 'method'", request_id)
    return request_id, method, frame.get("params")


def encode(frame: Dict[str, Any]) -> bytes:
    return (json.dumps(frame, ensure_ascii=False, allow_nan=False, default=str) + "\n").encode("utf-8")


def result_frame(request_id: Any, result: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_frame(request_id: Any, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    error = {"code": code, "message": message}  # type: Dict[str, Any]
    if data:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}
