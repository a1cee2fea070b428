"""A span recognised in another instrumentation's trace, as the dashboard, the API and the CLI show it: the
trace as a tree (the decorated function and the LLM call inside it), the recognised document and answer
rather than the message JSON, and model and tokens from OpenInference's names."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from fakes.genai_trace import ANSWER, DOCUMENT, INSTRUCTION, MODEL, SERVICE, openinference_trace
from served_dashboard import CHROMIUM, serve

from sumwatch.monitor.store.recognised import write_recognised

pytestmark = pytest.mark.integration

AT_NS = 1_772_445_600_000_000_000


@pytest.fixture
def served(store, settings):
    rows, recognised = openinference_trace(AT_NS)
    store.insert_spans(rows)
    write_recognised(store, [recognised])
    running = serve(store, settings)
    yield running, recognised
    running.stop()


def test_the_trace_page_shows_the_tree_and_the_recognised_document_and_answer(served):
    running, r = served
    with httpx.Client(base_url=running.endpoint, timeout=30) as c:
        html = c.get(f"/traces/{r.trace_id}").text
        spans = c.get(f"/api/traces/{r.trace_id}").json()
        listed = c.get("/api/traces").json()
    tree = html[html.index('id="span-tree"'):html.index("</table>", html.index('id="span-tree"'))]
    assert tree.index("summarize_article") < tree.index("ChatCompletion")
    assert f'data-span="{r.span_id}" data-depth="1"' in tree and "openinference" in tree
    assert f"model <b>{MODEL}</b>" in tree and "tokens <b>41 → 15</b>" in tree
    start = html.index('<div class="pair">')
    pair = html[start:html.index("</section>", html.index("</section>", start) + 1)]  # source and summary
    assert DOCUMENT in pair and ANSWER in pair
    assert INSTRUCTION not in pair and "&#34;messages&#34;" not in pair and '"messages"' not in pair
    assert f"<dd>{MODEL}</dd>" in html and "41 / 15" in html and "Recognised in" in html

    root, llm = spans
    assert (root["name"], root["depth"], root["children"]) == ("summarize_article", 0, [r.span_id])
    assert (llm["depth"], llm["model"], llm["input_tokens"], llm["output_tokens"]) == (1, MODEL, 41, 15)
    assert llm["recognised"]["source"] == DOCUMENT and llm["recognised"]["instrumentation"] == "openinference"
    (row,) = listed
    assert (row["span_id"], row["instrumentation"], row["service"], row["model"]) == (
        r.span_id, "openinference", SERVICE, MODEL)
    assert row["summary_preview"] == ANSWER and row["source_preview"] == DOCUMENT


def test_the_trace_page_in_chromium_draws_the_tree_indented(served, tmp_path):
    running, r = served
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium", pytrace=False)
    from playwright.sync_api import sync_playwright

    # where the screenshot goes: a folder of the caller's choice (to look at it), else the test's own
    shot = Path(os.environ.get("SUMWATCH_SCREENSHOTS", tmp_path)) / "trace_tree.png"
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = chromium.new_page(base_url=running.endpoint, viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"/traces/{r.trace_id}")
            rows = page.locator("#span-tree tbody tr")
            assert rows.count() == 2
            root_x = rows.nth(0).locator("a").bounding_box()
            llm_x = rows.nth(1).locator("a").bounding_box()
            assert root_x and llm_x and llm_x["x"] > root_x["x"] + 10  # the LLM call drawn under its parent
            assert page.locator(f"#span-{r.span_id} .pair .source .body").inner_text().strip() == DOCUMENT
            assert page.locator(f"#span-{r.span_id} .pair .summary .body").inner_text().strip() == ANSWER
            page.screenshot(path=str(shot), full_page=True)
            assert not errors, errors
        finally:
            chromium.close()
    assert shot.stat().st_size > 10_000
