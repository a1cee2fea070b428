"""Labelling from a trace page in headless Chromium through the real server: the span goes into a rubric's corpus
labelled by the name typed in the form, and the queue then shows the item with that labeller, the judge's
explanation and its evidence marked."""

from __future__ import annotations

import pytest
from served_dashboard import CHROMIUM, database_of_its_own, serve

from sumwatch.monitor.store.corpus import load_items
from sumwatch.monitor.store.corpus_labels import labels_of
from sumwatch.monitor.store.scores import list_scores

pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture(scope="module")
def labelling_dataset(sw_home, rules_cascade):
    """Demo spans scored by the rules, in a database of their own (labels change what other tests expect)."""
    from sumwatch.monitor.demo.run import run_demo, score_demo

    with database_of_its_own(sw_home, "labels") as (settings, store):
        score_demo(store, rules_cascade, run_demo(store, n=30, seed=5, service="digest").run_id)
        running = serve(store, settings)
        yield running, store
        running.stop()

@pytest.fixture(scope="module")
def tab(labelling_dataset):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(base_url=labelling_dataset[0].endpoint, viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
        yield page
        browser.close()
        assert not errors, f"JavaScript errors or Content-Security-Policy violations: {errors}"


def test_label_a_trace_from_its_page_then_find_it_in_the_queue_with_the_labeller(tab, labelling_dataset, tmp_path):
    _, store = labelling_dataset
    # a span the rules failed on factuality with quoted evidence: the queue must show and mark it
    failed = next(s for s in list_scores(store, rubric="factuality", failing_only=True, limit=500) if '"' in s.evidence)
    tab.goto(f"/traces/{failed.trace_id}")
    form = tab.locator(f"#span-{failed.span_id} form.label-trace")
    form.locator("select[name=rubric]").select_option("factuality")
    form.locator("select[name=verdict]").select_option("fail")
    form.locator("input[name=failure_mode]").fill(failed.verdict)  # fail names what failed: nothing is guessed
    form.locator("input[name=note]").fill("the figure changed")
    form.locator("input[name=by]").fill("Ana Lopez")
    form.locator("button[type=submit]").click()
    tab.locator("#labelled-notice").wait_for()
    assert "Labelled into the factuality corpus" in tab.locator("#labelled-notice").inner_text()
    tab.screenshot(path=str(tmp_path / "trace-labelled.png"))
    form.screenshot(path=str(tmp_path / "trace-label-form.png"))

    (item,) = [i for i in load_items(store, rubric="factuality") if i.span_id == failed.span_id]
    assert (item.trace_id, item.origin, item.status, item.human_verdict) == (failed.trace_id, "trace", "labelled",
                                                                            failed.verdict)
    (label,) = labels_of(store, [item.item_id])[item.item_id]
    assert (label.labeller, label.note) == ("Ana Lopez", "the figure changed")

    tab.locator("#labelled-notice a").click()
    card = tab.locator(f".queue-item[data-item='{item.item_id}']")
    card.wait_for()
    assert card.locator(".label[data-labeller='Ana Lopez']").inner_text().startswith(f"Ana Lopez: {failed.verdict}")
    assert failed.explanation in card.locator(".explanation").inner_text()
    assert card.locator(".pair mark").count() >= 1  # the evidence, marked as the trace page marks it
    # the name is remembered for this browser session: the queue's name box holds it
    assert tab.locator("#labeller").input_value() == "Ana Lopez"
    card.scroll_into_view_if_needed()
    tab.screenshot(path=str(tmp_path / "labelling-queue.png"), full_page=True)
    print(f"screenshots in {tmp_path}")
