"""Who may use the API and the dashboard, and protection of state-changing requests against other sites.

    app.router.routes.extend(login_routes(settings))            # GET/POST /login, /logout
    app.add_middleware(AuthMiddleware, token=settings.api_token)  # every route but /v1, /healthz, /static
    <input type="hidden" name="csrf_token" value="{{ csrf_token(request) }}">   # in a template

One token (``SUMWATCH_API_TOKEN``) opens everything: as ``Authorization: Bearer <token>``, or as the
``sumwatch_session`` cookie the ``/login`` form sets (HttpOnly, SameSite=Strict). Without a token the API and
dashboard are open. Unauthenticated, ``/api/...`` answers 401 JSON and a page redirects to ``/login``.

CSRF: a POST, PUT, PATCH or DELETE (outside /v1) carries a Bearer header, or comes from the same origin
(``Origin``, else ``Referer``) with an ``X-CSRF-Token`` header or ``csrf_token`` form field equal to the
``sumwatch_csrf`` cookie (double submit; that cookie is readable by the page and set on every HTML answer).
Both checks hold with no token configured too. A failure answers 403.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..settings import Settings

SESSION_COOKIE = "sumwatch_session"
CSRF_COOKIE = "sumwatch_csrf"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SESSION_MAX_AGE_S = 7 * 86400
# paths that never ask for the API token: ingest has its own, probes and static assets are public
PUBLIC_PREFIXES = ("/v1/", "/healthz", "/readyz", "/static/")
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
    given = request_headers.get("authorization", "")
    if not given.lower().startswith("bearer "):
        return False
    return token is None or hmac.compare_digest(given[7:].strip().encode(), token.encode())


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


class AuthMiddleware:
    """ASGI middleware: the API token on every route but the public ones, CSRF on state-changing requests,
    and the ``sumwatch_csrf`` cookie on HTML answers."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        path = scope["path"]
        if path.startswith(PUBLIC_PREFIXES) or path in ("/healthz", "/readyz"):
            await self.app(scope, receive, send)
            return
        is_api = path == "/api" or path.startswith("/api/")
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
        if scope["method"] in UNSAFE_METHODS and not bearer_ok(request.headers, self.token):
            receive, reason = await self._csrf_problem(request, receive)
            if reason:
                forbidden: Response = JSONResponse({"error": f"forbidden: {reason}"}, status_code=403) if is_api \
                    else HTMLResponse(f"<p>Forbidden: {html.escape(reason)}</p>", status_code=403)
                await forbidden(scope, receive, send)
                return
        await self.app(scope, receive, self._with_csrf_cookie(scope, request, send))

    def _authenticated(self, request: Request) -> bool:
        if self.token is None:
            return True
        return bearer_ok(request.headers, self.token) or session_ok(request.cookies.get(SESSION_COOKIE), self.token)

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

    def _with_csrf_cookie(self, scope: Scope, request: Request, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                state = scope.get("state", {})
                if content_type.startswith(b"text/html") or "csrf_token" in state:
                    value = state.get("csrf_token") or csrf_token(request)
                    if value != request.cookies.get(CSRF_COOKIE):
                        headers.append((b"set-cookie", _cookie(CSRF_COOKIE, value, http_only=False).encode()))
            await send(message)

        return sending


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
    # only a path on this server: never //host or a scheme, which would send the browser elsewhere
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


_LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sumwatch: sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}}
input{{width:100%;padding:.5rem;margin:.5rem 0;box-sizing:border-box}}.error{{color:#b00020}}</style></head>
<body><h1>sumwatch</h1>{message}
<form method="post" action="/login">
<input type="hidden" name="csrf_token" value="{csrf}">
<input type="hidden" name="next" value="{next}">
<label for="token">API token (SUMWATCH_API_TOKEN)</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
<button type="submit">Sign in</button></form></body></html>
"""


def auth_middleware(settings: Settings) -> Middleware:
    """The middleware ``sumwatch up`` puts in front of every route."""
    return Middleware(AuthMiddleware, token=settings.api_token)


def login_routes(settings: Settings) -> list[Route]:
    """``GET /login`` (the form), ``POST /login`` (checks the token, sets the session), ``POST /logout``."""
    token = settings.api_token

    def page(request: Request, message: str = "", status: int = 200) -> HTMLResponse:
        target = _safe_next(request.query_params.get("next"))
        return HTMLResponse(_LOGIN_PAGE.format(message=message, csrf=html.escape(csrf_token(request)),
                                               next=html.escape(target)), status_code=status)

    async def login(request: Request) -> Response:
        if request.method == "GET":
            if token is None:
                return RedirectResponse(_safe_next(request.query_params.get("next")), status_code=303)
            return page(request)
        form = await form_fields(request)
        target = _safe_next(form.get("next") or "/")
        given = form.get("token", "")
        if token is None:
            return RedirectResponse(target, status_code=303)
        if not hmac.compare_digest(given.encode(), token.encode()):
            return page(request, '<p class="error">That is not the API token.</p>', 401)
        answer = RedirectResponse(target, status_code=303)
        answer.headers.append("set-cookie", _cookie(SESSION_COOKIE, session_value(token), http_only=True,
                                                    max_age=SESSION_MAX_AGE_S))
        return answer

    async def logout(request: Request) -> Response:
        answer = RedirectResponse("/login", status_code=303)
        answer.headers.append("set-cookie", _cookie(SESSION_COOKIE, "", http_only=True, max_age=0))
        return answer

    return [Route("/login", login, methods=["GET", "POST"]), Route("/logout", logout, methods=["POST"])]
