"""Who may use the API and the dashboard, and protection of state-changing requests against other sites.

    app.router.routes.extend(login_routes(settings))            # GET/POST /login, /logout
    layer = auth_middleware(settings)       # every route but /v1, /healthz, /static; the Host allow-list
    app.add_middleware(layer.cls, *layer.args, **layer.kwargs)
    <input type="hidden" name="csrf_token" value="{{ csrf_token(request) }}">   # in a template

One token (``SUMWATCH_API_TOKEN``) opens everything: as ``Authorization: Bearer <token>``, or as the
``sumwatch_session`` cookie the ``/login`` form sets (HttpOnly, SameSite=Strict). Without a token the API and
dashboard are open. Unauthenticated, ``/api/...`` answers 401 JSON and a page redirects to ``/login``.

CSRF: a POST, PUT, PATCH or DELETE (outside /v1) carries a Bearer header, or comes from the same origin
(``Origin``, else ``Referer``) with an ``X-CSRF-Token`` header or ``csrf_token`` form field equal to the
``sumwatch_csrf`` cookie (double submit; that cookie is readable by the page and set on every HTML answer).
Both checks hold with no token configured too. A failure answers 403.

DNS rebinding: a page of ``evil.example``, whose name the attacker then points at 127.0.0.1, is same-origin
with this server in the browser's eyes, and without a token could read the API and post to it. So the
``Host`` header must name this server (:class:`HostPolicy`: the bind address, localhost, 127.0.0.1, [::1],
``SUMWATCH_PUBLIC_URL``'s host, ``SUMWATCH_ALLOWED_HOSTS``), else 400; an unsafe request whose ``Origin``
names another host answers 403, Bearer or not.

Pages carry a Content-Security-Policy (scripts from this server only; frame-ancestors 'none'),
X-Frame-Options, Referrer-Policy and nosniff; JSON answers carry nosniff.

Sessions: ``POST /logout`` revokes the session it carries, so a copy of the cookie kept elsewhere stops
working. The revocations live in this process's memory: a restart, or another replica, forgets them
(a logged-out cookie then works until its 7-day expiry; a new API token ends every session). Failed sign-ins
are limited per client address (5 a minute, then 429 with Retry-After): the peer's, or the one a proxy in
``SUMWATCH_TRUSTED_PROXIES`` names (:mod:`.proxies`); forwarded headers from anyone else are ignored.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import html
import ipaddress
import math
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from jinja2 import Environment, FileSystemLoader, Template, select_autoescape
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ..ingest.receiver import authorization_parts
from ..settings import Settings, parse_allowed_hosts, reveal

SESSION_COOKIE = "sumwatch_session"
CSRF_COOKIE = "sumwatch_csrf"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SESSION_MAX_AGE_S = 7 * 86400
# OTLP ingest: the standard paths, and the one the Langfuse SDK exports to (the receiver checks the ingest token)
INGEST_PREFIXES = ("/v1/", "/api/public/otel/v1/")
# paths that never ask for the API token: ingest has its own, probes, static assets and the icon are public
PUBLIC_PREFIXES = (*INGEST_PREFIXES, "/healthz", "/readyz", "/static/", "/favicon.ico")
# what machines call from elsewhere: exporters name the collector's DNS name, probes the pod's address
MACHINE_PREFIXES = (*INGEST_PREFIXES, "/healthz", "/readyz")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
# RFC 3986's host[:port]: a bracketed IPv6 literal, or a name or IPv4 address (letters, digits, - _ and dots)
_AUTHORITY = re.compile(r"(?P<host>\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)(?::(?P<port>[0-9]{0,5}))?")
LOGIN_FAILURES_ALLOWED = 5  # per client address and window
LOGIN_FAILURE_WINDOW_S = 60.0
_MAX_TRACKED_CLIENTS = 10_000  # failed sign-in records kept; the oldest go first beyond this
# plotly.js adds <style> elements: 'unsafe-inline' for styles only; no inline script runs anywhere
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                           "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
                           "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# the cluster map draws scattergl through regl, which compiles its shaders with new Function: that page alone
# may evaluate code
WEBGL_PAGES = frozenset({"/map"})
WEBGL_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'")
PAGE_HEADERS = ((b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin"),
                (b"x-content-type-options", b"nosniff"))
LOGIN_PATHS = ("/login", "/logout")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_MAX_FORM_BYTES = 1024 * 1024  # a form whose csrf_token field the middleware reads before the route does

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def csrf_token(request: Request) -> str:
    """The CSRF token of this browser: its ``sumwatch_csrf`` cookie, or a new one that the middleware sets as
    that cookie on the response. A template embeds it in forms (``csrf_token`` field) or a meta tag."""
    state = request.scope.setdefault("state", {})
    token = state.get("csrf_token") or _valid_csrf(request.cookies.get(CSRF_COOKIE))
    if not token:
        token = secrets.token_urlsafe(24)
    state["csrf_token"] = token
    return token


def bearer_ok(request_headers: Any, token: str | None) -> bool:
    """Whether an ``Authorization: Bearer`` header opens the API (any Bearer header when no token is set)."""
    scheme, given = authorization_parts(request_headers.get("authorization", ""))
    return scheme == "bearer" and (token is None or hmac.compare_digest(given.encode(), token.encode()))


def session_value(token: str, now: float | None = None) -> str:
    """A session cookie value: when it was issued, a nonce and their HMAC under the API token (a new token
    ends every session)."""
    issued = str(int(time.time() if now is None else now))
    body = f"{issued}.{secrets.token_urlsafe(12)}"
    return f"{body}.{_sign(token, body)}"


def session_ok(value: str | None, token: str, now: float | None = None) -> bool:
    if not value or value.count(".") != 2:
        return False
    issued, nonce, sig = value.split(".")
    if not issued.isdigit() or not hmac.compare_digest(sig.encode(), _sign(token, f"{issued}.{nonce}").encode()):
        return False
    age = (time.time() if now is None else now) - int(issued)
    return 0 <= age <= SESSION_MAX_AGE_S


def _sign(token: str, body: str) -> str:
    return hmac.new(token.encode(), b"sumwatch-session:" + body.encode(), hashlib.sha256).hexdigest()


def _valid_csrf(value: str | None) -> str | None:
    return value if value and 16 <= len(value) <= 128 and value.isascii() and value.isprintable() else None


def same_origin(headers: Any, scheme: str) -> bool:
    """Whether ``Origin`` (or, without it, ``Referer``) names this server as the ``Host`` header does."""
    host = headers.get("host", "")
    source = headers.get("origin") or headers.get("referer")
    if not host or not source or source == "null":
        return False
    parts = urlsplit(source)
    return parts.scheme in ("http", "https") and parts.scheme == scheme and parts.netloc.lower() == host.lower()


def host_name(authority: str) -> str | None:
    """The host of a ``Host`` header or URL authority, lower case, without port or final dot; None unless the
    whole text is ``host[:port]`` (no user, no path, a port of digits up to 65535):
    ``host_name("[::1]:4318") == "[::1]"``, ``host_name("127.0.0.1:80.evil.test") is None``."""
    match = _AUTHORITY.fullmatch(authority.strip().lower())
    if match is None or (match["port"] and int(match["port"]) > 65535):
        return None
    host = match["host"]
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return None
    return host.rstrip(".")


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HostPolicy:
    """The host names this server answers to, against DNS rebinding.

        policy = HostPolicy.from_settings(settings)
        policy.allows("localhost:4318"), policy.checks("/v1/traces")

    Pages, ``/api`` and ``/static`` are checked always. ``/v1/`` (OTLP) and the probes are checked only when
    the server listens on loopback, where every legitimate client is on this machine and names it
    localhost or by address. Listening on another address, exporters send ``Host`` = whatever DNS name
    they were given for the collector and probes the pod's address, which no list here can foresee; the
    ingest token guards ``/v1/`` there, and the probes disclose nothing.
    """

    names: frozenset[str]
    any_host: bool = False
    loopback_bind: bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> HostPolicy:
        bind = settings.receiver.host.strip().lower()
        bound = f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind
        extra = parse_allowed_hosts(settings.receiver.allowed_hosts)
        names = {bound, *LOOPBACK_NAMES, *(h for h in extra if h != "*")}
        if settings.receiver.public_url:
            public = host_name(urlsplit(settings.receiver.public_url).netloc)
            names.update([public] if public else [])
        return cls(frozenset(names), any_host="*" in extra, loopback_bind=_is_loopback(bind))

    def checks(self, path: str) -> bool:
        """Whether requests to ``path`` must name an allowed host."""
        return not self.any_host and (self.loopback_bind or not path.startswith(MACHINE_PREFIXES))

    def allows(self, authority: str | None) -> bool:
        """Whether a ``Host`` header (or an Origin's authority) names this server; a request with no Host
        (HTTP/1.0) is not a browser's, and passes. Anything but ``host[:port]`` is refused."""
        if self.any_host or authority is None:
            return True
        name = host_name(authority)
        return name is not None and name in self.names


class SessionRevocations:
    """Session cookies ended by ``/logout``, remembered in memory until they would have expired anyway.

        revoked = SessionRevocations(); revoked.revoke(value); revoked.holds(value)   # True
    """

    def __init__(self) -> None:
        self._until: dict[str, float] = {}

    def revoke(self, value: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        self._until = {v: t for v, t in self._until.items() if t > now}  # expired cookies fail anyway
        self._until[value] = int(value.split(".")[0]) + SESSION_MAX_AGE_S

    def holds(self, value: str) -> bool:
        return value in self._until


class LoginLimiter:
    """Failed sign-ins per client address: after ``allowed`` failures in ``window_s`` seconds, the address
    waits until the oldest of them leaves the window.

        limiter = LoginLimiter(clock=fake_clock)
        limiter.failed("10.0.0.9"); limiter.retry_after("10.0.0.9")   # None, or seconds to wait
    """

    def __init__(self, allowed: int = LOGIN_FAILURES_ALLOWED, window_s: float = LOGIN_FAILURE_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.allowed, self.window_s, self.clock = allowed, window_s, clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, client: str) -> deque[float]:
        times = self._failures.get(client, deque())
        while times and times[0] <= self.clock() - self.window_s:
            times.popleft()
        return times

    def retry_after(self, client: str) -> int | None:
        """Seconds ``client`` must wait before its next attempt, or None when it may try now."""
        times = self._recent(client)
        if len(times) < self.allowed:
            return None
        return max(1, math.ceil(times[-self.allowed] + self.window_s - self.clock()))

    def failed(self, client: str) -> None:
        times = self._recent(client)
        times.append(self.clock())
        self._failures.pop(client, None)
        self._failures[client] = times  # most recent last, so the oldest are dropped first
        while len(self._failures) > _MAX_TRACKED_CLIENTS:
            del self._failures[next(iter(self._failures))]

    def succeeded(self, client: str) -> None:
        self._failures.pop(client, None)


class AuthMiddleware:
    """ASGI middleware: the API token on every route but the public ones, CSRF on state-changing requests,
    and the ``sumwatch_csrf`` cookie on HTML answers."""

    def __init__(self, app: ASGIApp, token: str | None, hosts: HostPolicy | None = None,
                 limiter: LoginLimiter | None = None) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts  # None: any Host (an app behind something that checks it)
        self.limiter = limiter or LoginLimiter()
        self.revoked = SessionRevocations()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        is_api = path == "/api" or path.startswith("/api/")
        checked, json_answer = self.hosts is not None and self.hosts.checks(path), is_api or path.startswith("/v1/")
        refusal = self._host_refusal(scope, json_answer) if checked else None
        if refusal is None and checked and (path.startswith(PUBLIC_PREFIXES) or path in LOGIN_PATHS):
            refusal = self._origin_refusal(scope, json_answer)  # no token to ask for first
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if path.startswith(PUBLIC_PREFIXES) or path in ("/healthz", "/readyz"):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        client = scope["client"][0] if scope.get("client") else "unknown"
        if path == "/login" and scope["method"] == "POST":
            wait = self.limiter.retry_after(client)
            if wait is not None:
                limited = login_page(request, f"Too many failed sign-ins from this address: try again in {wait} s.",
                                     429)
                limited.headers["Retry-After"] = str(wait)
                await limited(scope, receive, self._decorated(scope, request, send))  # a page's headers
                return
            send = self._counting_sign_ins(client, send)
        if path not in LOGIN_PATHS and not self._authenticated(request):
            if is_api:
                answer: Response = JSONResponse({"error": "unauthorized: send Authorization: Bearer "
                                                          "<SUMWATCH_API_TOKEN>"}, status_code=401,
                                                headers={"WWW-Authenticate": 'Bearer realm="sumwatch"'})
            else:
                target = path + (f"?{scope['query_string'].decode('latin-1')}" if scope.get("query_string") else "")
                answer = RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
            await answer(scope, receive, send)
            return
        refusal = self._origin_refusal(scope, json_answer) if checked and path not in LOGIN_PATHS else None
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if scope["method"] in UNSAFE_METHODS and not bearer_ok(request.headers, self.token):
            receive, reason = await self._csrf_problem(request, receive)
            if reason:
                forbidden: Response = JSONResponse({"error": f"forbidden: {reason}"}, status_code=403) if is_api \
                    else HTMLResponse(f"<p>Forbidden: {html.escape(reason)}</p>", status_code=403)
                await forbidden(scope, receive, send)
                return
        if path == "/logout" and scope["method"] == "POST" and self.token is not None:
            session = request.cookies.get(SESSION_COOKIE)
            if session_ok(session, self.token):  # only a real session: nobody fills the memory without the token
                self.revoked.revoke(session)  # type: ignore[arg-type]
        await self.app(scope, receive, self._decorated(scope, request, send))

    def _host_refusal(self, scope: Scope, json_answer: bool) -> Response | None:
        """400 when ``Host`` is not a name of this server."""
        assert self.hosts is not None
        host = Request(scope).headers.get("host")
        if self.hosts.allows(host):
            return None
        return _refusal(f"Host {host!r} is not a name of this server; add it to SUMWATCH_ALLOWED_HOSTS or set "
                        f"SUMWATCH_PUBLIC_URL", 400, json_answer)

    def _origin_refusal(self, scope: Scope, json_answer: bool) -> Response | None:
        """403 when an unsafe request's ``Origin`` is not this server (Bearer or not)."""
        assert self.hosts is not None
        origin = Request(scope).headers.get("origin")
        if scope["method"] not in UNSAFE_METHODS or origin is None:
            return None
        parts = urlsplit(origin)
        if parts.scheme in ("http", "https") and parts.netloc and self.hosts.allows(parts.netloc):
            return None
        return _refusal(f"forbidden: Origin {origin!r} is not this server", 403, json_answer)

    def _counting_sign_ins(self, client: str, send: Send) -> Send:
        """``send``, recording a refused sign-in (401) or a successful one (a session cookie) for ``client``."""
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                if message["status"] == 401:
                    self.limiter.failed(client)
                elif any(k.lower() == b"set-cookie" and v.startswith(SESSION_COOKIE.encode() + b"=")
                         for k, v in message.get("headers", [])):
                    self.limiter.succeeded(client)
            await send(message)

        return sending

    def _authenticated(self, request: Request) -> bool:
        if self.token is None:
            return True
        if bearer_ok(request.headers, self.token):
            return True
        session = request.cookies.get(SESSION_COOKIE)
        return session_ok(session, self.token) and not self.revoked.holds(session)  # type: ignore[arg-type]

    async def _csrf_problem(self, request: Request, receive: Receive) -> tuple[Receive, str | None]:
        """(the receive to pass on, the reason a browser request fails the CSRF check or None)."""
        if not same_origin(request.headers, request.url.scheme):
            return receive, "the request does not come from this site (Origin/Referer); send a Bearer token"
        expected = _valid_csrf(request.cookies.get(CSRF_COOKIE))
        given = request.headers.get(CSRF_HEADER)
        if given is None and _is_form(request.headers.get("content-type", "")):
            body, receive = await _buffer_body(receive)
            if body is None:
                return receive, "form too large"
            fields = parse_qs(body.decode("latin-1")).get(CSRF_FIELD)
            given = fields[0] if fields else None
        if not expected or not given or not hmac.compare_digest(given.encode(), expected.encode()):
            return receive, f"missing or wrong CSRF token ({CSRF_HEADER} header or {CSRF_FIELD} field)"
        return receive, None

    def _decorated(self, scope: Scope, request: Request, send: Send) -> Send:
        """``send``, adding the security headers (all of them on pages, nosniff on the rest) and the
        ``sumwatch_csrf`` cookie on pages and wherever a route asked for the token."""
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                is_page = content_type.startswith(b"text/html")
                present = {k.lower() for k, _ in headers}
                if is_page and b"content-security-policy" not in present:
                    policy = WEBGL_POLICY if scope["path"] in WEBGL_PAGES else CONTENT_SECURITY_POLICY
                    headers.append((b"content-security-policy", policy.encode()))
                for name, header in PAGE_HEADERS if is_page else PAGE_HEADERS[-1:]:
                    if name not in present:
                        headers.append((name, header))
                state = scope.get("state", {})
                if is_page or "csrf_token" in state:
                    value = state.get("csrf_token") or csrf_token(request)
                    if value != request.cookies.get(CSRF_COOKIE):
                        headers.append((b"set-cookie", _cookie(CSRF_COOKIE, value, http_only=False).encode()))
            await send(message)

        return sending


def _refusal(reason: str, status: int, json_answer: bool) -> Response:
    if json_answer:
        return JSONResponse({"error": reason}, status_code=status)
    return PlainTextResponse(reason, status_code=status)


async def form_fields(request: Request) -> dict[str, str]:
    """The fields of a url-encoded form body (the first value of each), without python-multipart."""
    if not _is_form(request.headers.get("content-type", "")):
        return {}
    body = await request.body()
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}


def _is_form(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() == "application/x-www-form-urlencoded"


async def _buffer_body(receive: Receive) -> tuple[bytes | None, Receive]:
    """Read the whole body (up to a limit) and return a receive that replays it to the route."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
        if size > _MAX_FORM_BYTES:
            return None, receive
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _cookie(name: str, value: str, *, http_only: bool, max_age: int | None = None) -> str:
    parts = [f"{name}={value}", "Path=/", "SameSite=Strict"]
    if http_only:
        parts.append("HttpOnly")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return "; ".join(parts)


def _safe_next(target: str | None) -> str:
    # only a path on this server: never //host or a scheme, which would send the browser elsewhere; a browser drops
    # tabs and line breaks from a URL and reads \\ as /, so "/\t/evil.example" would be //evil.example to it
    if (not target or not target.startswith("/") or target.startswith("//") or "\\" in target
            or any(c.isspace() or not c.isprintable() for c in target)):
        return "/"
    return target


# the dashboard's templates and assets, by path: the sign-in page is one of its pages (base template, stylesheet,
# icon) without this module importing the dashboard, which imports it
_TEMPLATES = Path(__file__).parent / "dashboard" / "templates"
DASHBOARD_STATIC = "/static/dashboard"
FAVICON = "favicon.svg"


@functools.cache
def _login_template() -> Template:
    env = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    # no navigation before signing in: every link would come back to this form
    env.globals.update(csrf_token=csrf_token, nav=(), static=DASHBOARD_STATIC)
    return env.get_template("login.html")


def login_page(request: Request, message: str = "", status: int = 200, target: str | None = None) -> HTMLResponse:
    """The sign-in form, with ``message`` (text) above it: a wrong token, or the sign-in limit. ``target`` is the
    page asked for (a refused POST's form field; else the ``next`` query value), kept for the next attempt when
    it is a path on this server."""
    target = _safe_next(request.query_params.get("next") if target is None else target)
    body = _login_template().render(request=request, path="/login", message=message, next=target)
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def auth_middleware(settings: Settings) -> Middleware:
    """The middleware ``sumwatch up`` puts in front of every route: the token, CSRF, the Host allow-list, the
    security headers, session revocation and the sign-in limit."""
    return Middleware(AuthMiddleware, token=reveal(settings.receiver.api_token) or None,
                      hosts=HostPolicy.from_settings(settings))


def login_routes(settings: Settings) -> list[Route]:
    """``GET /login`` (the form), ``POST /login`` (checks the token, sets the session), ``POST /logout``."""
    token = reveal(settings.receiver.api_token) or None

    async def login(request: Request) -> Response:
        if request.method == "GET":
            if token is None:
                return RedirectResponse(_safe_next(request.query_params.get("next")), status_code=303)
            return login_page(request)
        form = await form_fields(request)
        target = _safe_next(form.get("next") or "/")
        given = form.get("token", "")
        if token is None:
            return RedirectResponse(target, status_code=303)
        if not hmac.compare_digest(given.encode(), token.encode()):  # the page asked for stays asked for
            return login_page(request, "That is not the API token.", 401, target=target)
        answer = RedirectResponse(target, status_code=303)
        answer.headers.append("set-cookie", _cookie(SESSION_COOKIE, session_value(token), http_only=True,
                                                    max_age=SESSION_MAX_AGE_S))
        return answer

    async def logout(request: Request) -> Response:
        answer = RedirectResponse("/login", status_code=303)
        answer.headers.append("set-cookie", _cookie(SESSION_COOKIE, "", http_only=True, max_age=0))
        return answer

    return [Route("/login", login, methods=["GET", "POST"]), Route("/logout", logout, methods=["POST"])]
