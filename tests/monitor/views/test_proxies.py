"""Forwarded headers believed from trusted proxies only, the sign-in limit on the real client, the strict Host
check and case-insensitive Bearer, on the served server over real HTTP (and the parser case by case)."""

import httpx
import pytest
from served import serve

from sumwatch.monitor.views.auth import CSRF_COOKIE, host_name
from sumwatch.monitor.views.proxies import TrustedProxies, node_address

TOKEN = "s3cret-token"
INGEST = "ingest-s3cret"


def _resolve(trusted, peer, **headers):
    return _proxies(trusted).resolve(peer, [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()])


def _proxies(text):
    from sumwatch.monitor.settings import parse_trusted_proxies

    return TrustedProxies(parse_trusted_proxies(text))


def test_no_proxy_is_trusted_by_default_so_a_client_cannot_name_another():
    assert _resolve("", "127.0.0.1", x_forwarded_for="203.0.113.9") == ("127.0.0.1", None)
    assert _resolve("10.0.0.0/8", "127.0.0.1", x_forwarded_for="203.0.113.9", forwarded="for=1.2.3.4") \
        == ("127.0.0.1", None)


def test_the_client_is_the_right_most_address_that_is_not_a_trusted_proxy():
    trusted = "10.0.0.0/8, 127.0.0.1"
    # what the client wrote itself (6.6.6.6) is left of what the proxies appended
    assert _resolve(trusted, "127.0.0.1", x_forwarded_for="6.6.6.6, 203.0.113.7, 10.1.2.3") == ("203.0.113.7", None)
    assert _resolve(trusted, "10.0.0.2", x_forwarded_for="10.0.0.5, 10.0.0.4") == ("10.0.0.5", None)  # all proxies
    assert _resolve(trusted, "127.0.0.1", x_forwarded_for="203.0.113.7:5123") == ("203.0.113.7", None)
    assert _resolve(trusted, "::ffff:127.0.0.1", x_forwarded_for="2001:DB8::1") == ("2001:db8::1", None)
    assert _resolve(trusted, "127.0.0.1", x_forwarded_for="") == ("127.0.0.1", None)  # nothing named: the peer
    assert _resolve(trusted, "127.0.0.1", x_forwarded_for="203.0.113.7", x_forwarded_proto="https") \
        == ("203.0.113.7", "https")


def test_the_standard_forwarded_header_counts_when_no_x_forwarded_for_came():
    trusted = "10.0.0.0/8, ::1"
    forwarded = 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.3;proto=http'
    assert _resolve(trusted, "::1", forwarded=forwarded) == ("2001:db8:cafe::17", "https")
    assert _resolve(trusted, "10.0.0.1", forwarded="for=unknown") == ("unknown", None)
    assert _resolve(trusted, "10.0.0.1", forwarded="proto=https;for=192.0.2.60") == ("192.0.2.60", "https")
    assert node_address('"[2001:DB8::1]:4711"') == "2001:db8::1"


@pytest.mark.parametrize("value, message", [
    ("10.0.0.0/33", "SUMWATCH_TRUSTED_PROXIES entry '10.0.0.0/33' must be an IP address or network"),
    ("127.0.0.1, proxy.internal", "entry 'proxy.internal' must be an IP address or network, like 127.0.0.1"),
])
def test_a_trusted_proxy_that_is_no_address_is_one_line_naming_its_variable(value, message):
    from sumwatch.monitor.settings import Settings, SettingsError

    with pytest.raises(SettingsError) as refused:
        Settings.from_env(env={"SUMWATCH_TRUSTED_PROXIES": value})
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("authority, name", [
    ("localhost:4318", "localhost"), ("LOCALHOST.", "localhost"), ("[::1]:4318", "[::1]"), ("127.0.0.1", "127.0.0.1"),
    ("127.0.0.1:4318.attacker.test", None), ("attacker.test@localhost", None), ("localhost:99999", None),
    ("localhost/x", None), ("[::1", None), ("[nope]:80", None), ("", None), ("local host", None),
])
def test_a_host_is_host_and_port_and_nothing_else(authority, name):
    assert host_name(authority) == name


