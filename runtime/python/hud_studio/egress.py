"""The way out for a Harbor task whose network_mode is "allowlist" (docs/harbor.md, "Allowlists").

The task's container sits on an internal Docker network with no route
anywhere; this proxy, in a container of the engine's beside it, is on that
network and on the outside one, and is the only thing the task can reach.
It carries HTTP CONNECT tunnels (HTTPS, and anything else a client tunnels)
and plain-HTTP requests in absolute form, each to a host the task's
`allowed_hosts` names, and refuses the rest with a 403 that says why.

Hosts match as Harbor defines them: `example.com` is that host alone,
`*.example.com` any name below it but not the apex. A permitted name that
resolves to the host's own, a private, a loopback or a link-local address
is refused too (`blocked address`), so an allowlist entry cannot be used to
reach the machine running the rollout or its other networks.

Run as `python3 -c SOURCE CONFIG_JSON`, CONFIG_JSON being
`{"allowed": [...], "blocked": [addresses], "port": 3128}`. Every decision
is one JSON line on stdout (`{"event": "ready"}` first), which the engine
puts in the phase's log.
"""
import asyncio
import ipaddress
import json
import socket
import sys
from urllib.parse import urlsplit

HEAD_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 15.0
CHUNK = 64 * 1024

#: Ranges no allowlist entry may lead to: the host, its private networks, cloud metadata services.
BLOCKED_RANGES = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
    "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8",
))


def normal_host(host):
    return (host or "").strip().lower().rstrip(".")


def permitted(host, allowed):
    """Whether `host` is one `allowed` names: exactly, or below a `*.suffix` entry (never its apex)."""
    host = normal_host(host)
    if not host:
        return False
    for entry in allowed:
        if entry.startswith("*."):
            if host.endswith(entry[1:]):
                return True
        elif host == entry:
            return True
    return False


def blocked_address(address, extra=frozenset()):
    """Whether the proxy must not connect to `address` (an IP text)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip) in extra or any(ip in net for net in BLOCKED_RANGES if net.version == ip.version)


def split_authority(authority):
    """(host, port) of `host:port` or `[v6]:port`; ValueError when malformed."""
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        if not rest.startswith(":"):
            raise ValueError(authority)
        port = rest[1:]
    else:
        host, _, port = authority.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(authority)
    return host, int(port)


class Refused(Exception):
    def __init__(self, status, reason, detail):
        super().__init__(detail)
        self.status = status
        self.reason = reason
        self.detail = detail


class Proxy:
    def __init__(self, allowed, blocked):
        self.allowed = tuple(normal_host(h) for h in allowed)
        self.blocked = frozenset(blocked)

    def say(self, **fields):
        sys.stdout.write(json.dumps(fields, sort_keys=True) + "\n")
        sys.stdout.flush()

    async def open_upstream(self, host, port):
        if not permitted(host, self.allowed):
            raise Refused(403, "Forbidden", "{} is not in the task's allowed_hosts".format(host))
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as err:
            raise Refused(502, "Bad Gateway", "{} does not resolve: {}".format(host, err))
        last = None
        for family, _, _, _, sockaddr in infos:
            if blocked_address(sockaddr[0], self.blocked):
                last = Refused(403, "Forbidden",
                               "{} resolves to {}, an address of this machine or a private network".format(
                                   host, sockaddr[0]))
                continue
            try:
                return await asyncio.wait_for(asyncio.open_connection(sockaddr[0], port, family=family),
                                              CONNECT_TIMEOUT_S)
            except (OSError, asyncio.TimeoutError) as err:
                last = Refused(502, "Bad Gateway", "{}:{} did not answer: {}".format(host, port, err or "timeout"))
        raise last or Refused(502, "Bad Gateway", "{} has no address".format(host))

    async def handle(self, reader, writer):
        upstream = None
        try:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) != 3 or not parts[2].startswith("HTTP/"):
                raise Refused(400, "Bad Request", "not an HTTP request line")
            method, target, version = parts
            if method == "CONNECT":
                host, port = self.authority(target)
                upstream = await self.open_upstream(host, port)
                writer.write("{} 200 Connection established\r\n\r\n".format(version).encode("latin-1"))
                await writer.drain()
                first = b""
            else:
                url = urlsplit(target)
                if url.scheme != "http" or not url.hostname:
                    raise Refused(400, "Bad Request",
                                  "send https through CONNECT and plain http as an absolute URL (got {!r})".format(
                                      target[:200]))
                host, port = url.hostname, url.port or 80
                upstream = await self.open_upstream(host, port)
                first = self.forwarded_head(method, url, version, lines[1:])
            self.say(event="allowed", method=method, host=normal_host(host), port=port)
            up_reader, up_writer = upstream
            up_writer.write(first)
            to_server = asyncio.ensure_future(pump(reader, up_writer))
            try:
                # The server's side ends the exchange: a client that keeps its end open gets no second request in.
                await pump(up_reader, writer)
            finally:
                to_server.cancel()
        except Refused as refused:
            self.say(event="refused", status=refused.status, detail=refused.detail)
            body = "HUD Studio egress proxy: {}\n".format(refused.detail).encode("utf-8", "replace")
            writer.write("HTTP/1.1 {} {}\r\nX-Hud-Studio-Egress: {}\r\nContent-Type: text/plain\r\n"
                         "Content-Length: {}\r\nConnection: close\r\n\r\n".format(
                             refused.status, refused.reason, refused.reason.lower().replace(" ", "-"),
                             len(body)).encode("latin-1") + body)
        except (ConnectionError, OSError):
            pass
        finally:
            for w in (writer, upstream[1] if upstream else None):
                if w is not None:
                    try:
                        w.close()
                    except OSError:
                        pass

    def authority(self, target):
        try:
            return split_authority(target)
        except ValueError:
            raise Refused(400, "Bad Request", "CONNECT needs host:port (got {!r})".format(target[:200]))

    @staticmethod
    def forwarded_head(method, url, version, header_lines):
        # Origin form for the server; one request per connection, so a second request on it cannot name
        # another host than the one just allowed.
        path = (url.path or "/") + ("?" + url.query if url.query else "")
        kept = []
        has_host = False
        for line in header_lines:
            if not line:
                continue
            name = line.split(":", 1)[0].strip().lower()
            if name in ("connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "upgrade"):
                continue
            has_host = has_host or name == "host"
            kept.append(line)
        if not has_host:
            kept.insert(0, "Host: {}".format(url.netloc))
        return "\r\n".join(["{} {} {}".format(method, path, version)] + kept +
                           ["Connection: close", "", ""]).encode("latin-1")


async def pump(reader, writer):
    # Like the bundled runtime's tunnel copy, which this file cannot import: it runs alone, by `python3 -c`,
    # in a container that has no runtime mounted.
    try:
        while True:
            chunk = await reader.read(CHUNK)
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass


async def serve(config):
    proxy = Proxy(config.get("allowed", []), config.get("blocked", []))
    server = await asyncio.start_server(proxy.handle, config.get("host", "0.0.0.0"), config.get("port", 3128),
                                        limit=HEAD_LIMIT)
    proxy.say(event="ready", port=server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(json.loads(sys.argv[1])))
