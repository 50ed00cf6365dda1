"""Only the server's own user (or root) may talk to the control channel.

In a Docker actor container the agent runs as a user of its own
(docs/security.md) and shares the container's loopback with the server: a
TCP port cannot be hidden from it. The kernel still knows which user owns
each end of a loopback connection (/proc/net/tcp), so a connection whose
client end belongs to another user is closed before a byte is read.
"""
import os
from typing import Any, Callable, Optional, Tuple


def _port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1], 16)


def owner_of_client(peer: Tuple[Any, ...], local: Tuple[Any, ...]) -> Optional[int]:
    """The uid owning the client end of the connection peer -> local; None when /proc does not say."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) < 8:
                continue
            # The client's own row: its local end is the peer's port, its remote end our port.
            if _port_of(cols[1]) == peer[1] and _port_of(cols[2]) == local[1]:
                return int(cols[7])
    return None


def admitted(writer: Any, me: int) -> bool:
    """False when the connection's client end belongs to another user than `me` or root."""
    peer = writer.get_extra_info("peername")
    local = writer.get_extra_info("sockname")
    owner = owner_of_client(peer, local) if peer and local else None
    return owner is None or owner in (me, 0)


def admit_only_own_user(server_class: Any, method: str = "handle") -> None:
    """Wraps server_class.METHOD(reader, writer) so that other users' connections are closed at once."""
    handle: Callable[..., Any] = getattr(server_class, method)
    me = os.getuid()

    async def guarded(self: Any, reader: Any, writer: Any) -> None:
        if not admitted(writer, me):
            writer.close()
            return
        await handle(self, reader, writer)

    setattr(server_class, method, guarded)


def admit_only_own_user_cb(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The same check around an asyncio.start_server callback(reader, writer)."""
    me = os.getuid()

    async def guarded(reader: Any, writer: Any) -> Any:
        if not admitted(writer, me):
            writer.close()
            return None
        return await callback(reader, writer)

    return guarded
