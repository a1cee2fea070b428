"""The API token and CSRF checks, over real HTTP on loopback: Bearer, the /login session, redirects and 403s;
the Host allow-list against DNS rebinding, security headers, logout revoking the session, the sign-in limit."""

import html
import re
from urllib.parse import quote

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from sumwatch.monitor.views.auth import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AuthMiddleware,
    HostPolicy,
    LoginLimiter,
    csrf_token,
    form_fields,
    login_routes,
    session_ok,
    session_value,
)

TOKEN = "s3cret-token"


def _app(settings, token, **guards):
    async def page(request: Request):
        return HTMLResponse(f'<form><input name="csrf_token" value="{csrf_token(request)}"></form>')

    async def change(request: Request):
        form = await form_fields(request)
        return JSONResponse({"changed": True, "note": form.get("note")})

    routes = [Route("/", page), Route("/api/things", change, methods=["GET", "POST"]),
              Route("/labels", change, methods=["POST"]),
              Route("/v1/traces", change, methods=["POST"]), Route("/healthz", change)]
    return Starlette(routes=routes + login_routes(settings.with_(api_token=token)),
                     middleware=[Middleware(AuthMiddleware, token=token, **guards)])


@pytest.fixture
def client(settings):
    return TestClient(_app(settings, TOKEN), base_url="http://sumwatch.test", follow_redirects=False)


def test_without_the_token_api_is_401_json_and_pages_redirect_to_login(client):
    answer = client.post("/api/things", headers={"authorization": "Bearer wrong"})
    assert answer.status_code == 401 and answer.json()["error"].startswith("unauthorized")
    page = client.get("/?x=1")
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2F%3Fx%3D1"
    assert client.get("/healthz").status_code == 200 and client.post("/v1/traces").status_code == 200