@pytest.fixture
def server_with(store, settings):
    """Serve the app with these settings changes (the API token always); stopped afterwards."""
    started = []

    def start(**changes):
        started.append(serve(settings.with_(api_token=TOKEN, **changes), store))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def _sign_in(endpoint, token, **headers):
    with httpx.Client(base_url=endpoint, headers=headers, timeout=30) as client:
        assert client.get("/login").status_code == 200
        return client.post("/login", data={"token": token, "csrf_token": client.cookies[CSRF_COOKIE], "next": "/"},
                           headers={"origin": endpoint}).status_code


@pytest.mark.integration
def test_without_trusted_proxies_a_forged_x_forwarded_for_does_not_get_more_guesses(server_with):
    server = server_with()
    guesses = [_sign_in(server.endpoint, "wrong", **{"x-forwarded-for": f"198.51.100.{i}"}) for i in range(6)]
    assert guesses == [401] * 5 + [429]
    assert _sign_in(server.endpoint, TOKEN, forwarded="for=198.51.100.77") == 429  # the standard header neither
    with httpx.Client(base_url=server.endpoint, timeout=30) as client:  # the wait, on the sign-in page itself
        client.get("/login")
        limited = client.post("/login", data={"token": TOKEN, "csrf_token": client.cookies[CSRF_COOKIE]},
                              headers={"origin": server.endpoint})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    assert "Too many failed sign-ins from this address: try again in" in limited.text and 'name="token"' in limited.text
    assert "frame-ancestors 'none'" in limited.headers["content-security-policy"]


@pytest.mark.integration
def test_behind_a_trusted_proxy_the_limit_keys_on_the_client_it_names(server_with):
    server = server_with(trusted_proxies="127.0.0.1")
    guesser = {"x-forwarded-for": "6.6.6.6, 198.51.100.1"}  # a forged first hop, then what the proxy appended
    assert [_sign_in(server.endpoint, "wrong", **guesser) for _ in range(6)] == [401] * 5 + [429]
    assert _sign_in(server.endpoint, "wrong", **{"x-forwarded-for": "7.7.7.7, 198.51.100.1"}) == 429
    # another user behind the same proxy signs in
    assert _sign_in(server.endpoint, TOKEN, **{"x-forwarded-for": "198.51.100.2"}) == 303
    assert _sign_in(server.endpoint, TOKEN, forwarded='for="198.51.100.3:4711"') == 303


@pytest.mark.integration
def test_the_served_host_check_refuses_what_is_not_host_and_port(server_with):
    server = server_with()
    bearer = {"authorization": f"Bearer {TOKEN}"}
    for host in (f"127.0.0.1:{server.port}.attacker.test", "attacker.test@localhost", f"localhost:{server.port}/x"):
        answer = httpx.get(server.endpoint + "/api/status", headers={**bearer, "host": host}, timeout=30)
        assert answer.status_code == 400 and "is not a name of this server" in answer.json()["error"], host
    assert httpx.get(server.endpoint + "/api/status", headers={**bearer, "host": f"localhost:{server.port}"},
                     timeout=30).status_code == 200


@pytest.mark.integration
@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_bearer_is_case_insensitive_on_the_api_and_on_ingest(server_with, scheme):
    server = server_with(ingest_token=INGEST)
    api = httpx.get(server.endpoint + "/api/status", headers={"authorization": f"{scheme} {TOKEN}"}, timeout=30)
    assert api.status_code == 200
    for path in ("/v1/traces", "/api/public/otel/v1/traces"):
        spans = httpx.post(server.endpoint + path, json={"resourceSpans": []}, timeout=30,
                           headers={"authorization": f"{scheme} {INGEST}"})
        assert spans.status_code == 200, (path, spans.text)
    wrong = httpx.post(server.endpoint + "/v1/traces", json={"resourceSpans": []}, timeout=30,
                       headers={"authorization": f"{scheme} nope"})
    assert wrong.status_code == 401
