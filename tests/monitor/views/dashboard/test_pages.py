"""The dashboard's pages over HTTP from the real server: every page and asset served from this process,
clear 400 and 404 pages for bad input, the issue list's sort and filters, compare's counts, the label
action behind the CSRF check, and the map of the latest run read once."""

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from served_dashboard import serve

from sumwatch.monitor.contract.calibration import NEEDS_LABEL, CorpusItem
from sumwatch.monitor.store.corpus import load_items, save_items
from sumwatch.monitor.store.projections import ProjectionPoint, save_projection
from sumwatch.monitor.store.runs import RunRow, save_run
from sumwatch.monitor.store.scores import list_scores
from sumwatch.monitor.views.dashboard.labelling import QUEUE_PAGE, queue_page
from sumwatch.monitor.views.dashboard.pages import MapCache, map_page
from sumwatch.monitor.views.dashboard.query import BadRequest
from sumwatch.monitor.views.dashboard.routes import plotly_js

pytestmark = pytest.mark.integration

PAGES = ["/", "/issues", "/issues?status=all", "/map", "/labelling", "/compare", "/?range=24h&service=digest",
         "/judges", "/judges/groundedness", "/judges/groundedness/diff?from=shipped&to=shipped"]


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.endpoint, timeout=30) as c:
        yield c


def test_every_page_renders_and_loads_its_assets_from_this_server_only(client, dataset):
    _, store, report = dataset
    trace_id = list_scores(store, failing_only=True, limit=1)[0].trace_id
    for path in [*PAGES, f"/issues/{report.issues[0].issue_id}", f"/traces/{trace_id}"]:
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].startswith("text/html")
        assets = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', answer.text)
        assert assets and all(a.startswith("/static/") for a in assets), (path, assets)
        assert "cdn" not in answer.text.lower()
        # no page runs inline script; only the map (WebGL through regl) may evaluate code
        csp = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and answer.headers["x-content-type-options"] == "nosniff"
        script_src = csp.split("script-src ")[1].split(";")[0]
        assert script_src == ("'self' 'unsafe-eval'" if path == "/map" else "'self'"), path
        for asset in assets:
            assert client.get(asset).status_code == 200, asset
    plotly = client.get("/static/plotly.min.js")
    assert plotly.status_code == 200 and len(plotly.content) == Path(plotly_js()).stat().st_size
    assert plotly.headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize("path, status, says", [
    ("/issues/SW-banana", 400, "an issue id looks like SW-12"),
    ("/issues/SW-9999", 404, "no issue SW-9999"),
    ("/traces/not-a-trace", 400, "trace id must be 32 hex characters"),
    ("/traces/" + "0" * 32, 404, "no trace 00000000000000000000000000000000"),
    ("/?range=2y", 400, "range must be one of"),
    ("/compare?service=" + "x" * 300, 400, "service must be printable text"),
    ("/issues?sort=colour", 400, "sort must be one of"),
    ("/issues?status=sleeping", 400, "status must be one of"),
    ("/map?run=../../etc", 400, "run must be a clustering run id"),
    ("/labelling?rubric=tone", 400, "rubric must be one of"),
    ("/labelling?status=AAA", 400, "the labelling queue takes show, rubric, page (show one of waiting,"),
    ("/labelling?page=0", 400, "page must be at least 1"),
    ("/issues?dir=up", 400, "dir must be one of 'asc' or 'desc', got 'up'"),
    ("/traces?cursor=bm90LW1pbmU", 400, "cursor is not one this page gave (follow the Next link)"),
    ("/no-such-page", 404, "There is no page /no-such-page."),
])
def test_bad_input_gets_a_page_that_says_what_is_wrong(client, path, status, says):
    answer = client.get(path)
    assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
    assert says.lower() in answer.text.replace("&#39;", "'").lower()
    assert "Traceback" not in answer.text and "<h1>" in answer.text


def test_refusals_come_from_one_place_a_page_for_pages_and_json_for_the_api(client):
    page = client.get("/?range=2y")
    assert page.status_code == 400 and "<h1>400 · Bad request</h1>" in page.text
    api = client.get("/api/traces", params={"since": "2y"})
    assert api.status_code == 400 and set(api.json()) == {"error"}
    assert client.get("/api/no-such-thing").json() == {"error": "not found"}
    assert client.get("/static/dashboard/no-such.js").json() == {"error": "not found"}
    wrong_method = client.get("/issues/SW-1/triage")  # a form's target, GET
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"
    assert "<h1>405 · Method not allowed</h1>" in wrong_method.text
    # a page's script that asks for JSON gets the same refusal as JSON
    asked = client.get("/labelling", params={"page": "x"}, headers={"accept": "application/json"})
    assert asked.status_code == 400 and asked.json() == {"error": "page must be a whole number, got 'x'"}
    assert client.head("/issues").status_code == 200 and client.head("/no-such-page").status_code == 404