def test_a_bearer_token_opens_the_api_and_needs_no_csrf(client):
    answer = client.post("/api/things", headers={"authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200 and answer.json()["changed"] is True


def test_login_sets_an_http_only_strict_session_and_the_page_sets_the_csrf_cookie(client):
    form = client.get("/login?next=/")
    assert form.status_code == 200 and 'name="csrf_token"' in form.text
    csrf = client.cookies[CSRF_COOKIE]
    assert f"{CSRF_COOKIE}={csrf}" in form.headers["set-cookie"] and "HttpOnly" not in form.headers["set-cookie"]
    origin = {"origin": "http://sumwatch.test"}
    wrong = client.post("/login", data={"token": "nope", "csrf_token": csrf, "next": "/"}, headers=origin)
    assert wrong.status_code == 401 and "not the API token" in wrong.text and SESSION_COOKIE not in client.cookies
    ok = client.post("/login", data={"token": TOKEN, "csrf_token": csrf, "next": "//evil.example/"}, headers=origin)
    assert ok.status_code == 303 and ok.headers["location"] == "/"  # never off-site
    cookie = ok.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = client.get("/")
    assert page.status_code == 200 and csrf in page.text  # the same browser keeps its CSRF token

    # a state change from the browser: same origin and the CSRF token, as header or form field
    assert client.post("/api/things", headers={**origin, "X-CSRF-Token": csrf}).status_code == 200
    assert client.post("/labels", data={"csrf_token": csrf, "note": "kept"}, headers=origin).json() == \
        {"changed": True, "note": "kept"}  # the form body still reaches the route
    assert client.post("/api/things", headers=origin).status_code == 403
    assert client.post("/api/things", headers={**origin, "X-CSRF-Token": "x" * 32}).status_code == 403
    other = client.post("/api/things", headers={"origin": "http://evil.example", "X-CSRF-Token": csrf})
    assert other.status_code == 403 and "does not come from this site" in other.json()["error"]
    by_referer = {"referer": "http://sumwatch.test/issues", "X-CSRF-Token": csrf}
    assert client.post("/api/things", headers=by_referer).status_code == 200
    assert client.post("/labels", data={"csrf_token": csrf}, headers={"origin": "null"}).status_code == 403

    out = client.post("/logout", headers={**origin, "X-CSRF-Token": csrf})
    assert out.status_code == 303 and "Max-Age=0" in out.headers["set-cookie"]
    assert client.get("/").status_code == 303


def _next_field(page) -> str:
    return html.unescape(re.search(r'<input type="hidden" name="next" value="([^"]*)">', page.text).group(1))


def test_a_wrong_token_keeps_the_page_asked_for_and_only_a_path_on_this_server_is_followed(client):
    asked = "/issues?status=open&sort=trend"
    assert _next_field(client.get(f"/login?next={quote(asked, safe='')}")) == asked
    origin = {"origin": "http://sumwatch.test"}
    csrf = client.cookies[CSRF_COOKIE]
    wrong = client.post("/login", data={"token": "nope", "csrf_token": csrf, "next": asked}, headers=origin)
    assert wrong.status_code == 401 and "That is not the API token." in wrong.text
    assert _next_field(wrong) == asked  # the second try goes where the first was going
    ok = client.post("/login", data={"token": TOKEN, "csrf_token": csrf, "next": _next_field(wrong)}, headers=origin)
    assert ok.status_code == 303 and ok.headers["location"] == asked
    # a browser drops tabs and line breaks from a URL and reads a backslash as a slash: each of these is elsewhere
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example",
                      "/\n/evil.example", "javascript:alert(1)", "evil.example"):
        assert _next_field(client.get(f"/login?next={quote(elsewhere, safe='')}")) == "/", elsewhere
        answer = client.post("/login", data={"token": TOKEN, "csrf_token": csrf, "next": elsewhere}, headers=origin)
        assert answer.headers["location"] == "/", elsewhere


def test_with_no_token_reads_are_open_but_browser_writes_still_need_the_csrf_token(settings):
    client = TestClient(_app(settings, None), base_url="http://sumwatch.test", follow_redirects=False)
    assert client.get("/").status_code == 200
    csrf = client.cookies[CSRF_COOKIE]
    origin = {"origin": "http://sumwatch.test"}
    assert client.post("/api/things", headers=origin).status_code == 403
    assert client.post("/api/things", headers={**origin, "X-CSRF-Token": csrf}).status_code == 200
    assert client.post("/api/things", headers={"authorization": "Bearer anything"}).status_code == 200


def test_sessions_expire_and_a_new_token_ends_them():
    value = session_value(TOKEN, now=1_000_000)
    assert session_ok(value, TOKEN, now=1_000_000 + 3600)
    assert not session_ok(value, TOKEN, now=1_000_000 + 8 * 86400)
    assert not session_ok(value, "another-token", now=1_000_000)
    assert not session_ok(value[:-1] + ("0" if value[-1] != "0" else "1"), TOKEN, now=1_000_000)


def test_the_served_api_wants_the_api_token_not_the_ingest_token(served):
    server, _ = served
    assert httpx.get(server.endpoint + "/api/traces", timeout=10).status_code == 401
    opened = httpx.get(server.endpoint + "/api/traces", headers={"authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert opened.status_code == 200 and len(opened.json()) == 4
    login = httpx.get(server.endpoint + "/login", timeout=10)
    assert login.status_code == 200 and CSRF_COOKIE in login.headers["set-cookie"]


@pytest.mark.parametrize("value", ["short", "has a space in it", "tab\there-long-enough", "é" * 10])
def test_an_api_token_that_cannot_travel_in_a_header_is_refused_naming_its_variable(value):
    from sumwatch.monitor.settings import Settings, SettingsError

    with pytest.raises(SettingsError, match="^SUMWATCH_API_TOKEN must be 8 to 512 visible ASCII characters"):
        Settings.from_env(env={"SUMWATCH_API_TOKEN": value})
    assert Settings.from_env(env={"SUMWATCH_API_TOKEN": "x" * 8}).receiver.api_token.get_secret_value() == "x" * 8


def _hosts(settings, **changes):
    return HostPolicy.from_settings(settings.with_(**changes))


def test_a_host_name_that_is_not_this_server_gets_400_so_dns_rebinding_reads_nothing(settings):
    """A page of rebound.example whose name now resolves to 127.0.0.1, with no API token set."""
    app = _app(settings, None, hosts=_hosts(settings, host="127.0.0.1"))
    rebound = TestClient(app, base_url="http://rebound.example:4318", follow_redirects=False)
    api = rebound.get("/api/things")
    assert api.status_code == 400 and api.json() == {
        "error": "Host 'rebound.example:4318' is not a name of this server; add it to SUMWATCH_ALLOWED_HOSTS "
                 "or set SUMWATCH_PUBLIC_URL"}
    page = rebound.get("/")
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/plain")
    assert "rebound.example" in page.text and "\n" not in page.text.strip()
    assert rebound.post("/api/things", headers={"authorization": "Bearer x"}).status_code == 400
    # bound to loopback, every client is on this machine: OTLP and the probes are checked too
    assert rebound.post("/v1/traces").status_code == 400 and rebound.get("/healthz").status_code == 400
    for name in ("127.0.0.1:4318", "localhost:4318", "LOCALHOST.", "[::1]:4318"):
        assert TestClient(app, base_url=f"http://{name}").get("/api/things").status_code == 200, name


def test_the_public_url_and_allowed_hosts_join_the_list_and_a_public_bind_leaves_otlp_and_probes_open(settings):
    hosts = _hosts(settings, host="0.0.0.0", public_url="https://dash.example.com/sumwatch",
                   allowed_hosts="10.0.0.5, Other.Example")
    app = _app(settings, None, hosts=hosts)
    for name in ("dash.example.com", "10.0.0.5:4318", "other.example", "localhost:4318"):
        assert TestClient(app, base_url=f"http://{name}").get("/api/things").status_code == 200, name
    collector = TestClient(app, base_url="http://otel-collector.monitoring.svc:4318")
    assert collector.get("/api/things").status_code == 400
    # exporters name the collector as their DNS knows it, and probes the pod's address
    assert collector.post("/v1/traces").status_code == 200 and collector.get("/healthz").status_code == 200
    anything = _app(settings, None, hosts=_hosts(settings, allowed_hosts="*"))
    assert TestClient(anything, base_url="http://whatever.example").get("/api/things").status_code == 200


def test_an_unsafe_request_from_another_origin_gets_403_even_with_a_bearer_token(settings):
    client = TestClient(_app(settings, TOKEN, hosts=_hosts(settings)), base_url="http://127.0.0.1:4318")
    bearer = {"authorization": f"Bearer {TOKEN}"}
    for origin in ("http://rebound.example:4318", "null", "file://"):
        refused = client.post("/api/things", headers={**bearer, "origin": origin})
        assert refused.status_code == 403 and refused.json()["error"].startswith("forbidden: Origin"), origin
    assert client.post("/api/things", headers={**bearer, "origin": "http://localhost:4318"}).status_code == 200
    assert client.post("/api/things", headers=bearer).status_code == 200  # the CLI sends no Origin
    assert client.get("/api/things", headers={**bearer, "origin": "http://rebound.example"}).status_code == 200
    foreign = {"origin": "http://rebound.example:4318"}
    assert client.post("/api/things", headers=foreign).status_code == 401  # the token is asked for first
    assert client.post("/v1/traces", headers=foreign).status_code == 403  # loopback bind: OTLP from pages too
    assert client.post("/login", headers=foreign).status_code == 403


def test_pages_carry_the_security_headers_and_json_nosniff(client):
    page = client.get("/login")
    csp = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self';" in csp  # no inline or evaluated script
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"
    api = client.post("/api/things", headers={"authorization": f"Bearer {TOKEN}"})
    assert api.headers["x-content-type-options"] == "nosniff" and "content-security-policy" not in api.headers


def _sign_in(client, token):
    form = client.get("/login")
    assert form.status_code == 200
    return client.post("/login", data={"token": token, "csrf_token": client.cookies[CSRF_COOKIE], "next": "/"},
                       headers={"origin": str(client.base_url)})


def test_a_session_cookie_kept_after_logout_is_refused(client):
    assert _sign_in(client, TOKEN).status_code == 303
    kept = client.cookies[SESSION_COOKIE]
    assert client.get("/").status_code == 200
    csrf = client.cookies[CSRF_COOKIE]
    out = client.post("/logout", headers={"origin": "http://sumwatch.test", "X-CSRF-Token": csrf})
    assert out.status_code == 303
    client.cookies.set(SESSION_COOKIE, kept)  # a client that ignores the cookie's removal
    assert client.get("/").status_code == 303
    assert client.post("/api/things", headers={"origin": "http://sumwatch.test", "X-CSRF-Token": csrf}) \
        .status_code == 401
    assert _sign_in(client, TOKEN).status_code == 303 and client.get("/").status_code == 200  # a new session works


def test_failed_sign_ins_are_limited_per_client_address_with_retry_after(settings):
    now = [1000.0]
    limiter = LoginLimiter(clock=lambda: now[0])
    app = _app(settings, TOKEN, limiter=limiter)
    client = TestClient(app, base_url="http://sumwatch.test", follow_redirects=False, client=("10.0.0.9", 5000))
    for _ in range(5):
        now[0] += 1
        assert _sign_in(client, "wrong-token").status_code == 401
    limited = _sign_in(client, TOKEN)  # even the right token waits: guessing must not go on
    assert limited.status_code == 429 and limited.headers["retry-after"] == "56"  # the 1st failure was at 1001
    assert "try again in 56 s" in limited.text and SESSION_COOKIE not in client.cookies
    other = TestClient(app, base_url="http://sumwatch.test", follow_redirects=False, client=("10.0.0.7", 5000))
    assert _sign_in(other, TOKEN).status_code == 303  # another address is not held back
    now[0] += 56
    assert _sign_in(client, "wrong-token").status_code == 401  # one failure left the window: one more try
    assert _sign_in(client, TOKEN).status_code == 429
    now[0] += 60
    assert _sign_in(client, TOKEN).status_code == 303
    for _ in range(5):  # a success starts the count again
        assert _sign_in(client, "wrong-token").status_code == 401
    assert _sign_in(client, "wrong-token").status_code == 429


def test_the_served_server_checks_the_host_name(served):
    server, _ = served
    bearer = {"authorization": f"Bearer {TOKEN}"}
    rebound = httpx.get(server.endpoint + "/api/traces", headers={**bearer, "host": f"rebound.example:{server.port}"},
                        timeout=10)
    assert rebound.status_code == 400 and "rebound.example" in rebound.json()["error"]
    assert httpx.get(f"http://localhost:{server.port}/api/traces", headers=bearer, timeout=10).status_code == 200


@pytest.mark.parametrize("env, message", [
    ({"SUMWATCH_PUBLIC_URL": "dash.example.com"}, "SUMWATCH_PUBLIC_URL must be an http(s) URL naming a host, "
                                                  "like https://sumwatch.example.com, got 'dash.example.com'"),
    ({"SUMWATCH_PUBLIC_URL": "https://me:pw@dash.example.com"}, "got 'https://me:***@dash.example.com'"),
    ({"SUMWATCH_PUBLIC_URL": "https://dash.example.com:99999"}, "SUMWATCH_PUBLIC_URL must be an http(s) URL"),
    ({"SUMWATCH_ALLOWED_HOSTS": "ok.example, dash.example.com:8443"},
     "SUMWATCH_ALLOWED_HOSTS entry 'dash.example.com:8443' must be a host name or address without a port"),
    ({"SUMWATCH_ALLOWED_HOSTS": "https://dash.example.com"}, "entry 'https://dash.example.com' must be"),
])
def test_a_public_url_or_allowed_host_that_cannot_name_this_server_is_one_line_naming_its_variable(env, message):
    from sumwatch.monitor.settings import Settings, SettingsError

    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env=env)
    assert message in str(refused.value) and "\n" not in str(refused.value)
