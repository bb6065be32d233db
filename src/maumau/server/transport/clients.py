"""Who a request or WebSocket really comes from, behind a reverse proxy; and the
public address the server's own links are built from.

Behind a proxy every connection comes from the proxy, and the client's address only
travels in ``X-Forwarded-For``, which any client can also write itself.  So the header
is read only when the direct peer is a trusted proxy (``--trusted-proxy``), and then as
proxies write it, each appending the address it was connected from: walked from the
right, every address that is itself a trusted proxy is skipped, and the first that is
not is the client.  Whatever a client wrote further left is never reached.  A peer that
is not trusted is the client, whatever its headers say.  ``X-Forwarded-Proto`` (the
scheme the client used) is read from a trusted peer alone, too.

:meth:`Proxies.resolve` puts the client's address and scheme into the ASGI scope before
the app sees a connection, so every limit per client address (table creation, live
tables, records and replays, WebSocket admission) and uvicorn's access log see the
client, not the proxy.  uvicorn's own ``proxy_headers`` stays off: it trusts the
left-most address of the header, which is the one a client writes.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from maumau.server.wire.errors import ServerError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: the scope key that keeps the direct peer's address when the client's replaced it
PEER = "maumau.peer"
#: at most this many ``X-Forwarded-For`` entries are looked at (from the right)
MAX_HOPS = 16
#: the longest ``Host`` links are built from: a DNS name's 253 characters and a port
MAX_HOST = 253 + len(":65535")
#: a DNS name (or an IPv4 address): dot-separated labels of letters, digits, ``-``
#: and ``_`` (Docker's service names), none longer than 63 or starting or ending in ``-``
_NAME = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?")


def networks(values: Iterable[str]) -> tuple[Network, ...]:
    """The trusted networks ``values`` name: addresses (``127.0.0.1``, ``::1``) and
    networks (``10.0.0.0/8``, ``fd00::/8``), each of them possibly a comma-separated
    list.  :class:`ValueError` names a value that is neither."""
    found: list[Network] = []
    for value in values:
        for part in value.split(","):
            text = part.strip()
            if not text:
                continue
            try:
                found.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                raise ValueError(
                    f"{text!r} is no IP address or network (such as 127.0.0.1 or 10.0.0.0/8)"
                ) from None
    return tuple(found)


def public_url(text: str) -> str:
    """``text`` as the server's public URL (``https://cards.example.org``, with a port
    if it has one), without a trailing slash; :class:`ValueError` says what is wrong
    with it (another scheme, a path, a query, a user name)."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{text!r} must start with https:// or http://")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} has a bad port") from None
    if not parts.hostname or "@" in parts.netloc:
        raise ValueError(f"{text!r} must name a host (and no user), like https://example.org")
    if parts.path not in ("", "/") or parts.query or parts.fragment or text.strip().endswith("?"):
        raise ValueError(f"{text!r} must be the site's root: no path, query or fragment")
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + ("" if port is None else f":{port}")


