"""`tunnel.open`: turn a connection into a raw byte pipe to a capability's daemon."""
import asyncio
from typing import Tuple

_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443, "ssh": 22}


def capability_address(url: str) -> Tuple[str, int]:
    """host and port of a capability url (`host:port`, `tcp://host:port`, `http://host[:port]/path`)."""
    # Imported on a tunnel's first use: urllib.parse is not needed on every server's start.
    from urllib.parse import urlsplit

    parts = urlsplit(url if "://" in url else "//" + url)
    host = parts.hostname
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = _DEFAULT_PORTS.get(parts.scheme.lower())
    if not host or port is None:
        raise ValueError("capability url '{}' has no host:port to connect to".format(url))
    return host, port


async def pipe_both(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    daemon_reader: asyncio.StreamReader,
    daemon_writer: asyncio.StreamWriter,
) -> None:
    """Copies bytes both ways until both directions have ended, passing half-closes on."""
    try:
        await asyncio.gather(_copy(client_reader, daemon_writer), _copy(daemon_reader, client_writer))
    finally:
        for writer in (daemon_writer, client_writer):
            writer.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        # One side went away: closing both ends (in pipe_both) tells the other.
        writer.close()