def _column(html: str, name: str) -> list[str]:
    rows = re.findall(r'<tr data-issue="(SW-\d+)">(.*?)</tr>', html, re.S)
    cells = {"id": 0, "rubric": 3, "traces": 4}
    return [re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)[cells[name]]).strip()
            for _, body in rows]


def test_the_issue_list_sorts_and_filters(client, dataset):
    _, _, report = dataset
    up = [int(n) for n in _column(client.get("/issues?sort=traces&dir=asc").text, "traces")]
    down = [int(n) for n in _column(client.get("/issues?sort=traces&dir=desc").text, "traces")]
    assert up == sorted(up) and down == sorted(down, reverse=True) and len(up) == len(report.issues)
    by_id = _column(client.get("/issues?sort=id&dir=asc").text, "id")
    assert by_id == sorted(by_id, key=lambda i: int(i.split("-")[1]))
    rubric = report.issues[0].rubric
    only = _column(client.get(f"/issues?rubric={rubric}").text, "rubric")
    assert only and set(only) == {rubric} and len(only) == sum(i.rubric == rubric for i in report.issues)
    title = report.issues[0].title
    found = _column(client.get("/issues", params={"q": title}).text, "id")
    assert report.issues[0].issue_id in found
    # a column header sorts by it; the sorted one flips its direction
    html = client.get("/issues?sort=traces&dir=desc").text
    assert 'href="/issues?status=open&amp;sort=traces&amp;dir=asc"' in html


def test_compare_counts_each_group_with_its_interval(client):
    html = client.get("/compare?range=all&service=alerts").text
    table = html.split('id="by-prompt"')[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td>",
                      table)
    assert {(group, rubric) for group, rubric, _, _ in rows} == {
        ("demo-v1", r) for r in ("completeness", "conciseness", "factuality", "groundedness")}
    assert all(int(total) == 20 and 0 <= int(passed) <= 20 for _, _, passed, total in rows)
    assert "95% interval" in table


def _csrf(client) -> str:
    client.get("/labelling")
    return client.cookies["sumwatch_csrf"]


def test_labelling_needs_the_csrf_token_and_checks_the_verdict(client, server, dataset):
    _, store, _ = dataset
    item = load_items(store, status=NEEDS_LABEL)[-1]
    origin = {"origin": server.endpoint}
    refused = client.post(f"/labelling/{item.item_id}", data={"verdict": item.proposed_verdict}, headers=origin)
    assert refused.status_code == 403 and "CSRF" in refused.text
    token = _csrf(client)
    headers = {**origin, "x-csrf-token": token, "accept": "application/json"}
    bad = client.post(f"/labelling/{item.item_id}", data={"verdict": "excellent"}, headers=headers)
    assert bad.status_code == 400 and "verdict must be one of" in bad.json()["error"]
    missing = client.post("/labelling/abc123", data={"verdict": "correct"}, headers=headers)
    assert missing.status_code == 404
    assert load_items(store, item_id=item.item_id)[0].status == NEEDS_LABEL  # nothing changed so far
    # a plain form post (no script): the field carries the token, the answer goes back to the queue
    done = client.post(f"/labelling/{item.item_id}", data={"verdict": "rejected", "csrf_token": token},
                       headers=origin)
    assert done.status_code == 303 and done.headers["location"] == "/labelling"
    assert load_items(store, item_id=item.item_id)[0].status == "rejected"


def test_with_an_api_token_pages_ask_for_the_login_and_assets_stay_public(dataset):
    settings, store, _ = dataset
    secured = serve(store, settings.with_(api_token="dashboard-token-1"))
    try:
        with httpx.Client(base_url=secured.endpoint) as c:
            answer = c.get("/issues")
            assert answer.status_code == 303 and answer.headers["location"].startswith("/login")
            assert c.get("/static/plotly.min.js").status_code == 200
            assert c.get("/issues", headers={"authorization": "Bearer dashboard-token-1"}).status_code == 200
    finally:
        secured.stop()


def _finished_run(store, run_id: str, at: datetime, points: int) -> None:
    save_projection(store, run_id, at, [ProjectionPoint(f"{i:032x}", f"{i:016x}", "factuality", i, i, None, "t")
                                        for i in range(points)])
    save_run(store, RunRow(run_id, at, at, at, at, failures=points, clustered=0, noise=points, issues=0,
                           new_issues=0, embedded=0, promoted=0, namer="KeywordNamer", embedding_model="m",
                           seconds=1.0))


def test_the_map_of_the_latest_run_is_built_once_and_a_new_run_replaces_it(store):
    cache = MapCache()
    t0 = datetime(2026, 3, 2, tzinfo=timezone.utc)
    assert map_page(store, None, cache)["map_json"] is None  # no run yet: the page says so
    _finished_run(store, "run-a", t0, 3)
    first = map_page(store, None, cache)
    assert (first["run_id"], first["points"], first["noise"]) == ("run-a", 3, 3)
    assert map_page(store, None, cache) is first  # read once
    _finished_run(store, "run-b", t0 + timedelta(hours=1), 5)
    second = map_page(store, None, cache)
    assert (second["run_id"], second["points"]) == ("run-b", 5)
    assert map_page(store, "run-a", cache)["points"] == 3  # an older run, asked for by id


