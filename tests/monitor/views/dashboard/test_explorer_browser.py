"""The trace explorer in headless Chromium through the real server, over the demo's dataset (scored offline by
the rules tier, so it holds unsure results): search and filter the Traces page, open a trace and its span
tree with a span's attributes, and the Unsure page's kinds; plus the same reads through the API and the CLI."""

from __future__ import annotations

import re
from collections import Counter

import httpx
import pytest

from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.traces import span_texts
from sumwatch.monitor.store.unsure import unsure_kinds

pytestmark = pytest.mark.slow


def _search_word(store) -> tuple[str, str]:
    """A word in some spans' summaries but not all, and the service of the newest span holding it."""
    rows = list_traces(store, limit=500, filters=TraceFilters(since=None))
    counts = Counter(w for r in rows for w in {w.lower() for w in re.findall(r"[A-Za-z]{6,}", r.summary_preview)})
    word = next(w for w, n in counts.most_common() if 3 <= n < len(rows) // 2)
    service = next(r.service for r in rows if word in r.summary_preview.lower())
    return word, service


def test_search_and_filter_traces_then_open_the_span_tree(page, dataset, tmp_path):
    _, store, _ = dataset
    word, service = _search_word(store)
    page.goto("/traces?range=all")
    everything = page.locator("#traces-table tbody tr").count()
    assert everything > 0 and page.locator("nav a.active").inner_text() == "Traces"

    page.fill("#trace-search", word.upper())  # case aside
    page.select_option("select[name=service]", service)
    page.click("#filters button[type=submit]")
    page.wait_for_url(re.compile(r"q=" + word.upper()))
    rows = page.locator("#traces-table tbody tr")
    shown = [(rows.nth(i).get_attribute("data-trace"), rows.nth(i).get_attribute("data-span"))
             for i in range(rows.count())]
    expected = list_traces(store, limit=50, filters=TraceFilters(q=word, service=service))
    assert shown == [(r.trace_id, r.span_id) for r in expected] and 0 < len(shown) < everything
    texts = span_texts(store, shown)
    assert all(word in (texts[k][0] + texts[k][1]).lower() for k in shown)
    assert all(service in rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count()))
    assert page.locator("td.verdict-cell .badge").count() > 0  # each row's verdicts per rubric
    page.screenshot(path=str(tmp_path / "traces-search.png"), full_page=True)

    # a verdict filter narrows further: only rows failing that rubric
    page.select_option("select[name=rubric]", "factuality")
    page.select_option("select[name=verdict]", "fail")
    page.wait_for_url(re.compile(r"verdict=fail"))
    cells = page.locator("td.verdict-cell[data-rubric=factuality] .badge")
    assert all(cells.nth(i).inner_text() == "fail" for i in range(cells.count()))

    trace_id = shown[0][0]
    page.goto(f"/traces?range=all&q={word}&service={service}")
    page.locator(f"#traces-table tbody tr[data-trace='{trace_id}'] a").first.click()
    page.wait_for_url(re.compile(f"/traces/{trace_id}"))
    tree = page.locator("#span-tree tbody tr")
    assert tree.count() >= 1 and tree.first.locator("td").nth(2).inner_text().startswith("+0")
    details = tree.first.locator("details.span-attributes")
    assert not details.locator("dl").is_visible()
    details.locator("summary").click()
    assert details.locator("dl").is_visible() and "summarization" in details.locator("dl").inner_text()
    page.screenshot(path=str(tmp_path / "trace-tree.png"), full_page=True)


def test_the_unsure_page_groups_suspicions_by_kind(page, dataset, tmp_path):
    _, store, _ = dataset
    kinds = unsure_kinds(store, per_kind=10)
    assert kinds, "the offline demo dataset should hold unsure results"
    page.goto("/unsure?range=all")
    listed = page.locator("#unsure-kinds tbody tr")
    assert [listed.nth(i).get_attribute("data-kind") for i in range(listed.count())] == [k.kind for k in kinds]
    assert [int(listed.nth(i).locator("td").nth(1).inner_text().replace(",", "")) for i in range(listed.count())] == [
        k.count for k in kinds]
    first = page.locator(f"section.unsure-kind[data-kind='{kinds[0].kind}'] tbody tr")
    assert first.count() == len(kinds[0].spans)
    page.screenshot(path=str(tmp_path / "unsure.png"), full_page=True)
    page.click("text=List the spans with an unsure result")
    page.wait_for_url(re.compile("certainty=unsure"))
    cells = page.locator("#traces-table tbody tr")
    assert cells.count() > 0
    assert all("unsure" in cells.nth(i).inner_text() for i in range(cells.count()))


def test_the_api_and_the_cli_search_and_filter_the_same_way(dataset, server):
    settings, store, _ = dataset
    word, service = _search_word(store)
    expected = list_traces(store, limit=50, filters=TraceFilters(q=word, service=service))
    with httpx.Client(base_url=server.endpoint, timeout=60) as c:
        got = c.get("/api/traces", params={"q": word, "service": service, "limit": 50}).json()
        assert [(r["trace_id"], r["span_id"]) for r in got] == [(r.trace_id, r.span_id) for r in expected]
        bad = c.get("/api/traces", params={"verdict": "maybe"})
        assert bad.status_code == 400 and "verdict" in bad.text
        assert c.get("/traces", params={"certainty": "sure"}).status_code == 400
        unsure = c.get("/api/unsure", params={"per_kind": 2}).json()
        assert [(k["kind"], k["count"]) for k in unsure] == [(k.kind, k.count) for k in unsure_kinds(store)]
        assert all(len(k["spans"]) <= 2 for k in unsure)

    from typer.testing import CliRunner

    from sumwatch.monitor.cli import app

    env = {"SUMWATCH_HOME": str(settings.store.home), "SUMWATCH_DATABASE": settings.store.database}
    args = ["traces", "--search", word, "--service", service, "--limit", "50", "--json"]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert [r["trace_id"] for r in json_rows(result.stdout)] == [r.trace_id for r in expected]
    bad = CliRunner().invoke(app, ["traces", "--verdict", "maybe"], env=env)
    assert bad.exit_code != 0 and "verdict" in bad.output and "Traceback" not in bad.output
    kinds = CliRunner().invoke(app, ["traces", "unsure"], env=env)
    assert kinds.exit_code == 0 and unsure_kinds(store)[0].kind.replace("_", " ") in kinds.stdout


def json_rows(text: str) -> list[dict]:
    import json

    return json.loads(text)