def _ip(text: str) -> Address | None:
    """The IP address ``text`` holds (an ``X-Forwarded-For`` entry: possibly with a
    port, an IPv6 one in brackets), or ``None``."""
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:443
        text, bracket, port = text[1:].partition("]")
        if not bracket or (port and not port[1:].isdigit()) or port[:1] not in ("", ":"):
            return None
    elif text.count(":") == 1:  # 192.0.2.1:5678
        text, _, port = text.partition(":")
        if not port.isdigit():
            return None
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class Proxies:
    """The trusted proxies (networks), and what a connection's peer and headers say
    about its client."""

    def __init__(self, trusted: Iterable[str]) -> None:
        self.networks = networks(trusted)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, ip: Address | None) -> bool:
        return ip is not None and any(ip in network for network in self.networks)

    def trusts_peer(self, peer: str) -> bool:
        """Whether the direct peer ``peer`` (an address as text) is a trusted proxy."""
        return self.trusts(_ip(peer))

    def client(self, peer: str, forwarded_for: Iterable[str]) -> str:
        """The client's address of a connection from ``peer`` that carries the
        ``X-Forwarded-For`` headers ``forwarded_for`` (in their order)."""
        ip = _ip(peer)
        if not self.trusts(ip):
            return peer  # (a forged header from an untrusted peer counts for nothing)
        entries = [e for header in forwarded_for for e in header.split(",")][-MAX_HOPS:]
        client = peer
        for entry in reversed(entries):
            hop = _ip(entry)
            if hop is None:
                # a trusted proxy handed on something that is no address: it is the
                # nearest the client that can be told
                return client
            client = str(hop)
            if not self.trusts(hop):
                return client
        return client  # every entry a trusted proxy: the furthest of them

    def scheme(self, peer: str, forwarded_proto: str | None, default: str) -> str:
        """The scheme the client used (``http``/``https``): the right-most value of
        ``X-Forwarded-Proto`` from a trusted peer, else ``default``."""
        if forwarded_proto is None or not self.trusts(_ip(peer)):
            return default
        value = forwarded_proto.rpartition(",")[2].strip().lower()
        return value if value in ("http", "https") else default

    def resolve(self, scope: MutableMapping[str, Any]) -> None:
        """Put the client's address (and, for HTTP, scheme) into ``scope`` (an ASGI
        ``http`` or ``websocket`` scope), keeping the peer's under :data:`PEER`.  Only
        a connection from a trusted proxy changes."""
        peer = scope.get("client")
        if not peer or not self.trusts(_ip(peer[0])):
            return
        forwarded: list[str] = []
        proto: str | None = None
        for name, value in scope.get("headers", ()):
            if name == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
            elif name == b"x-forwarded-proto":
                proto = value.decode("latin-1")
        scope[PEER] = tuple(peer)
        client = self.client(peer[0], forwarded)
        if client != peer[0]:
            scope["client"] = (client, 0)
        scheme = self.scheme(peer[0], proto, "")
        if scheme and scope["type"] == "websocket":
            scope["scheme"] = "wss" if scheme == "https" else "ws"
        elif scheme:
            scope["scheme"] = scheme


def client_host(connection: HTTPConnection) -> str:
    """The client's address of a request or WebSocket (after :meth:`Proxies.resolve`):
    what every limit per client address counts by (through
    :func:`maumau.server.transport.limits.address_key`)."""
    return connection.client.host if connection.client else "unknown"


def base_url(connection: HTTPConnection, public: str | None) -> str:
    """Where the server's own links start (no trailing slash): ``public`` (the
    ``--public-url``) if given; else the request's ``Host`` with the client's scheme.
    A ``Host`` that :func:`valid_host` refuses is refused (``bad_host``): the client
    writes it, and a link (a QR code) is only made of what the server checked."""
    if public:
        return public
    host = connection.headers.get("host")
    if host is not None and not valid_host(host):
        raise ServerError(
            "bad_host",
            f"the Host header must be a host name or IP address with an optional port, "
            f"at most {MAX_HOST} characters (like cards.example.org:8000)",
        )
    return str(connection.base_url).rstrip("/")


def valid_host(host: str) -> bool:
    """Whether ``host`` (a ``Host`` header) is ``name[:port]``, ``IPv4[:port]`` or
    ``[IPv6][:port]``, with a port from 1 to 65535, at most :data:`MAX_HOST` long."""
    if len(host) > MAX_HOST:
        return False
    if host.startswith("["):
        address, bracket, port = host[1:].partition("]")
        if not bracket or "%" in address:  # (a zone id: no address for a link)
            return False
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return False
    else:
        name, _, port = host.partition(":")
        if _NAME.fullmatch(name) is None or len(name.rstrip(".")) > 253:
            return False
        port = host[len(name) :]
    if not port:
        return True
    digits = port[1:]
    if port[0] != ":" or not (0 < len(digits) <= 5 and digits.isascii() and digits.isdigit()):
        return False
    return 0 < int(digits) < 65536


def origin_of(url: str) -> str:
    """The origin (``scheme://host[:port]``, lower case) of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