def test_the_queue_pages_through_the_waiting_items_and_counts_them_all(store):
    save_items(store, [CorpusItem(rubric="factuality", source=f"Revenue rose {i}% in May.",
                                  summary=f"Revenue fell {i}%.", status=NEEDS_LABEL, proposed_verdict="polarity_wrong")
                       for i in range(25)])
    context = queue_page(store, "factuality")
    assert (len(context["items"]), context["waiting"], context["pages"]) == (QUEUE_PAGE, 25, 3)
    first = context["items"][0]
    assert first.verdicts[0] == "correct" and first.fail_verdict == "polarity_wrong"
    pages = [[q.item.item_id for q in queue_page(store, "factuality", page=n)["items"]] for n in (1, 2, 3)]
    assert [len(p) for p in pages] == [10, 10, 5]
    assert len({i for p in pages for i in p}) == 25  # every item once, on one page
    with pytest.raises(BadRequest, match="page must be between 1 and 3, got 4"):
        queue_page(store, "factuality", page=4)
    with pytest.raises(BadRequest, match="show must be one of"):
        queue_page(store, "factuality", show="everything")
    assert queue_page(store, "conciseness")["waiting"] == 0


def test_an_empty_store_shows_every_page_with_what_to_do_next(store, settings):
    empty = serve(store, settings)
    try:
        with httpx.Client(base_url=empty.endpoint) as c:
            says = {"/": "no clustering run has finished yet", "/issues": "no clustering run has finished yet",
                    "/map": "No map yet", "/labelling": "Nothing waiting", "/compare": "No judged spans",
                    "/alerts": "No threshold alert rules"}
            for path, text in says.items():
                answer = c.get(path)
                assert answer.status_code == 200 and text in answer.text, path
            assert c.get("/issues/SW-1").status_code == 404
    finally:
        empty.stop()


def test_the_overview_lists_the_open_issues_largest_first(client, dataset):
    _, _, report = dataset
    table = client.get("/?range=all").text.split('<table class="issues compact">')[1].split("</table>")[0]
    listed = list(dict.fromkeys(re.findall(r'href="/issues/(SW-\d+)"', table)))
    expected = [i.issue_id for i in sorted(report.issues, key=lambda i: (-i.members, i.number))][:12]
    assert listed == expected
    assert table.count('class="sparkline"') == len(expected)


def test_the_issue_page_lists_its_tickets_after_an_export_and_never_an_alert_channels_secrets(dataset, tmp_path):
    """The page (and the API's issue detail) show each ticket with its link and state; an export through the
    route shows up on the next load; a Slack row shows its target's name and nothing else of it."""
    from sumwatch.monitor.exports.config import ExportConfig
    from sumwatch.monitor.store.exports import FAILED, ExportRow, save_export

    settings, store, report = dataset
    assert len(report.issues) >= 2
    issue = report.issues[-1]  # the browser test exports the first one
    secret = "https://hooks.slack.com/services/T000/B000/very-secret-part"
    exporting = serve(store, settings, ExportConfig(markdown_dir=str(tmp_path)))
    try:
        with httpx.Client(base_url=exporting.endpoint, timeout=60,
                          headers={"authorization": "Bearer any"}) as c:
            before = c.get(f"/issues/{issue.issue_id}").text
            assert '<span id="no-tickets" class="muted">none yet' in before
            save_export(store, ExportRow(issue.number, "slack", external_id=secret, url=secret, phase=FAILED,
                                         tracker_state="open", error=f"POST {secret}: 404"))
            done = c.post(f"/api/issues/{issue.issue_id}/export", json={"to": "markdown"})
            assert done.status_code == 200 and done.json()["results"][0]["action"] == "created"
            page = c.get(f"/issues/{issue.issue_id}").text
            tickets = page.split('id="issue-tickets"', 1)[1].split("</p>", 1)[0]
            markdown = re.search(r'<span class="ticket" data-target="markdown">(.*?)</span>\s*'
                                 r'(?=<span class="ticket"|$)', tickets, re.S)
            assert markdown and f"{issue.issue_id}.md" in markdown.group(1) and "state-open" in markdown.group(1)
            assert 'data-target="slack"' in tickets and "very-secret" not in page and "hooks.slack" not in page
            assert 'id="no-tickets" class="muted" hidden' in page
            shown = c.get(f"/api/issues/{issue.issue_id}").json()["exports"]
            assert {t["target"]: t for t in shown}["slack"] == {"target": "slack", "external_id": "", "url": "",
                                                                "tracker_state": "", "phase": "", "error": ""}
            assert {t["target"]: t for t in shown}["markdown"]["external_id"] == f"{issue.issue_id}.md"
    finally:
        exporting.stop()
