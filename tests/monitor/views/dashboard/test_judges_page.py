"""The Judges pages in headless Chromium through the real server on 127.0.0.1: two promotions of a built-in
rubric (one forced past the gate) and two of a custom rubric, scores under each judge version, then the
index, a rubric's versions with kappa per bucket, its pass rate before and after each promotion, the diff
of two versions, the examples, and a definition whose text is hostile markup shown as text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import httpx
import pytest
from served_dashboard import serve

from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition
from sumwatch.monitor.rubrics.verdicts import LLM, RubricResult
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.store.judges import JudgeRecord, record_promotion
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, pass_rates_by_judge_version, write_scores
from sumwatch.monitor.views.dashboard.judges import SHIPPED, diff_lines

pytestmark = [pytest.mark.slow, pytest.mark.integration]

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'
SHIPPED_G = BUILTIN["groundedness"]
G2 = SHIPPED_G.text.replace('version = "1"', 'version = "2"').replace(
    "Work in this order:", "Work in this order (a number that differs by rounding is unsupported):")
G3 = G2.replace('version = "2"', 'version = "3"\nmodel = "judge-large"')

TONE = '''
name = "tone"
version = "{version}"
description = "{description}"
question = "Is the summary neutral in tone?"
unit = "summary"
criteria = """
Read the summary as a whole. {criteria}
{{item_verdicts}}
{{failure_modes}}
"""

[verdicts.neutral]
passes = true
means = "plain, neutral wording"

[verdicts.loaded]
means = "wording that takes a side or sells"
failure_mode = "promotional"

[failure_modes]
promotional = "marketing words: best, amazing, revolutionary"
alarmist = "words that raise alarm the source does not"

{examples}
'''


def tone(version: str, criteria: str, examples: str = "") -> str:
    return TONE.format(version=version, description=HOSTILE.replace('"', '\\"'), criteria=criteria, examples=examples)


LOADED = CorpusItem("tone", "Revenue rose 3% in the quarter.", "Revenue soared to an amazing record!",
                    human_verdict="loaded", bucket="promotional", example=True)
SPARE = CorpusItem("tone", "The plant closed for a week of maintenance.", "A shocking shutdown hit the plant.",
                   human_verdict="loaded", bucket="alarmist", example=True)
TONE_EXAMPLES = f'''[[examples]]
corpus_item = "{LOADED.item_id}"
why = "sells the result"

[[examples]]
source = "Sales were flat."
summary = "Sales were flat."
verdict = "neutral"
'''


def _scores(store, definition, verdicts, start: int) -> None:
    """One span per verdict, judged by the LLM under ``definition``'s judge version in a cascade."""
    version = f"cascade-3/rules-x/{definition.judge_version}/llm-p:judge-model@ambiguous"
    spans = []
    for i, verdict in enumerate(verdicts):
        result = RubricResult.judged(definition, verdict, tier=LLM, judge_version=version, details=(
            {"route": "audit", "cheap_passed": True, "cheap_failure_mode": ""},))
        spans.append(ScoredSpan(SpanRef(f"{start + i:032x}", f"{start + i:016x}", 1_800_000_000_000_000_000),
                                {definition.name: result}))
    write_scores(store, spans, version)


@pytest.fixture
def judged(store, settings):
    """The server over a store with the promotions and scores above; returns (server, store)."""
    g2, g3 = parse_definition(G2, origin="g2"), parse_definition(G3, origin="g3")
    tone1 = parse_definition(tone("1", "Mark sales talk."), origin="tone1")
    tone2 = parse_definition(tone("2", "Mark sales talk and alarm.", TONE_EXAMPLES), origin="tone2")
    save_items(store, [LOADED, SPARE])
    record_promotion(store, JudgeRecord.of(g2, promoted_by="ana", at=T0, results={
        "kappa": 0.712, "buckets": {"pass": 0.8, "unsupported_number": 0.655, "contradicted_claim": 0.9},
        "active_kappa": 0.7, "active_buckets": {"pass": 0.78, "unsupported_number": 0.5}, "items": 80,
        "changed": 6, "calls": 80, "cost_usd": 0.0123}))
    record_promotion(store, JudgeRecord.of(g3, at=T0 + timedelta(days=2), forced="numbers bucket is noisy",
                                           results={"kappa": 0.66, "buckets": {"unsupported_number": 0.48,
                                                                               "pass": "n/a"}, "items": "eighty"}))
    record_promotion(store, JudgeRecord.of(tone1, at=T0, results={"kappa": 0.5, "buckets": {"promotional": 0.5}}))
    record_promotion(store, JudgeRecord.of(tone2, at=T0 + timedelta(days=1), results={"kappa": 0.81}))
    # groundedness: shipped 3 of 4 pass, v2 1 of 4, v3 2 of 2; tone: v1 1 of 2, v2 2 of 2
    _scores(store, SHIPPED_G, ["supported", "supported", "supported", "contradicted"], 0)
    _scores(store, g2, ["supported", "partial", "missing", "contradicted"], 100)
    _scores(store, g3, ["supported", "supported"], 200)
    _scores(store, tone1, ["neutral", "loaded"], 300)
    _scores(store, tone2, ["neutral", "neutral"], 400)
    running = serve(store, settings)
    yield running, store
    running.stop()


