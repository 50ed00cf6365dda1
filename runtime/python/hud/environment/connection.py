"""One control-channel connection: frames in, session methods, frames out.

A Session outlives its connection while a started task waits for its grade
(it is parked), so a client that lost its connection can resume it.
"""
import asyncio
import json
import os
import traceback
from typing import Any, Dict, Optional, Set

from .core import Environment
from .framing import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_FRAME_BYTES,
    METHOD_NOT_FOUND,
    SERVER_ERROR,
    BufferBudget,
    BufferBudgetExceeded,
    FrameTooLarge,
    InvalidRequest,
    LineReader,
    RpcError,
    check_request,
    decode,
    encode,
    error_frame,
    result_frame,
)
from .log import log
from .schema import describe_templates
from .session import RunningTask, close_task, grade_task, start_task
from .tunnel import capability_address, pipe_both

# How long a connection that sent an oversized frame may keep sending before
# it is cut: draining lets the client read the error frame instead of a reset.
_LINGER_S = 5.0
# Budget for each teardown step when the server stops (a task's finally, a hook).
SHUTDOWN_STEP_S = 10.0
# A client that reconnects after a drop can be faster than the server's
# noticing the drop; a lone tasks.grade waits this long for the old
# connection's task to be parked before saying there is nothing to grade.
_PARK_GRACE_S = 1.0


