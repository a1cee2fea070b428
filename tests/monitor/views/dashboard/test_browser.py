"""The dashboard in headless Chromium through the real server on 127.0.0.1: the overview and its filters,
an issue with its evidence marked, a click on the cluster map, labelling with the keyboard, a map of
20,000 points, and the issue's export button."""

import re
import time
from datetime import datetime, timezone

import numpy as np
import pytest
from served_dashboard import serve

from sumwatch.monitor.contract.calibration import LABELLED, NEEDS_LABEL
from sumwatch.monitor.store.corpus import load_items
from sumwatch.monitor.store.projections import ProjectionPoint, save_projection

pytestmark = pytest.mark.slow

DRAWN = "() => [...document.querySelectorAll('[data-figure]')].every(e => e.dataset.drawn === '1')"


def test_the_overview_draws_its_charts_and_the_service_filter_narrows_them(page):
    page.goto("/")
    page.wait_for_function(DRAWN)
    assert page.locator("#kpi-spans").inner_text() == "80"
    # plotly.js came from this server, and each chart drew its SVG
    assert page.evaluate("() => typeof Plotly.newPlot") == "function"
    assert page.locator("#volume-chart .main-svg").count() >= 1
    assert page.locator("#passrate-chart .scatterlayer .trace").count() == 4  # one line per rubric
    assert page.locator("td.spark .main-svg").count() >= 1  # open issues carry their sparklines

    with page.expect_navigation():
        page.select_option("#filters select[name=service]", "alerts")  # the bar submits on change
    assert "service=alerts" in page.url
    page.wait_for_function(DRAWN)
    assert page.locator("#kpi-spans").inner_text() == "20"
    assert page.locator("#filters select[name=service]").input_value() == "alerts"


def test_an_issue_opened_from_the_list_shows_source_and_summary_with_the_evidence_marked_in_both(page, dataset):
    _, _, report = dataset
    factual = next(i for i in report.issues if i.rubric == "factuality")
    page.goto("/issues")
    page.locator(f"#issues-table tr[data-issue='{factual.issue_id}'] td:first-child a").click()
    page.wait_for_url(f"**/issues/{factual.issue_id}")
    page.wait_for_function(DRAWN)
    assert page.locator("h1").inner_text().startswith(f"{factual.issue_id} · {factual.title}")
    assert page.locator("#issue-fix").inner_text() == factual.fix
    cards = page.locator("#representatives article.example")
    assert cards.count() >= 1
    first = cards.first
    # e.g. the summary's "Port Adair" and the source's "Quarry Avenue Bridge", each marked where it stands
    source_marks = first.locator(".text.source mark").all_inner_texts()
    summary_marks = first.locator(".text.summary mark").all_inner_texts()
    assert source_marks and summary_marks
    evidence = first.locator(".evidence").inner_text()
    assert any(m.lower() in evidence.lower() for m in source_marks + summary_marks)
    # the card links to its trace
    href = first.locator("a.trace-link").get_attribute("href")
    assert re.match(r"^/traces/[0-9a-f]{32}#span-[0-9a-f]{16}$", href)
    # no tracker has settings on this server: the Export menu is not offered, and says what to set
    assert page.locator("#export-none").is_visible() and page.locator("#export-issue").count() == 0


def test_clicking_a_point_on_the_cluster_map_opens_its_trace(page, dataset):
    _, store, report = dataset
    page.goto("/map")
    page.wait_for_function(DRAWN)
    assert page.locator("#cluster-map canvas").count() >= 1  # WebGL (scattergl)
    target = page.evaluate("""() => {
        const gd = document.getElementById('cluster-map');
        const trace = gd._fullData.find(t => t.x.length > 0);
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const box = gd.querySelector('.nsewdrag').getBoundingClientRect();
        return {x: box.left + xa.l2p(trace.x[0]), y: box.top + ya.l2p(trace.y[0]), url: trace.customdata[0]};
    }""")
    page.mouse.move(target["x"], target["y"])
    hover = page.locator(".hoverlayer .hovertext")
    hover.wait_for()
    assert re.search(r"SW-\d+|noise", hover.text_content())  # the failure text, with its issue
    page.mouse.click(target["x"], target["y"])
    page.wait_for_url("**/traces/**")
    trace_id = target["url"].split("/traces/")[1].split("#")[0]
    assert page.url.endswith(target["url"])
    assert trace_id in page.locator("h1").inner_text()
    # the trace page shows each rubric's verdict and the failing one's evidence marked
    assert page.locator("table.scores tbody tr").count() == 4
    assert page.locator(".pair mark").count() >= 1


