"""plotly.js over HTTP: pages load it from a URL per plotly version that browsers keep for good, with a strong
ETag and gzip for a client that takes it; the unversioned URL still answers, revalidated."""

import re
from pathlib import Path

import httpx
import plotly
import pytest
from starlette.requests import Request

from sumwatch.monitor.views.dashboard import routes
from sumwatch.monitor.views.dashboard.routes import (
    GZIP_PAGE_BYTES,
    IMMUTABLE,
    PLOTLY_PATH,
    accepts_gzip,
    plotly_js,
    plotly_url,
)


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.endpoint, timeout=30) as c:
        yield c


def test_the_map_page_loads_plotly_from_its_versioned_url_once(client):
    page = client.get("/map").text
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert scripts.count(plotly_url()) == 1 and plotly.__version__ in plotly_url()
    assert page.count('id="cluster-map-data"') == 1  # the map's points are in the page once


def test_plotly_is_immutable_at_its_versioned_url_with_an_etag_and_gzip(client):
    shipped = Path(plotly_js()).read_bytes()
    raw = client.get(plotly_url(), headers={"accept-encoding": "identity"})
    assert raw.status_code == 200 and raw.content == shipped and "content-encoding" not in raw.headers
    assert raw.headers["cache-control"] == IMMUTABLE and raw.headers["content-type"].startswith("text/javascript")
    etag = raw.headers["etag"]
    assert re.fullmatch(r'"[0-9a-f]{20}"', etag)

    zipped = client.get(plotly_url(), headers={"accept-encoding": "gzip, deflate"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["vary"] == "Accept-Encoding"
    assert zipped.content == shipped  # httpx inflates it
    assert int(zipped.headers["content-length"]) < len(shipped) / 2

    again = client.get(plotly_url(), headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag

    old = client.get(PLOTLY_PATH, headers={"accept-encoding": "identity"})
    assert old.status_code == 200 and old.content == shipped and old.headers["cache-control"] == "no-cache"
    assert old.headers["etag"] == etag


def test_a_large_page_goes_gzipped_to_a_client_that_takes_it(client, monkeypatch):
    plain = client.get("/map", headers={"accept-encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    small = client.get("/map", headers={"accept-encoding": "gzip"})  # this data's map is under the threshold
    assert len(plain.content) < GZIP_PAGE_BYTES and "content-encoding" not in small.headers
    monkeypatch.setattr(routes, "GZIP_PAGE_BYTES", 1024)  # the server runs in this process: pages above 1 KB
    zipped = client.get("/map", headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.headers["vary"] == "Accept-Encoding"
    assert zipped.text == plain.text and int(zipped.headers["content-length"]) < len(plain.content) / 2
    refused = client.get("/map", headers={"accept-encoding": "gzip;q=0, identity"})
    assert "content-encoding" not in refused.headers and refused.text == plain.text


@pytest.mark.parametrize("header, takes", [
    ("gzip, deflate, br", True), ("GZIP", True), ("*", True), ("deflate, gzip;q=0.5", True),
    ("gzip;q=0", False), ("gzip; q=0.000", False), ("identity", False), ("", False), ("x-gzip2", False),
])
def test_accept_encoding_is_read_with_its_quality(header, takes):
    request = Request({"type": "http", "headers": [(b"accept-encoding", header.encode())]})
    assert accepts_gzip(request) is takes