def _session_id() -> str:
    """A random (version 4) UUID's 32 hex digits, as `uuid.uuid4().hex`; the uuid module (and the platform
    module it imports) costs every server's start more than these few lines."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return raw.hex()


class Session:
    """A control session: survives its connection while a started task awaits grading."""

    def __init__(self) -> None:
        self.id = _session_id()
        self.task = None  # type: Optional[RunningTask]


class Server:
    def __init__(self, env: Environment) -> None:
        self.env = env
        self.parked = {}  # type: Dict[str, Session]
        self.attached = {}  # type: Dict[str, Connection]
        self.connections = set()  # type: Set[asyncio.Task]
        self.budget = BufferBudget()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        me = asyncio.current_task()
        if me is not None:
            self.connections.add(me)
        peer = writer.get_extra_info("peername")
        connection = Connection(self, reader, writer)
        try:
            await connection.run()
        except asyncio.CancelledError:
            pass
        except Exception as err:
            log("connection {}: unexpected {}: {}".format(peer, type(err).__name__, err))
        finally:
            connection.lines.release()
            connection.detach()
            writer.close()
            if me is not None:
                self.connections.discard(me)

    async def take_lone_parked(self, asking: "Connection") -> Optional[Session]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _PARK_GRACE_S
        while not self.parked and loop.time() < deadline and any(
            c is not asking and c.session is not None and c.session.task is not None for c in self.attached.values()
        ):
            await asyncio.sleep(0.02)
        if len(self.parked) != 1:
            return None
        session_id = next(iter(self.parked))
        return self.parked.pop(session_id)

    async def close_all_tasks(self) -> None:
        sessions = list(self.parked.values())
        self.parked.clear()
        for session in sessions:
            if session.task is not None:
                task, session.task = session.task, None
                log("closing {} of session {} (shutdown)".format(task.label, session.id))
                try:
                    await asyncio.wait_for(close_task(task, log), SHUTDOWN_STEP_S)
                except asyncio.TimeoutError:
                    log("{} teardown did not finish within {}s".format(task.label, SHUTDOWN_STEP_S))


class Connection:
    def __init__(self, server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.env = server.env
        self.reader = reader
        self.writer = writer
        self.lines = LineReader(reader, budget=server.budget)
        self.session = None  # type: Optional[Session]
        self.open = True

    async def run(self) -> None:
        first = True
        while self.open:
            try:
                line = await self.lines.readline()
            except FrameTooLarge:
                self.lines.release()
                log("closing a connection: frame over {} bytes".format(MAX_FRAME_BYTES))
                await self.send(
                    error_frame(None, INVALID_REQUEST, "frame exceeds the {} MiB limit; closing the connection".format(
                        MAX_FRAME_BYTES // (1024 * 1024)))
                )
                await self.linger()
                return
            except BufferBudgetExceeded:
                log("closing a connection: connections together hold over {} bytes of unfinished frames".format(
                    self.server.budget.limit))
                await self.send(error_frame(None, SERVER_ERROR, "server busy: too much unfinished input across "
                                                                "connections; closing this one, retry later"))
                await self.linger()
                return
            except (ConnectionError, OSError):
                return
            if line is None:
                return
            if not line.strip():
                continue
            try:
                frame = decode(line)
                check_request(frame)
            except InvalidRequest as err:
                log(err.message)
                await self.send(error_frame(err.reply_id, err.code, err.message))
                continue
            except RpcError as err:
                log(err.message)
                await self.send(error_frame(None, err.code, err.message))
                continue
            if first and frame.get("method") == "tunnel.open":
                await self.tunnel(frame)
                return
            first = False
            await self.dispatch(frame)

    async def send(self, frame: Dict[str, Any]) -> None:
        if not self.open:
            return
        try:
            data = encode(frame)
        except (TypeError, ValueError, RecursionError) as err:
            message = "result is not JSON-serialisable: {}".format(str(err)[:200])
            data = encode(error_frame(frame.get("id"), SERVER_ERROR, message))
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, OSError):
            self.open = False

    async def linger(self) -> None:
        self.open = False
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + _LINGER_S
            while loop.time() < deadline:
                chunk = await asyncio.wait_for(self.reader.read(1024 * 1024), deadline - loop.time())
                if not chunk:
                    break
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass

    def use(self, session: Session) -> None:
        if self.session is not None and self.server.attached.get(self.session.id) is self:
            del self.server.attached[self.session.id]
        self.session = session
        self.server.attached[session.id] = self

    def detach(self) -> None:
        session = self.session
        if session is not None and self.server.attached.get(session.id) is self:
            del self.server.attached[session.id]
        if session is not None and session.task is not None:
            self.server.parked[session.id] = session
            log("connection dropped: parked session {} ({} awaits grading)".format(session.id, session.task.label))

    async def dispatch(self, frame: Dict[str, Any]) -> None:
        request_id, method, params = check_request(frame)
        if self.session is None:
            self.use(Session())
        handler = {
            "hello": self.hello,
            "tasks.list": self.tasks_list,
            "tasks.start": self.tasks_start,
            "tasks.grade": self.tasks_grade,
            "tasks.cancel": self.tasks_cancel,
            "bye": self.bye,
            "tunnel.open": self.late_tunnel,
        }.get(method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, "method not found: {}".format(method))
            result = await handler({} if params is None else params)
            reply = result_frame(request_id, result)
        except RpcError as err:
            log("{} -> error {}: {}".format(method, err.code, err.message))
            reply = error_frame(request_id, err.code, err.message, err.data)
        except Exception as err:
            log("{} -> internal error: {}".format(method, traceback.format_exc()))
            reply = error_frame(request_id, SERVER_ERROR, "internal error in {}: {}: {}".format(method, type(err).__name__, err))
        if "id" in frame:
            await self.send(reply)
        if method == "bye":
            self.open = False

    # -- methods ---------------------------------------------------------

    async def hello(self, params: Any) -> Dict[str, Any]:
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "hello: params must be an object {session_id?}")
        wanted = params.get("session_id")
        resumed = False
        if wanted is not None and wanted != self.session.id:
            if not isinstance(wanted, str):
                raise RpcError(INVALID_PARAMS, "hello: 'session_id' must be a string")
            if wanted in self.server.attached:
                # As in the SDK: a session another live connection holds is not taken over.
                raise RpcError(INVALID_REQUEST, "session {!r} has a live connection".format(wanted))
            if wanted not in self.server.parked:
                raise RpcError(
                    INVALID_REQUEST,
                    "unknown session: {!r} (it was graded, cancelled, resumed elsewhere, or the server restarted); "
                    "send hello without session_id to start afresh".format(wanted),
                )
            if self.session.task is not None:
                raise RpcError(
                    INVALID_REQUEST,
                    "hello: this connection already runs {}; cancel it before resuming another session".format(
                        self.session.task.label
                    ),
                )
            self.use(self.server.parked.pop(wanted))
            resumed = True
            log("resumed session {}".format(wanted))
        task = self.session.task
        return {
            "session_id": self.session.id,
            "env": {"name": self.env.name, "version": self.env.version},
            "bindings": [c.to_manifest() for c in self.env.capabilities],
            "resumed": resumed,
            "task": {"id": task.template.id, "args": task.args} if task is not None else None,
        }

    async def tasks_list(self, params: Any) -> Dict[str, Any]:
        return {"tasks": describe_templates(self.env)}

    async def tasks_start(self, params: Any) -> Dict[str, Any]:
        if self.session.task is not None:
            # As in the SDK: a new start replaces the session's running task (its generator is closed first).
            old, self.session.task = self.session.task, None
            await close_task(old, log)
            log("replaced {} by a new tasks.start".format(old.label))
        task, prompt = await start_task(self.env, params)
        self.session.task = task
        log("started {} args={}".format(task.label, json.dumps(task.args, default=str)[:500]))
        return prompt

    async def tasks_grade(self, params: Any) -> Dict[str, Any]:
        if self.session.task is None:
            adopted = await self.server.take_lone_parked(self)
            if adopted is not None:
                log("adopted parked session {} for a lone tasks.grade".format(adopted.id))
                self.use(adopted)
            elif self.server.parked:
                raise RpcError(
                    INVALID_REQUEST,
                    "no task in progress on this connection ({} parked sessions: send hello {{session_id}} "
                    "to resume one)".format(len(self.server.parked)),
                )
            else:
                raise RpcError(INVALID_REQUEST, "no task in progress")
        # As in the SDK: a missing answer is None.
        answer = params.get("answer") if isinstance(params, dict) else None
        task, self.session.task = self.session.task, None
        frame = await grade_task(task, answer, log)
        log("graded {}: score={}".format(task.label, frame.get("score")))
        return frame

    async def tasks_cancel(self, params: Any) -> Dict[str, Any]:
        task = self.session.task
        if task is not None:
            self.session.task = None
            await close_task(task, log)
            log("cancelled {}".format(task.label))
        return {"cancelled": True}

    async def bye(self, params: Any) -> Dict[str, Any]:
        # A deliberate goodbye ends the session: nothing is parked.
        await self.tasks_cancel(params)
        return {"goodbye": True}

    async def late_tunnel(self, params: Any) -> Dict[str, Any]:
        raise RpcError(INVALID_REQUEST, "tunnel.open must be the first frame of a new connection")

    # -- tunnels ----------------------------------------------------------

    async def tunnel(self, frame: Dict[str, Any]) -> None:
        request_id = frame.get("id")
        params = frame.get("params")
        name = params.get("capability") if isinstance(params, dict) else None
        capability = next((c for c in self.env.capabilities if c.name == name), None)
        if capability is None:
            log("tunnel.open -> unknown capability {!r}".format(name))
            await self.send(error_frame(request_id, INVALID_PARAMS, "tunnel.open: unknown capability {!r} (capabilities: {})".format(
                name, ", ".join(c.name for c in self.env.capabilities) or "none")))
            return
        try:
            host, port = capability_address(capability.url)
            daemon_reader, daemon_writer = await asyncio.open_connection(host, port)
        except (ValueError, OSError) as err:
            log("tunnel.open -> capability '{}' not reachable: {}".format(capability.name, err))
            await self.send(error_frame(request_id, SERVER_ERROR, "tunnel.open: capability '{}' ({}) is not reachable: {}".format(
                capability.name, capability.url, err)))
            return
        await self.send(result_frame(request_id, {"tunnel": capability.name, "url": capability.url}))
        log("tunnel opened to capability '{}' ({}:{})".format(capability.name, host, port))
        leftover = self.lines.take_buffered()
        if leftover:
            daemon_writer.write(leftover)
        await pipe_both(self.reader, self.writer, daemon_reader, daemon_writer)
        log("tunnel to capability '{}' closed".format(capability.name))
