"""What a page says once it says it everywhere: the labelling queue's waiting count (one element, which a keyboard
label updates from the server's count), a span's attribute count in the trace tree and in its panel, the overview's
time axis ending at the data or now (never later), one icon and one stylesheet on every page, the sign-in form and
the calibration table included. Rendered by the app in this process."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timedelta, timezone

import pytest
from seeded import wire_key
from starlette.testclient import TestClient

from sumwatch.monitor.contract.calibration import NEEDS_LABEL, CorpusItem
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.views.dashboard.charts import pass_rate_figure, volume_figure

TOKEN = "page-token-1"


def _client(settings, store, **changes) -> TestClient:
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app

    return TestClient(create_app(Runtime.build(settings.with_(**changes), store)), base_url="http://localhost",
                      follow_redirects=False)


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _heading(page: str) -> str:
    return _text(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1))


def _figure(page: str, chart: str) -> dict:
    return json.loads(re.search(rf'<script type="application/json" id="{chart}-data">(.*?)</script>', page, re.S)
                      .group(1))


def _waiting(store, n: int) -> None:
    save_items(store, [CorpusItem(rubric="factuality", source=f"Revenue rose {i}% in May.",
                                  summary=f"Revenue fell {i}%.", status=NEEDS_LABEL, proposed_verdict="polarity_wrong")
                       for i in range(n)])


def test_the_labelling_header_says_its_waiting_count_once_and_a_label_answers_the_new_count(store, settings):
    _waiting(store, 3)
    # an item of a rubric with no definition here is not offered, so not counted
    save_items(store, [CorpusItem(rubric="tonality", source="Sales rose.", summary="Sales fell.", status=NEEDS_LABEL)])
    client = _client(settings, store)
    page = client.get("/labelling").text
    assert _heading(page) == "Labelling queue 3 waiting"
    assert page.count('id="queue-count"') == 1
    token = client.cookies["sumwatch_csrf"]
    item = re.search(r'data-item="([0-9a-z]+)" data-pass', page).group(1)
    labelled = client.post(f"/labelling/{item}", data={"verdict": "correct"},
                           headers={"origin": "http://localhost", "x-csrf-token": token, "accept": "application/json"})
    # the page's script writes this count into the one element: the server's, not the page's arithmetic
    assert labelled.status_code == 200 and labelled.json()["waiting"] == 2
    assert _heading(client.get("/labelling").text) == "Labelling queue 2 waiting"
    # another view names its own count beside the waiting one, each once
    assert _heading(client.get("/labelling?show=labelled").text) == "Labelling queue 2 waiting · 1 labelled"
    again = client.post(f"/labelling/{item}", data={"verdict": "polarity_wrong"},
                        headers={"origin": "http://localhost", "x-csrf-token": token, "accept": "application/json"})
    assert again.json()["waiting"] == 2  # a second label on a labelled item takes nothing off the count


def test_the_calibration_table_and_the_sign_in_form_are_pages_like_the_others(store, settings):
    _waiting(store, 1)
    table = _client(settings, store).get("/labelling/table")
    assert table.status_code == 200
    assert 'href="/static/dashboard/dashboard.css"' in table.text and '<header class="top">' in table.text
    assert 'id="calibration-table"' in table.text and "<title>Calibration · sumwatch</title>" in table.text
    login = _client(settings, store, api_token=TOKEN).get("/login?next=/issues")
    assert login.status_code == 200
    assert 'href="/static/dashboard/dashboard.css"' in login.text and '<header class="top">' in login.text
    assert '<a href="/issues"' not in login.text  # no navigation before signing in: every link would come back here


def test_every_page_names_an_icon_that_is_served_without_signing_in(store, settings):
    client = _client(settings, store, api_token=TOKEN)
    for path in ("/login", "/favicon.ico"):
        assert client.get(path).status_code == 200, path
    login = client.get("/login").text
    icon = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)">', login).group(1)
    served = client.get(icon)
    assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg+xml")
    assert served.content.startswith(b"<svg") and client.get("/favicon.ico").content == served.content
    signed = {"authorization": f"Bearer {TOKEN}"}
    for path in ("/", "/issues", "/labelling", "/labelling/table", "/judges", "/issues/SW-404"):
        assert f'<link rel="icon" type="image/svg+xml" href="{icon}">' in client.get(path, headers=signed).text, path


def test_the_overview_time_axis_ends_at_the_data_or_now_never_later(store, settings):
    from sumwatch.monitor.demo.run import run_demo

    run_demo(store, n=4)
    page = _client(settings, store).get("/").text
    now = datetime.now(timezone.utc)
    assert 'id="volume-chart-data"' in page  # the demo's spans, unjudged: no pass-rate chart to check
    for chart in ("volume-chart", "passrate-chart"):
        if f'id="{chart}-data"' not in page:
            continue
        end = datetime.fromisoformat(_figure(page, chart)["layout"]["xaxis"]["range"][1])
        assert end <= now, (chart, end, now)


@pytest.mark.parametrize("last_ago, bucket_s, ends", [
    (timedelta(minutes=10), 3600, "now"),  # the current hour: its bar is cut at now
    (timedelta(days=2), 3600, "bucket end"),  # old data: the axis ends with its last bucket
    (timedelta(minutes=2), 60, "bucket end"),
])
def test_a_time_axis_ends_at_the_last_bucket_or_now_whichever_is_first(last_ago, bucket_s, ends):
    now = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
    last = now - last_ago
    stamps = [last - timedelta(seconds=bucket_s * k) for k in (2, 1, 0)]
    for figure in (volume_figure([(b, 3) for b in stamps], bucket_s, now=now),
                   pass_rate_figure({"factuality": [(b, 2, 3) for b in stamps]}, bucket_s, now=now)):
        start, end = (datetime.fromisoformat(x) for x in figure["layout"]["xaxis"]["range"])
        assert end == (now if ends == "now" else last + timedelta(seconds=bucket_s))
        assert start <= stamps[0] and end - start >= timedelta(seconds=8 * bucket_s) - timedelta(seconds=1)


def test_a_spans_attribute_count_is_one_number_in_the_tree_and_in_its_panel(seeded_store):
    client = _client(seeded_store.settings, seeded_store)
    trace_id, span_id = wire_key(0)
    page = client.get(f"/traces/{trace_id}").text
    tree = re.search(r'<details class="span-attributes"><summary>(\d+) attributes', page).group(1)
    panel = re.search(rf'id="span-{span_id}".*?<details class="attributes"><summary>(\d+) attributes', page,
                      re.S).group(1)
    assert tree == panel == "5"  # task, input, output, model and prompt version, wherever it is counted
    listed = re.search(r'<details class="attributes">.*?</details>', page, re.S).group(0)
    assert listed.count("<tr>") == 5 + 1  # each attribute a row, and service.name as a resource attribute


def test_the_trace_pages_label_form_offers_each_rubrics_failures_to_pick(seeded_store):
    """``fail`` on a rubric with several failing verdicts needs the failure named; the form lists them (a
    datalist on its Failure field) rather than leaving a person to guess a name the server then refuses."""
    client = _client(seeded_store.settings, seeded_store)
    trace_id, _ = wire_key(0)
    page = client.get(f"/traces/{trace_id}").text
    field = re.search(r'<input type="text" name="failure_mode"[^>]*>', page).group(0)
    assert 'list="label-failures"' in field
    offered = dict(re.findall(r'<option value="([^"]+)" label="[^"(]+\(([^)]+)\)">',
                              re.search(r'<datalist id="label-failures">(.*?)</datalist>', page, re.S).group(1)))
    assert "factuality" in offered["entity_wrong"] and "factuality" in offered["entity_swap"]
    assert "groundedness" in offered["unsupported_claim"]
    assert "pass" not in offered and "grounded" not in offered  # passing verdicts are no failure
