"""Who a request comes from when reverse proxies stand in front of the server.

    proxies = TrustedProxies.from_settings(settings)       # SUMWATCH_TRUSTED_PROXIES="10.0.0.0/8, 127.0.0.1"
    proxies.resolve("10.0.0.2", [(b"x-forwarded-for", b"203.0.113.7, 10.0.0.9")])   # ("203.0.113.7", None)
    app.add_middleware(ForwardedHeaders, proxies=proxies)  # scope["client"] and scope["scheme"] as resolved

uvicorn's own handling stays off: it believes these headers from 127.0.0.1 by default, so any process on the
machine (or a proxy that passes them through) could name any client and walk around the sign-in limit.

Only a peer in the trusted set may say who its client was. Its header is ``X-Forwarded-For``, or the standard
``Forwarded`` (its ``for=`` nodes) when no X-Forwarded-For came; the client is the right-most address of that list,
the peer appended, that is not a trusted proxy itself: whatever a client wrote further left is never believed. The
scheme follows that hop's ``X-Forwarded-Proto`` or ``proto=``. From any other peer both headers are ignored.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..settings import Settings, parse_trusted_proxies
from .auth import ASGIApp, Receive, Scope, Send, host_name

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_SCHEMES = ("http", "https")
_MAX_NODE = 64  # a node that is no address ("unknown", "_hidden", garbage) is kept this long, as the limit's key


def node_address(node: str) -> str:
    """An address as a hop names it, without port, brackets or quotes, IPv6 compressed; other text as it is
    (shortened): ``node_address('"[2001:DB8::1]:4711"') == "2001:db8::1"``."""
    node = node.strip().strip('"').strip()
    # a bare IPv6 address, else host[:port] as the Host check reads it
    ip = _ip(node) or _ip((host_name(node) or "").strip("[]"))
    return str(ip) if ip is not None else node[:_MAX_NODE]


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:10.0.0.1 from a dual-stack socket is 10.0.0.1
    return mapped if mapped is not None else ip


@dataclass(frozen=True)
class TrustedProxies:
    """The networks whose forwarded headers are believed; empty (the default): nobody's."""

    networks: tuple[Network, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> TrustedProxies:
        return cls(parse_trusted_proxies(settings.receiver.trusted_proxies))

    def trusts(self, address: str) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip in network for network in self.networks)

    def resolve(self, peer: str, headers: Iterable[tuple[bytes, bytes]]) -> tuple[str, str | None]:
        """(the client's address, the scheme it used or None when unknown) for a request from ``peer``."""
        if not self.trusts(peer):
            return peer, None
        values: dict[bytes, list[str]] = {}
        for name, value in headers:
            if name.lower() in (b"x-forwarded-for", b"x-forwarded-proto", b"forwarded"):
                values.setdefault(name.lower(), []).append(value.decode("latin-1"))
        if b"x-forwarded-for" in values:
            hops = _items(values[b"x-forwarded-for"])
            protos = _items(values.get(b"x-forwarded-proto", []))
            if len(protos) != len(hops):  # one value for the whole chain (nginx's $scheme), or a chain of its own
                protos = [protos[-1]] * len(hops) if protos else []
        elif b"forwarded" in values:
            elements = [_pairs(e) for e in _items(values[b"forwarded"])]
            hops = [e.get("for", "unknown") for e in elements]
            protos = [e.get("proto", "") for e in elements]
        else:
            return peer, None
        index = self._client_index([node_address(h) for h in hops])
        if index is None:
            return peer, None
        proto = protos[index].strip().lower() if index < len(protos) else ""
        return node_address(hops[index]), proto if proto in _SCHEMES else None

    def _client_index(self, nodes: Sequence[str]) -> int | None:
        """The right-most node that is not a trusted proxy (the left-most when all are), None for no nodes."""
        for index in range(len(nodes) - 1, -1, -1):
            if not self.trusts(nodes[index]):
                return index
        return 0 if nodes else None


def _items(values: Iterable[str]) -> list[str]:
    # commas inside a quoted value are not split around: only the hops a trusted proxy wrote (the right end) are
    # read, and those are addresses, so the client's quoting further left cannot move them
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _pairs(element: str) -> dict[str, str]:
    """``for=192.0.2.1;proto=https`` -> ``{"for": "192.0.2.1", "proto": "https"}`` (values unquoted)."""
    pairs: dict[str, str] = {}
    for pair in element.split(";"):
        name, sep, value = pair.partition("=")
        if sep:
            pairs.setdefault(name.strip().lower(), value.strip().strip('"'))
    return pairs


class ForwardedHeaders:
    """ASGI middleware: ``scope["client"]`` and ``scope["scheme"]`` as :meth:`TrustedProxies.resolve` finds them
    (nothing changes when the peer is not a trusted proxy); ``create_app`` adds it only when one is trusted."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app, self.proxies = app, proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("client"):
            client, scheme = self.proxies.resolve(scope["client"][0], scope.get("headers", ()))
            if client != scope["client"][0]:
                scope["client"] = (client, 0)
            if scheme is not None:
                scope["scheme"] = scheme if scope["type"] == "http" else {"http": "ws", "https": "wss"}[scheme]
        await self.app(scope, receive, send)
