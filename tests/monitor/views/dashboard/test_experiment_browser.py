"""The comparison page in headless Chromium through the real server on 127.0.0.1: each regressed item's source and
both summaries drawn side by side in three columns, the evidence marked in them, and the rubric table inside its
panel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from experiment_data import FIXED, REGRESSED, experiments
from served_dashboard import CHROMIUM, serve

pytestmark = pytest.mark.integration


@pytest.fixture
def served(store, settings):
    experiments(store)
    running = serve(store, settings)
    yield running
    running.stop()


def test_the_comparison_draws_each_changed_item_side_by_side(served, tmp_path):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium", pytrace=False)
    from playwright.sync_api import sync_playwright

    # where the screenshot goes: a folder of the caller's choice (to look at it), else the test's own
    shot = Path(os.environ.get("SUMWATCH_SCREENSHOTS", tmp_path)) / "experiment_compare.png"
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = chromium.new_page(base_url=served.endpoint, viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
            page.goto("/experiments/base/compare/candidate")
            assert page.locator("#verdict").inner_text().startswith("REGRESSION on factuality")
            table, panel = page.locator("#rubric-comparison table"), page.locator("#rubric-comparison")
            t, p = table.bounding_box(), panel.bounding_box()
            assert t and p and t["x"] + t["width"] <= p["x"] + p["width"]  # the table fits its panel
            assert page.locator("#regressed article.item-diff").count() == len(REGRESSED)
            assert page.locator("#fixed article.item-diff").count() == len(FIXED)

            card = page.locator(f'#regressed article.item-diff[data-item="{REGRESSED[0]}"]')
            sides = card.locator(".pair.three > section")
            assert sides.count() == 3
            boxes = [sides.nth(i).bounding_box() for i in range(3)]
            assert all(b and b["width"] > 300 for b in boxes), boxes
            # source, base, candidate: one row, left to right, none over another
            assert abs(boxes[0]["y"] - boxes[1]["y"]) < 2 and abs(boxes[1]["y"] - boxes[2]["y"]) < 2
            assert all(left["x"] + left["width"] <= right["x"] for left, right in zip(boxes, boxes[1:]))
            assert [sides.nth(i).locator("h4").inner_text().split(":")[0] for i in range(3)] == [
                "Source", "Base", "Candidate"]
            source_mark, candidate_mark = sides.nth(0).locator("mark"), sides.nth(2).locator("mark")
            assert source_mark.is_visible() and source_mark.inner_text() == "14 new bus lines"
            assert candidate_mark.is_visible() and candidate_mark.inner_text() == "41 new bus lines"
            assert sides.nth(1).locator("mark").count() == 0  # the base summary passed: nothing to mark
            assert sides.nth(2).locator(".evidence").is_visible()
            page.locator("#rubric-comparison a[href='#fixed']").click()
            fixed = page.locator(f'#fixed article.item-diff[data-item="{FIXED[0]}"]')
            assert fixed.is_visible() and fixed.locator(".pair.three > section").nth(1).locator("mark").is_visible()
            page.screenshot(path=str(shot), full_page=True)
            assert not errors, errors
        finally:
            chromium.close()
    assert shot.stat().st_size > 10_000