@pytest.fixture
def tab(browser, judged):
    server, _ = judged
    context = browser.new_context(base_url=server.endpoint, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    yield page
    context.close()
    assert not errors, f"JavaScript errors or Content-Security-Policy violations on the page: {errors}"


def _cells(page, selector: str) -> list[list[str]]:
    return page.evaluate(f"""() => [...document.querySelectorAll('{selector} tbody tr')]
        .map(tr => [...tr.querySelectorAll('td')].map(td => td.innerText.trim()))""")


def test_the_index_lists_every_rubric_with_its_active_version(tab, tmp_path):
    tab.goto("/judges")
    assert tab.locator("header.top nav a.active").inner_text() == "Judges"
    rows = {r[0].split()[0]: r for r in _cells(tab, "#judges-table")}
    assert list(rows) == ["groundedness", "completeness", "factuality", "conciseness", "tone"]
    g = rows["groundedness"]
    assert g[1].startswith("3") and "forced: numbers bucket is noisy" in g[1]
    assert g[3] == "judge-large" and g[4] == "0.66" and g[5] == "3" and g[7] == "100.0%"
    assert rows["tone"][0] == "tone custom" and rows["tone"][4] == "0.81" and rows["tone"][7] == "100.0%"
    assert rows["factuality"][2] == "shipped with sumwatch" and rows["factuality"][5] == "1"
    tab.screenshot(path=str(tmp_path / "judges.png"), full_page=True)
    tab.locator("#judges-table tr[data-rubric='tone'] a").click()
    tab.wait_for_url("**/judges/tone")


def test_a_rubric_shows_kappa_per_bucket_per_version_and_the_pass_rate_around_each_promotion(tab, tmp_path):
    tab.goto("/judges/groundedness")
    active = tab.locator("#judge-active").inner_text()
    assert "active" in active and "forced: numbers bucket is noisy" in active and "judge-large" in active
    headers = tab.locator("#history-table thead th.bucket-col").all_inner_texts()
    assert headers == ["pass", "unsupported_number", "contradicted_claim"]  # the definition's order
    history = _cells(tab, "#history-table")
    assert [r[0].split()[0] for r in history] == ["3", "2", "1"]
    v3, v2, shipped = history
    assert v3[3] == "0.66" and v3[4:7] == ["–", "0.48", "–"]  # a value of the wrong type shows as none
    assert v3[7] == "–"  # items: "eighty" is no count
    assert v2[3] == "0.712 was 0.7" and v2[4:7] == ["0.8 was 0.78", "0.655 was 0.5", "0.9"]
    assert v2[7:11] == ["80", "6", "80", "$0.0123"] and "by ana" in v2[1]
    assert "shipped" in shipped[0] and shipped[1] == "shipped"

    rates = {r[0].split()[0]: r for r in _cells(tab, "#rates-table")}
    assert rates["1"][2:5] == ["3", "4", "75.0%"] and rates["1"][5] == "–"
    assert rates["2"][2:6] == ["1", "4", "25.0%", "-50.0 pts"]  # after promoting 2: down from 75%
    assert rates["3"][2:6] == ["2", "2", "100.0%", "+75.0 pts"]
    assert tab.locator("#rates-table .change.down").count() == 1

    agreement = _cells(tab, "#agreement-table")
    assert agreement == [["audit", "pass", "10", "6", "60.0%", "$0"]]  # the LLM agreed with 6 of 10 cheap passes

    tab.screenshot(path=str(tmp_path / "judges-groundedness.png"), full_page=True)  # looked at by hand
    tab.click("#history-table tr[data-version='2'] a.diff-link")
    tab.wait_for_url("**/judges/groundedness/diff?**")
    assert "from=shipped&to=2" in tab.url
    added = tab.locator("#diff .line.add").all_inner_texts()
    removed = tab.locator("#diff .line.del").all_inner_texts()
    assert '+version = "2"' in added and '-version = "1"' in removed
    assert "+Work in this order (a number that differs by rounding is unsupported):" in added
    assert "-Work in this order:" in removed
    assert tab.locator("#diff .line.same").count() > 0 and tab.locator("#diff .line.hunk").count() >= 1
    # colours: added lines green, removed red
    colour = "el => getComputedStyle(el).backgroundColor"
    assert tab.locator("#diff .line.add").first.evaluate(colour) != tab.locator("#diff .line.del").first.evaluate(
        colour)

    tab.select_option("#diff-form select[name=from]", "2")
    tab.select_option("#diff-form select[name=to]", "3")
    with tab.expect_navigation():
        tab.click("#diff-form button")
    assert tab.locator("#diff .line.add").all_inner_texts() == ['+version = "3"', '+model = "judge-large"']
    tab.screenshot(path=str(tmp_path / "judges-diff.png"), full_page=True)  # looked at by hand


def test_a_custom_rubric_shows_its_examples_and_its_hostile_text_as_text(tab, tmp_path):
    tab.goto("/judges/tone")
    assert tab.evaluate("() => window.__pwned") is None  # neither the script nor the onerror ran
    assert tab.locator("#judge-definition img").count() == 0
    assert HOSTILE in tab.locator("#judge-definition .description").inner_text()
    history = _cells(tab, "#history-table")
    assert [r[0].split()[0] for r in history] == ["2", "1"] and history[1][4] == "0.5"
    rates = {r[0].split()[0]: r for r in _cells(tab, "#rates-table")}
    assert rates["1"][4] == "50.0%" and rates["2"][4:6] == ["100.0%", "+50.0 pts"]
    examples = tab.locator("#judge-examples article.example")
    assert examples.count() == 2
    first = examples.first
    assert first.get_attribute("data-item") == LOADED.item_id
    assert LOADED.summary in first.locator(".summary").inner_text() and "sells the result" in first.inner_text()
    assert "Sales were flat." in examples.nth(1).locator(".source").inner_text()
    candidates = tab.locator("#candidates-table tbody tr")
    assert candidates.count() == 1 and candidates.first.get_attribute("data-item") == SPARE.item_id
    tab.screenshot(path=str(tmp_path / "judges-tone.png"), full_page=True)  # looked at by hand

    tab.goto("/judges/tone")
    tab.select_option("#diff-form select[name=from]", "1")
    with tab.expect_navigation():
        tab.click("#diff-form button")
    added = tab.locator("#diff .line.add").all_inner_texts()
    assert "+Read the summary as a whole. Mark sales talk and alarm." in added


@pytest.mark.parametrize("path, status, says", [
    ("/judges/Tone!", 400, "a rubric name is lower-case letters"),
    ("/judges/nosuch", 404, "There is no rubric nosuch"),
    ("/judges/tone/diff?from=1", 400, "to is missing"),
    ("/judges/tone/diff?from=1&to=%3Cb%3E", 400, "to must be a version tag"),
    ("/judges/tone/diff?from=shipped&to=2", 400, "tone is a custom rubric: it has no shipped file"),
    ("/judges/tone/diff?from=1&to=9", 404, "no such version"),
])
def test_bad_rubrics_and_versions_answer_one_clear_line(judged, path, status, says):
    server, _ = judged
    answer = httpx.get(server.endpoint + path, timeout=30)
    assert answer.status_code == status and says in answer.text
    assert "<b>" not in answer.text  # the value is echoed escaped, if at all


def test_pass_rates_are_read_per_judge_version(judged):
    _, store = judged
    rates = {(r.rubric, r.judge_version.split("/")[2]): (r.passed, r.total) for r in pass_rates_by_judge_version(store)}
    assert rates[("groundedness", SHIPPED_G.judge_version)] == (3, 4)
    assert [r.rubric for r in pass_rates_by_judge_version(store, "tone")] == ["tone", "tone"]


def test_the_diff_marks_each_line_by_kind():
    lines = diff_lines("a\nb\nc\n", "a\nB\nc\n", f"x@{SHIPPED}", "x@2")
    assert [(line.kind, line.text) for line in lines] == [
        ("file", f"--- x@{SHIPPED}"), ("file", "+++ x@2"), ("hunk", "@@ -1,3 +1,3 @@"), ("same", " a"), ("del", "-b"),
        ("add", "+B"), ("same", " c")]