def test_labelling_with_the_keyboard_changes_the_corpus_and_the_calibration_table(page, dataset):
    _, store, _ = dataset
    waiting_before = {i.item_id for i in load_items(store, status=NEEDS_LABEL)}
    assert waiting_before
    page.goto("/labelling")
    first = page.locator(".queue-item.current")
    item_id, fail_verdict = first.get_attribute("data-item"), first.get_attribute("data-fail")
    rubric = load_items(store, item_id=item_id)[0].rubric
    row = page.locator(f"#calibration-table tr[data-rubric='{rubric}']")
    labelled_before = int(row.locator("td.labelled").inner_text())

    page.keyboard.press("f")  # fails, with the judge's proposed verdict
    page.locator(f".queue-item.done[data-item='{item_id}']").wait_for()
    item = load_items(store, item_id=item_id)[0]
    assert (item.status, item.human_verdict) == (LABELLED, fail_verdict)
    # the table is read again: one more labelled item, and the proposals now have a kappa
    page.wait_for_function(f"() => document.querySelector(\"#calibration-table tr[data-rubric='{rubric}'] "
                           f"td.labelled\").textContent.trim() === '{labelled_before + 1}'")
    assert "no promoted item" not in row.locator("td.kappa").inner_text()

    second = page.locator(".queue-item.current")
    second_id, pass_verdict = second.get_attribute("data-item"), second.get_attribute("data-pass")
    page.keyboard.press("s")  # skip: nothing saved, the next item is current
    assert page.locator(".queue-item.current").get_attribute("data-item") != second_id
    page.keyboard.press("k")  # back to it
    page.keyboard.press("p")  # passes
    page.locator(f".queue-item.done[data-item='{second_id}']").wait_for()
    assert load_items(store, item_id=second_id)[0].human_verdict == pass_verdict
    # the header says the count once, and after keyboard labels it is the store's count, not the page's sum
    waiting_now = len(load_items(store, status=NEEDS_LABEL))
    page.wait_for_function(f"() => document.getElementById('queue-count').textContent === '{waiting_now} waiting'")
    assert page.locator("h1").inner_text() == f"Labelling queue {waiting_now} waiting"

    page.reload()
    assert page.locator(f".queue-item[data-item='{item_id}']").count() == 0
    assert page.locator("#queue-count").inner_text() == f"{len(waiting_before) - 2} waiting"


def test_the_map_draws_20000_points_in_webgl(page, dataset):
    _, store, _ = dataset
    xy = np.random.default_rng(3).normal(size=(20_000, 2))
    text = "factuality numerically_wrong (number mismatch). summary: \"rose 21%\" | source: \"rose 12%\". " * 3
    save_projection(store, "bulk-20k", datetime.now(timezone.utc), [
        ProjectionPoint(f"{i:032x}", f"{i:016x}", "factuality", float(x), float(y),
                        f"SW-{i % 300 + 1}" if i % 10 else None, text) for i, (x, y) in enumerate(xy)])
    started = time.perf_counter()
    page.goto("/map?run=bulk-20k")
    page.wait_for_function(DRAWN, timeout=30_000)
    seconds = time.perf_counter() - started
    drawn = page.evaluate("() => document.getElementById('cluster-map')._fullData"
                          ".map(t => [t.type, t.x.length, t.name])")
    assert sum(n for _, n, _ in drawn) == 20_000 and {t for t, _, _ in drawn} == {"scattergl"}
    assert any(name.startswith("noise (2000)") for _, _, name in drawn)
    assert seconds < 10, f"the 20,000-point map took {seconds:.1f} s to draw"


def test_the_export_button_files_the_issue_with_the_chosen_tracker(browser, dataset, tmp_path):
    from sumwatch.monitor.exports.config import ExportConfig

    settings, store, report = dataset
    issue = report.issues[0]
    exporting = serve(store, settings, ExportConfig(markdown_dir=str(tmp_path)))
    context = browser.new_context(base_url=exporting.endpoint)
    try:
        page = context.new_page()
        page.goto(f"/issues/{issue.issue_id}")
        page.select_option("#export-target", "markdown")
        page.click("#export-issue")
        page.wait_for_function("() => /markdown: /.test(document.getElementById('export-result').textContent)")
        assert "markdown: created" in page.locator("#export-result").inner_text()
        ticket = page.locator('#ticket-list .ticket[data-target="markdown"]')  # listed in place, no reload
        assert f"{issue.issue_id}.md" in ticket.inner_text() and "open" in ticket.inner_text()
        assert page.locator("#no-tickets").is_hidden()
        assert issue.title in (tmp_path / f"{issue.issue_id}.md").read_text()
        # github has no settings here: the menu does not offer it
        assert page.locator("#export-target option").evaluate_all("os => os.map(o => o.value)") == ["markdown"]
    finally:
        context.close()
        exporting.stop()
