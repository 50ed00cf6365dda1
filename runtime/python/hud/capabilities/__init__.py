"""Capabilities: the wire data `hello` publishes for each daemon an environment offers.

`Capability(name, protocol, url, params)` as in the HUD SDK v6, with its
`ssh` and `mcp` constructors. HUD Studio's own shell protocol (what
`env.workspace()` publishes in the bundled runtime) is described in
docs/sdk-compatibility.md.
"""
import os
import re
import sys
from typing import Any, Dict, Optional

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+\-.]*):")


def normalize_url(url: str, default_scheme: str, default_port: Optional[int]) -> str:
    """`host[:port]` shorthand to `scheme://host:port[/path]`."""
    # Imported when a capability is declared: urllib.parse (with ipaddress) is not on every server's start.
    from urllib.parse import urlsplit, urlunsplit

    text = url if "://" in url else "{}://{}".format(default_scheme, url)
    parts = urlsplit(text)
    if not parts.scheme:
        raise ValueError("invalid URL (no scheme): {!r}".format(url))
    if parts.hostname is None:
        raise ValueError("invalid URL (no host): {!r}".format(url))
    if parts.port is None and default_port is not None:
        userinfo = parts.netloc.rpartition("@")[0] + "@" if "@" in parts.netloc else ""
        host = "[{}]".format(parts.hostname) if ":" in parts.hostname else parts.hostname
        return urlunsplit((parts.scheme, "{}{}:{}".format(userinfo, host, default_port), parts.path, parts.query,
                           parts.fragment))
    return text


class Capability:
    """`(name, protocol, url, params)`: the concrete address of something serving `protocol`."""

    __slots__ = ("name", "protocol", "url", "params")

    def __init__(self, name: str, protocol: str, url: str, params: Optional[Dict[str, Any]] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("Capability needs a non-empty name")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "protocol", protocol)
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "params", dict(params or {}))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Capability is immutable (as in the SDK); make a new one")

    def to_manifest(self) -> Dict[str, Any]:
        return {"name": self.name, "protocol": self.protocol, "url": self.url, "params": dict(self.params)}

    def to_dict(self) -> Dict[str, Any]:
        return self.to_manifest()

    @classmethod
    def from_manifest(cls, data: Dict[str, Any]) -> "Capability":
        params = dict(data.get("params") or {})
        if data["protocol"].split("/", 1)[0] == "mcp" and "transport" not in params:
            from urllib.parse import urlsplit

            params["transport"] = "websocket" if urlsplit(data["url"]).scheme in ("ws", "wss") else "streamable-http"
        return cls(data["name"], data["protocol"], data["url"], params)

    @classmethod
    def ssh(cls, *, name: str = "shell", url: str, user: str = "agent", host_pubkey: str,
            client_key: Optional[str] = None, client_key_path: Any = None, shell: Optional[str] = None,
            cwd: Optional[str] = None, isolation: Optional[str] = None) -> "Capability":
        """`ssh/2`: an SSH daemon with public-key authentication."""
        params = {"user": user, "host_pubkey": host_pubkey,
                  "shell": shell or ("cmd" if sys.platform == "win32" else "bash")}  # type: Dict[str, Any]
        if client_key is not None:
            params["client_key"] = client_key
        if client_key_path is not None:
            params["client_key_path"] = os.fspath(client_key_path)
        if cwd is not None:
            params["cwd"] = cwd
        if isolation is not None:
            params["isolation"] = isolation
        return cls(name, "ssh/2", normalize_url(url, "ssh", 22), params)

    @classmethod
    def mcp(cls, *, name: str = "tools", url: str, auth_token: Optional[str] = None,
            transport: Optional[str] = None) -> "Capability":
        """`mcp/2025-11-25`: an MCP server over ws/wss/http/https."""
        match = _SCHEME.match(url)
        if match and "://" not in url:
            raise ValueError("mcp/2025-11-25: only ws/wss/http/https URLs are supported, got {!r}".format(match.group(1)))
        normalized = normalize_url(url, "ws", None)
        from urllib.parse import urlsplit

        scheme = urlsplit(normalized).scheme
        if scheme not in ("ws", "wss", "http", "https"):
            raise ValueError("mcp/2025-11-25: only ws/wss/http/https URLs are supported, got {!r}".format(scheme))
        if transport == "websocket" and scheme not in ("ws", "wss"):
            raise ValueError("mcp websocket transport requires a ws:// or wss:// URL")
        if transport in ("sse", "streamable-http") and scheme not in ("http", "https"):
            raise ValueError("mcp {} transport requires an http:// or https:// URL".format(transport))
        if transport is None:
            transport = "websocket" if scheme in ("ws", "wss") else "streamable-http"
        normalized = normalize_url(normalized, "ws", 443 if scheme in ("https", "wss") else 80)
        params = {"transport": transport}  # type: Dict[str, Any]
        if auth_token is not None:
            params["auth_token"] = auth_token
        return cls(name, "mcp/2025-11-25", normalized, params)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Capability) and self.to_manifest() == other.to_manifest()

    def __hash__(self) -> int:
        return hash((self.name, self.protocol, self.url))

    def __repr__(self) -> str:
        return "Capability(name={!r}, protocol={!r}, url={!r}, params={!r})".format(
            self.name, self.protocol, self.url, self.params)


__all__ = ["Capability", "normalize_url"]
