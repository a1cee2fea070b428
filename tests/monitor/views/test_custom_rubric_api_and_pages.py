"""A team's own rubric through the served API and dashboard: once its definition is promoted into the database,
"tone" filters scores, issues and the labelling queue like a built-in rubric, the queue offers its verdicts, and
a rubric the database does not know is still one clear 400."""

import re
from datetime import datetime, timezone

import httpx
import numpy as np
import pytest
from served import serve
from tone_rubric import promote_tone, summarization_spans, write_tone_scores

from sumwatch.monitor.contract.calibration import LABELLED, NEEDS_LABEL, CorpusItem
from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.store.corpus import load_items, save_items
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


def _issue(number: int, rubric: str, mode: str, title: str) -> IssueState:
    return IssueState(number, f"SW-{number}", title, "What goes wrong.", "Why.", "What to change.", "medium", rubric,
                      mode, [mode], "new", 3, 3, 0.5, 0, NOW, NOW, np.ones(4, dtype=np.float32) / 2, "m",
                      "KeywordNamer")


@pytest.fixture
def tone_store(store):
    """Six demo spans, four scored as sarcastic and two as neutral on a promoted "tone" rubric; a clustering run
    with one tone issue and one factuality issue; a tone item waiting for a label."""
    run_demo(store, n=6)
    definition = promote_tone(store)
    spans = summarization_spans(store, 6)
    write_tone_scores(store, definition, spans[:4], spans[4:])
    save_states(store, [_issue(1, "tone", "sarcasm", "Sarcastic summaries"),
                        _issue(2, "factuality", "number_mismatch", "Numbers changed")], "run-1", NOW)
    save_run(store, RunRow("run-1", NOW, NOW, NOW, NOW, failures=6, clustered=6, noise=0, issues=2, new_issues=2,
                           embedded=6, promoted=0, namer="KeywordNamer", embedding_model="m", seconds=1.0))
    save_items(store, [CorpusItem(rubric="tone", source="Profits rose 4% in the quarter.",
                                  summary="What a triumph: profits rose a whole 4%.", status=NEEDS_LABEL,
                                  proposed_verdict="slanted", bucket="sarcasm", origin="promoted")])
    return store, spans


@pytest.fixture
def client(tone_store, settings):
    server = serve(settings, tone_store[0])
    with httpx.Client(base_url=server.endpoint, timeout=30) as c:
        yield c
    server.stop()


def test_the_scores_api_filters_by_a_promoted_rubric(client, tone_store):
    _, spans = tone_store
    tone = client.get("/api/scores", params={"rubric": "tone", "limit": 100})
    assert tone.status_code == 200
    assert sorted(s["span_id"] for s in tone.json()) == sorted(s.span_id for s in spans)
    assert {s["rubric"] for s in tone.json()} == {"tone"}
    failing = client.get("/api/scores", params={"rubric": "tone", "failing": "true"}).json()
    assert len(failing) == 4 and {(s["verdict"], s["failure_mode"]) for s in failing} == {("slanted", "sarcasm")}
    one = client.get(f"/api/traces/{spans[0].trace_id}/scores", params={"rubric": "tone"}).json()
    assert [(s["rubric"], s["verdict"]) for s in one] == [("tone", "slanted")]
    assert client.get("/api/scores", params={"rubric": "factuality"}).json() == []  # no built-in scores here
    exported = client.get("/api/scores/export", params={"rubric": "tone", "format": "jsonl"})
    assert exported.status_code == 200 and exported.text.count("\n") == 6
    assert client.get("/api/corpus", params={"rubric": "tone"}).json()["total"] == 1
    # a promoted rubric has no calibration baseline yet: a 404 that says so, not a refused rubric
    baseline = client.get("/api/calibration/tone")
    assert baseline.status_code == 404 and "no tone baseline yet" in baseline.json()["error"]


@pytest.mark.parametrize("path", ["/api/scores", "/api/corpus", "/api/scores/export"])
def test_a_rubric_the_database_does_not_know_is_a_404_naming_the_known_ones(client, path):
    answer = client.get(path, params={"rubric": "tonality"})
    assert answer.status_code == 404
    message = answer.json()["error"]
    assert message == ("rubric must be one of 'groundedness', 'completeness', 'factuality', 'conciseness', 'tone', "
                       "got 'tonality'")
    malformed = client.get(path, params={"rubric": "Tone!"})
    assert malformed.status_code == 400 and "\n" not in malformed.json()["error"]
    assert "rubric must be a rubric name" in malformed.json()["error"]
    assert client.get("/api/calibration/tonality").status_code == 404


def test_the_calibrate_action_refuses_an_unknown_rubric_before_it_starts(client):
    client.get("/labelling")  # a page sets the CSRF cookie that a request without a token must echo
    answer = client.post("/api/actions/calibrate", json={"rubric": "tonality"},
                         headers={"origin": str(client.base_url).rstrip("/"),
                                  "x-csrf-token": client.cookies["sumwatch_csrf"]})
    assert answer.status_code == 404 and "'tone'" in answer.json()["error"]
    assert client.get("/api/actions").json()["last"] == {}  # nothing ran


def test_the_issue_list_filters_by_a_promoted_rubric_and_offers_it(client):
    page = client.get("/issues", params={"rubric": "tone"})
    assert page.status_code == 200
    assert 'data-issue="SW-1"' in page.text and 'data-issue="SW-2"' not in page.text
    assert '<option value="tone" selected>tone</option>' in page.text
    unknown = client.get("/issues", params={"rubric": "tonality"})
    assert unknown.status_code == 400 and "rubric must be one of" in unknown.text and "tone" in unknown.text


def test_the_labelling_queue_offers_the_custom_rubrics_own_verdicts(client, tone_store):
    store, _ = tone_store
    page = client.get("/labelling", params={"rubric": "tone"})
    assert page.status_code == 200
    offered = re.findall(r'name="verdict" value="([a-z_]+)"', page.text)
    assert offered == ["neutral", "slanted", "rejected"]
    assert 'data-pass="neutral" data-fail="slanted"' in page.text
    assert client.get("/labelling", params={"rubric": "tonality"}).status_code == 400
    item = load_items(store, rubric="tone", status=NEEDS_LABEL)[0]
    headers = {"origin": str(client.base_url).rstrip("/"), "x-csrf-token": client.cookies["sumwatch_csrf"],
               "accept": "application/json"}
    wrong = client.post(f"/labelling/{item.item_id}", data={"verdict": "padded"}, headers=headers)
    assert wrong.status_code == 400 and "verdict must be one of neutral, slanted" in wrong.json()["error"]
    done = client.post(f"/labelling/{item.item_id}", data={"verdict": "slanted"}, headers=headers)
    assert done.status_code == 200 and done.json() == {"item_id": item.item_id, "status": LABELLED,
                                                       "verdict": "slanted", "waiting": 0}  # the queue's count after it
    # the calibration table has a tone row, now with one label that agrees with the judge's proposal
    row = re.search(r'<tr data-rubric="tone">(.*?)</tr>', client.get("/labelling").text, re.S)
    assert row and re.search(r'class="num labelled">1<', row.group(1)) and "accuracy 100" in row.group(1)
