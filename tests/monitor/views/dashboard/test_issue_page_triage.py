"""The issue page's merge and export controls, in-process (no script needed): "Merge into" preselects nothing and a
merge is asked about on a page naming both issues before it is stored; Unmerge gives a merged issue back; the Export
menu offers only the trackers this server has settings for."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import numpy as np
import pytest
from starlette.testclient import TestClient

from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.store.issue_events import events_of
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run
from sumwatch.monitor.views.app import create_app

ORIGIN = "http://localhost"


def _state(number: int, title: str, rubric: str, members: int) -> IssueState:
    return IssueState(number, f"SW-{number}", title, "d", "c", "f", "high", rubric, "omission", ["k"], "ongoing",
                      members, members, 0.25, 0, datetime.now(timezone.utc), datetime.now(timezone.utc),
                      np.ones(4, dtype=np.float32) / 2, "m", "KeywordNamer")


@pytest.fixture
def issues(store):
    at = datetime.now(timezone.utc)
    save_states(store, [_state(1, "Figures changed", "factuality", 6),
                        _state(2, "Key points left out", "completeness", 4)], "run-1", at)
    save_run(store, RunRow("run-1", at, at, at, at, failures=10, clustered=10, noise=0, issues=2, new_issues=2,
                           embedded=0, promoted=0, namer="KeywordNamer", embedding_model="m", seconds=1.0))
    return store


def _client(settings, store) -> TestClient:
    return TestClient(create_app(Runtime.build(settings, store)), base_url=ORIGIN, follow_redirects=False)


def _post(client: TestClient, issue_id: str, **fields: str):
    client.get(f"/issues/{issue_id}")  # the page sets the CSRF cookie its forms carry
    token = client.cookies["sumwatch_csrf"]
    return client.post(f"/issues/{issue_id}/triage", data={"csrf_token": token, **fields}, headers={"origin": ORIGIN})


def test_merge_into_preselects_no_issue(issues, settings):
    page = _client(settings, issues).get("/issues/SW-2").text
    select = re.search(r'<select name="into" id="triage-into"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert re.findall(r"<option[^>]*>", select)[0] == '<option value="" selected>'
    assert "selected" not in "".join(re.findall(r"<option[^>]*>", select)[1:])


def test_a_merge_is_asked_about_naming_both_issues_before_it_is_stored(issues, settings):
    client = _client(settings, issues)
    asked = _post(client, "SW-2", action="merge", into="SW-1", by="ana")
    assert asked.status_code == 200 and events_of(issues) == []  # nothing merged yet
    assert "Merge SW-2 into SW-1?" in asked.text
    assert "Key points left out" in asked.text and "Figures changed" in asked.text
    assert 'name="confirm" value="yes"' in asked.text and 'name="by" value="ana"' in asked.text
    done = _post(client, "SW-2", action="merge", into="SW-1", by="ana", confirm="yes")
    assert done.status_code == 303 and done.headers["location"] == "/issues/SW-1"
    assert [(e.action, e.by, e.value) for e in events_of(issues)] == [("merge", "ana", "1")]


def test_a_merge_with_no_issue_chosen_is_refused_in_one_line(issues, settings):
    refused = _post(_client(settings, issues), "SW-2", action="merge", into="", by="ana")
    assert refused.status_code == 400 and "merge needs the issue to merge SW-2 into" in refused.text
    assert events_of(issues) == []


def test_the_confirm_page_refuses_what_the_merge_itself_would_in_the_same_words(issues, settings):
    client = _client(settings, issues)
    for into, status, said in (("SW-9", 404, "no issue SW-9 to merge into"), ("SW-2", 400, "into itself"),
                               ("nine", 400, "merge into: ")):
        asked = _post(client, "SW-2", action="merge", into=into, by="ana")
        confirmed = _post(client, "SW-2", action="merge", into=into, by="ana", confirm="yes")
        assert asked.status_code == confirmed.status_code == status and said in asked.text and said in confirmed.text
    assert events_of(issues) == []


def test_unmerge_from_the_page_gives_the_merged_issue_back(issues, settings):
    client = _client(settings, issues)
    _post(client, "SW-2", action="merge", into="SW-1", confirm="yes")
    assert 'id="unmerge-SW-2"' in client.get("/issues/SW-1").text
    assert 'id="unmerge-asked"' in client.get("/issues/SW-2").text  # the merged id opens SW-1, with the way back
    back = _post(client, "SW-2", action="unmerge", by="ben")
    assert back.status_code == 303 and back.headers["location"] == "/issues/SW-2"
    assert [(e.action, e.by) for e in events_of(issues)][-1] == ("unmerge", "ben")
    page = client.get("/issues/SW-2").text
    assert "<h1>SW-2 · Key points left out</h1>" in page and "was merged into" not in page


def test_the_export_menu_offers_only_configured_trackers(issues, settings, tmp_path):
    page = _client(settings, issues).get("/issues/SW-1").text
    assert 'id="export-target"' not in page and 'id="export-none"' in page and "SUMWATCH_GITHUB_TOKEN" in page
    configured = settings.with_(github_token="ghp_x", github_repo="acme/summaries", markdown_dir=str(tmp_path))
    page = _client(configured, issues).get("/issues/SW-1").text
    menu = re.search(r'<select id="export-target"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)"', menu) == ["github", "markdown"]
