"""The API token and CSRF checks, over real HTTP on loopback: Bearer, the /login session, redirects and 403s."""

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
    csrf_token,
    form_fields,
    login_routes,
    session_ok,
    session_value,
)

TOKEN = "s3cret-token"


def _app(settings, token):
    async def page(request: Request):
        return HTMLResponse(f'<form><input name="csrf_token" value="{csrf_token(request)}"></form>')

    async def change(request: Request):
        form = await form_fields(request)
        return JSONResponse({"changed": True, "note": form.get("note")})

    routes = [Route("/", page), Route("/api/things", change, methods=["POST"]), Route("/labels", change,
                                                                                        methods=["POST"]),
              Route("/v1/traces", change, methods=["POST"]), Route("/healthz", change)]
    return Starlette(routes=routes + login_routes(settings.with_(api_token=token)),
                     middleware=[Middleware(AuthMiddleware, token=token)])


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
    assert Settings.from_env(env={"SUMWATCH_API_TOKEN": "x" * 8}).api_token == "x" * 8
